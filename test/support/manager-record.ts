// A Manager container row on this test cluster's Kubernetes node, not yet provisioned: the
// fields Manager's models give the adapter, with what a test changes passed over them.
import type { ContainerRecord } from '../../src/manager/providers/types.js';
import { clusterEnv } from './cluster-env.js';

export function kubernetesRecord(
  fields: Pick<ContainerRecord, 'id' | 'hostname'> & Partial<ContainerRecord>,
  node: { readonly namespace: string; readonly name?: string },
): ContainerRecord {
  return {
    username: 'alice',
    template: 'docker.io/library/nginx:1.27',
    providerId: null,
    macAddress: null,
    ipAddress: null,
    nvidiaRequested: false,
    environment: {},
    defaultEnvironment: {},
    entrypoint: null,
    resources: { cpus: 0.25, memoryMb: 256, swapMb: 0, rootfsGb: 1 },
    node: {
      id: 1,
      name: node.name ?? 'k8s',
      nodeType: 'kubernetes',
      kubeconfigPath: clusterEnv().kubeconfigPath,
      kubeNamespace: node.namespace,
      kubePersistence: 'off',
    },
    site: null,
    ...fields,
  };
}
