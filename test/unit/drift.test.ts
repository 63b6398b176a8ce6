// workloadDrift(): the manifest buildDeployment() makes, against the same Deployment as
// kube-apiserver returns it (quantities canonicalised, empty env values dropped, server
// defaults added), and against edited copies. Pure; no cluster.
import type { V1Deployment } from '../../src/kube/objects.js';
import { describe, expect, it } from 'vitest';
import { isReconfigurable, workloadDrift } from '../../src/members/drift.js';
import { buildDeployment } from '../../src/members/deployment/manifest.js';
import { parseWorkloadSpec } from '../../src/input/workload-spec.js';

const spec = parseWorkloadSpec({
  containerId: 42,
  nodeId: 7,
  hostname: 'web',
  image: 'docker.io/library/nginx:1.27',
  cpus: 1,
  memoryMb: 1024,
  env: { GREETING: 'hello', EMPTY: '' },
  entrypoint: 'nginx -g "daemon off;"',
});
const desired = buildDeployment(spec);

/** `desired` as the API server stores it. */
function asStored(): V1Deployment {
  const stored = structuredClone(desired);
  const container = stored.spec!.template.spec!.containers[0]!;
  container.resources = { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } };
  container.env = [{ name: 'EMPTY' }, { name: 'GREETING', value: 'hello' }];
  container.imagePullPolicy = 'IfNotPresent';
  container.terminationMessagePath = '/dev/termination-log';
  stored.metadata = { ...stored.metadata, uid: 'u1', generation: 3, annotations: { 'deployment.kubernetes.io/revision': '3' } };
  stored.spec!.template.metadata!.annotations = { 'kubectl.kubernetes.io/restartedAt': '2025-01-15T10:00:00Z' };
  return stored;
}

describe('workloadDrift', () => {
  it('finds none between the manifest and the same Deployment as stored (restart stamps and server defaults are not drift)', () => {
    expect(workloadDrift(desired, asStored())).toEqual([]);
  });

  it('lists each field that differs, in the spec’s words, with both values', () => {
    const live = asStored();
    const container = live.spec!.template.spec!.containers[0]!;
    container.image = 'docker.io/library/nginx:1.26';
    container.resources = { limits: { cpu: '500m', memory: '1Gi' }, requests: { cpu: '500m', memory: '1Gi' } };
    container.env = [{ name: 'GREETING', value: 'hi' }, { name: 'EXTRA', value: 'x' }, { name: 'EMPTY' }];
    container.args = ['-T'];
    live.spec!.replicas = 0;
    expect(workloadDrift(desired, live)).toEqual([
      { field: 'replicas', live: '0', desired: '1' },
      { field: 'image', live: 'docker.io/library/nginx:1.26', desired: 'docker.io/library/nginx:1.27' },
      { field: 'args', live: '["-T"]', desired: '(none)' },
      { field: 'cpus', live: '0.5', desired: '1' },
      { field: 'env.EXTRA', live: '"x"', desired: '(none)' },
      { field: 'env.GREETING', live: '"hi"', desired: '"hello"' },
    ]);
  });

  it('reports label differences, which a reconfiguration cannot fix', () => {
    const live = asStored();
    live.metadata!.labels = { ...live.metadata!.labels, 'org.mieweb.opensource-server.node-id': '8' };
    const drift = workloadDrift(desired, live);
    expect(drift).toEqual([{ field: 'labels.org.mieweb.opensource-server.node-id', live: '8', desired: '7' }]);
    expect(drift.every(isReconfigurable)).toBe(false);
    expect(isReconfigurable({ field: 'image', live: 'a', desired: 'b' })).toBe(true);
  });

  it('shows requests and limits apart when they disagree', () => {
    const live = asStored();
    live.spec!.template.spec!.containers[0]!.resources = { requests: { cpu: '1', memory: '512Mi' }, limits: { cpu: '1', memory: '1Gi' } };
    expect(workloadDrift(desired, live)).toEqual([{ field: 'memoryMb', live: 'requests 512, limits 1024', desired: '1024' }]);
  });
});
