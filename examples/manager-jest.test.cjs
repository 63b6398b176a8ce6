// A test in Manager's own suite (plain Jest 30, CommonJS): require() the package, as here.
// Jest loads modules with its own CommonJS loader: import() of the package, like import() of
// any ES module, fails under Jest unless NODE_OPTIONS=--experimental-vm-modules is set, so
// Manager's tests use require(). No cluster needed: a dummy node and an in-memory store.
// Run: npx jest (from a project where kube-provisioner is installed)
'use strict';
const { KubeProvisionerError } = require('kube-provisioner');
const {
  MemoryContainerStore,
  ProviderRegistry,
  containerLifecycle,
  createContainer,
  createDummyProvider,
} = require('kube-provisioner/manager');
const kubernetes = require('kube-provisioner/manager-kit');

const row = {
  id: 42,
  hostname: 'web',
  username: 'alice',
  template: 'docker.io/library/nginx:1.27',
  providerId: null,
  macAddress: null,
  ipAddress: null,
  nvidiaRequested: false,
  environment: { PORT: '8080' },
  defaultEnvironment: {},
  entrypoint: null,
  resources: { cpus: 1, memoryMb: 512, swapMb: 0, rootfsGb: 8 },
  node: { id: 1, name: 'dev', nodeType: 'dummy' },
  site: { name: 'Main', internalDomain: null },
};

test('a container on a dummy node is created, stopped, started and removed, and its row keeps each result', async () => {
  const store = new MemoryContainerStore([row]);
  const providers = new ProviderRegistry([createDummyProvider({ stepDelayMs: 1 })]);
  const created = await createContainer(42, { providers, store });
  expect(created.providerId).toBe('dummy-42');

  const lifecycle = containerLifecycle(providers, { store });
  expect(await lifecycle.stop(42)).toMatchObject({ operation: 'stop', changed: true });
  expect((await lifecycle.status(42)).state).toBe('offline');
  const started = await lifecycle.start(42);
  expect((await store.load(42)).ipAddress).toBe(started.network.ipAddress);
  await lifecycle.remove(42);
  expect((await store.load(42)).providerId).toBeNull();
  await expect(lifecycle.stop(42)).rejects.toThrow('Container 42 cannot be stopped: it has no provider ID');
});

test('the kit decides which kubernetes nodes Manager may use, and why not', () => {
  expect(kubernetes.hasApiAccess({ name: 'k8s', nodeType: 'kubernetes', kubeconfigPath: '/etc/manager/k8s.kubeconfig' })).toBe(true);
  expect(kubernetes.hasApiAccess({ name: 'k8s', nodeType: 'kubernetes' })).toBe(false);
  expect(kubernetes.nodeInputProblem({ name: 'k8s', nodeType: 'kubernetes' })).toMatch(/^Kubernetes node k8s: kubeconfigPath is missing/);
  expect(() => kubernetes.nodeApi({ name: 'k8s', nodeType: 'kubernetes' })).toThrow(KubeProvisionerError);
});
