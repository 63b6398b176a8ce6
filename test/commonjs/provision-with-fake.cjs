// Manager is CommonJS: this file require()s the built package by name and provisions
// through a minimal in-memory client (the integration suite does the same against the
// real control plane with test/commonjs/provision-real.cjs).
'use strict';
const { provision, KubernetesApi, parseWorkloadSpec, ConflictError } = require('kube-provisioner');

if (typeof KubernetesApi.fromConfig !== 'function' || typeof ConflictError !== 'function') {
  throw new Error('public API incomplete');
}

let stored;
const client = {
  namespace: 'default',
  server: 'https://fake.invalid',
  async create(kind, namespace, body) {
    stored = { ...body, metadata: { ...body.metadata, namespace, uid: 'uid-1', generation: 1, resourceVersion: '2' } };
    return stored;
  },
  async read() {
    return stored;
  },
  async list(kind) {
    if (kind !== 'deployments') return { items: [], resourceVersion: '2' };
    const complete = {
      ...stored,
      status: {
        observedGeneration: 1,
        replicas: 1,
        updatedReplicas: 1,
        readyReplicas: 1,
        availableReplicas: 1,
        conditions: [
          { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' },
          {
            type: 'Progressing',
            status: 'True',
            reason: 'NewReplicaSetAvailable',
            message: 'ReplicaSet "web-1" has successfully progressed.',
          },
        ],
      },
    };
    return { items: [complete], resourceVersion: '3' };
  },
  // A streaming list, as kube-apiserver sends one: the current objects, then the bookmark
  // that ends them; no changes follow.
  watch(kind, namespace, params, handlers) {
    if (params.sendInitialEvents) {
      client.list(kind).then(({ items, resourceVersion }) => {
        for (const item of items) handlers.onEvent('ADDED', item);
        handlers.onEvent('BOOKMARK', { metadata: { resourceVersion, annotations: { 'k8s.io/initial-events-end': 'true' } } });
      });
    }
    return { abort() {} };
  },
};

const spec = { containerId: 42, nodeId: 7, hostname: 'web', image: 'nginx:1.27', cpus: 1, memoryMb: 1024 };
parseWorkloadSpec(spec);
provision(client, spec, { timeoutMs: 5000 }).then(
  (result) => process.stdout.write(JSON.stringify(result) + '\n'),
  (error) => {
    process.stderr.write(String(error) + '\n');
    process.exitCode = 1;
  },
);
