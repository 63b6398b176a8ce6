// Provisions four times through the built package (success, rollout failure, timeout,
// abort) and after each reports the process's active resources. Run by
// test/integration/leaks.test.ts, which also checks that this process exits on its own.
// Usage: node provision-and-count.mjs <kubeconfig> <namespace> <okImage> <failImage> <neverReadyImage>
import { KubernetesApi, defaultInformerRegistry, provision } from 'kube-provisioner';

const [kubeconfigPath, namespace, okImage, failImage, neverReadyImage] = process.argv.slice(2);
const api = KubernetesApi.fromConfig({ kubeconfigPath, namespace });
const spec = (name, image) => ({ containerId: name, nodeId: 1, hostname: name, image, cpus: 0.1, memoryMb: 64 });
const settle = () => new Promise((resolve) => setImmediate(() => setTimeout(resolve, 300)));
// Handles that would keep the process alive or leak: sockets and timers.
const leaky = () => process.getActiveResourcesInfo().filter((name) => /TCP|TLS|Timeout|Immediate/.test(name));

const report = {};
async function scenario(name, run) {
  const outcome = await run().then(
    () => 'resolved',
    (error) => error.name,
  );
  await settle();
  report[name] = { outcome, leaky: leaky(), informers: defaultInformerRegistry.count(api) };
}

const suffix = Math.random().toString(36).slice(2, 7);
await scenario('success', () => provision(api, spec(`ok-${suffix}`, okImage), { timeoutMs: 60000 }));
await scenario('failure', () => provision(api, spec(`fail-${suffix}`, failImage), { timeoutMs: 60000 }));
await scenario('timeout', () => provision(api, spec(`slow-${suffix}`, neverReadyImage), { timeoutMs: 3000 }));
await scenario('abort', () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error('user cancelled')), 1500);
  return provision(api, spec(`abort-${suffix}`, neverReadyImage), { timeoutMs: 60000, signal: controller.signal });
});
process.stdout.write(`${JSON.stringify(report)}\n`);
// No process.exit(): the test measures that the process ends on its own.
