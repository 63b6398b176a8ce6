// Change a workload's environment and memory; if the new Pod cannot run, put the previous
// pod template back (rollbackOnFailure).
// Usage: KUBECONFIG=... node examples/reconfigure.mjs NAMESPACE/NAME [IMAGE]
import { KubernetesApi, ReconfigureFailedError, reconfigure } from 'kube-provisioner';

const [providerId, image] = process.argv.slice(2);
const api = KubernetesApi.fromConfig({ kubeconfigPath: process.env.KUBECONFIG });

try {
  const result = await reconfigure(
    api,
    providerId,
    { env: { LOG_LEVEL: 'debug' }, unsetEnv: ['GREETING'], memoryMb: 512, ...(image ? { image } : {}) },
    { rollbackOnFailure: true, timeoutMs: 120_000 },
  );
  console.log(`reconfigured ${result.providerId}: ${result.fields.join(', ')} (replicas ${result.replicas})`);
} catch (error) {
  if (!(error instanceof ReconfigureFailedError)) throw error;
  // The kubelet's reason, and whether the previous template is back.
  console.log(`failed: ${error.reason}; previous template restored: ${error.restored}`);
  process.exitCode = 3;
}
