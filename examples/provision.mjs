// Provision one Manager container and wait until it runs (ESM, the Promise form).
// Run against any cluster: KUBECONFIG_PATH=~/.kube/config NAMESPACE=team-a node examples/provision.mjs
import { KubernetesApi, RolloutFailedError, provision } from 'kube-provisioner';

const api = KubernetesApi.fromConfig({
  kubeconfigPath: process.env.KUBECONFIG_PATH, // unset: $KUBECONFIG, then ~/.kube/config
  context: process.env.KUBE_CONTEXT, // unset: the kubeconfig's current-context (checked up front)
  namespace: process.env.NAMESPACE, // unset: the context's namespace, else "default"
  tlsVerify: true, // the default; only an explicit false turns it off
});

const spec = {
  containerId: 42, // Manager's Container.id -> label org.mieweb.opensource-server.container-id
  nodeId: 7, // Manager's Node.id -> label org.mieweb.opensource-server.node-id
  hostname: 'web', // a DNS-1123 label: the Deployment's name and the pod's hostname
  image: 'docker.io/library/nginx:1.27', // passed to Kubernetes exactly as given
  cpus: 0.5, // -> 500m (requests = limits)
  memoryMb: 256, // -> 256Mi (requests = limits)
  env: { GREETING: 'hello' },
  entrypoint: 'nginx -g "daemon off;"', // one string, split like shell words; or an argv array
  ports: [{ port: 80 }], // -> a Service of the same name: one stable address for its whole life; ready means reachable
  // optional too: args (an argv array after the entrypoint), namespace (overrides the client's)
};

const controller = new AbortController();
process.once('SIGINT', () => controller.abort(new Error('interrupted')));

try {
  const result = await provision(api, spec, {
    timeoutMs: 300_000, // the default: 5 minutes for the whole provisioning, the create included
    signal: controller.signal, // aborting stops the wait; the Deployment stays
  });
  // result.providerId is "namespace/web": store it in Manager's Container.containerId.
  // result.address is the Service's ClusterIP (never a Pod IP): Manager's Container.ipv4Address.
  console.log(JSON.stringify(result));
} catch (error) {
  if (error instanceof RolloutFailedError) console.error(`${error.reason}: ${error.detail}`);
  else console.error(`${error.name}: ${error.message}`);
  process.exitCode = 1;
}
