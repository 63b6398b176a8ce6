// Change a workload's environment and memory on the same Deployment; then ask for an image
// that does not exist, with rollbackOnFailure: the failure is named in the kubelet's words
// and the previous pod template is put back.
// Run against any cluster: KUBECONFIG_PATH=~/.kube/config NAMESPACE=team-a node examples/reconfigure.mjs
import { KubernetesApi, ReconfigureFailedError, provision, reconfigure } from 'kube-provisioner';

const api = KubernetesApi.fromConfig({ kubeconfigPath: process.env.KUBECONFIG_PATH, namespace: process.env.NAMESPACE });
const spec = { containerId: 47, nodeId: 7, hostname: 'web-config', image: 'docker.io/library/nginx:1.27', cpus: 0.5, memoryMb: 256 };
const { providerId } = await provision(api, { ...spec, env: { GREETING: 'hello' } });

const changed = await reconfigure(api, providerId, { env: { LOG_LEVEL: 'debug' }, unsetEnv: ['GREETING'], memoryMb: 512 });
console.log(`reconfigured ${changed.providerId}: ${changed.fields.join(', ')} (replicas ${changed.replicas})`);

const missingImage = process.env.BROKEN_IMAGE ?? 'docker.io/library/nginx:no-such-tag';
try {
  await reconfigure(api, providerId, { image: missingImage }, { rollbackOnFailure: true, timeoutMs: 120_000 });
} catch (error) {
  if (!(error instanceof ReconfigureFailedError)) throw error;
  // The kubelet's reason, and whether the previous template is back and rolled out.
  console.log(`failed: ${error.reason}; previous template restored: ${error.restored}`);
}
