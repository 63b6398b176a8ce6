// Real volumes on the real node: a static local PersistentVolume (test/support/real-node.ts)
// is bound by the real PV controller and scheduler when a pod claims it, mounted by the
// kubelet, and what one pod writes there the next pod reads, while it is on this machine's
// disk. This is the node's storage, with kubectl; the library's claims are the data tests'.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { kubectl, kubectlJson } from '../support/kube.js';
import { REAL_NODE_IMAGES, REAL_NODE_STORAGE_CLASS, createRealNodeNamespace, offerLocalVolume } from '../support/real-node.js';

let namespace: string;
beforeAll(() => {
  namespace = createRealNodeNamespace('rn-volume');
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

function runPod(name: string, script: string): string {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace },
    spec: {
      restartPolicy: 'Never',
      containers: [
        {
          name: 'main',
          image: REAL_NODE_IMAGES.busybox,
          command: ['sh', '-c', script],
          volumeMounts: [{ name: 'data', mountPath: '/data' }],
        },
      ],
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }],
    },
  };
  kubectl(['create', '-f', '-'], { input: JSON.stringify(pod) });
  kubectl(['wait', '-n', namespace, `pod/${name}`, '--for=jsonpath={.status.phase}=Succeeded', '--timeout=60s']);
  return kubectl(['logs', '-n', namespace, name]);
}

describe('a local volume on the real node', () => {
  it('is bound when a pod claims it, and keeps what one pod wrote for the next', () => {
    const volume = offerLocalVolume();
    const claim = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data', namespace },
      spec: { accessModes: ['ReadWriteOnce'], storageClassName: REAL_NODE_STORAGE_CLASS, resources: { requests: { storage: '1Gi' } } },
    };
    kubectl(['create', '-f', '-'], { input: JSON.stringify(claim) });

    expect(runPod('writer', 'echo written by the first pod > /data/note; cat /data/note')).toBe('written by the first pod\n');
    const bound = kubectlJson<{ spec: { volumeName: string }; status: { phase: string } }>(['get', 'pvc', 'data', '-n', namespace]);
    expect(bound.status.phase).toBe('Bound');
    expect(bound.spec.volumeName).toBe(volume.name);
    // On this machine's disk, in the volume's directory.
    expect(readFileSync(join(volume.dir, 'note'), 'utf8')).toBe('written by the first pod\n');

    kubectl(['delete', 'pod', 'writer', '-n', namespace, '--grace-period=1']);
    expect(runPod('reader', 'cat /data/note')).toBe('written by the first pod\n');
  });
});
