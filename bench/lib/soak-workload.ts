// The spec of one soak workload (bench/soak.ts creates it on a cluster; bench/heap.ts builds
// the same objects on the fake client): a Deployment with one port and a claim.
import { parseWorkloadSpec } from '../../src/input/workload-spec.js';

export const SOAK_IMAGE = 'registry.example.com/manager:1.0';

export function soakWorkloadSpec(namespace: string, name: string, containerId: string, storageClass: string) {
  return parseWorkloadSpec({
    containerId,
    nodeId: 1,
    hostname: name,
    image: SOAK_IMAGE,
    cpus: 0.01,
    memoryMb: 16,
    namespace,
    ports: [{ port: 80, protocol: 'tcp' }],
    storage: { sizeGb: 1, storageClass, paths: ['/srv'] },
  });
}
