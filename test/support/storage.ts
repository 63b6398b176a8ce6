// Storage on the real control plane, made with kubectl (an independent client): a
// StorageClass without a provisioner that binds when the Pod is scheduled, and static
// `local` PersistentVolumes on the KWOK node, so the real PV controller binds the claims
// and the real scheduler's volume binding places the Pods.
import { clusterEnv } from './cluster-env.js';
import { kubectl, kubectlJson, uniqueName } from './kube.js';

export interface LocalStorage {
  readonly className: string;
  readonly volumeNames: readonly string[];
  /** Adds `count` more volumes of `sizeGi` to the class; returns their names. */
  addVolumes(count: number, sizeGi?: number): string[];
  /** Deletes the volumes and the class (claims are the tests' own business). */
  remove(): void;
}

export interface LocalStorageOptions {
  readonly volumes?: number;
  readonly sizeGi?: number;
  readonly allowVolumeExpansion?: boolean;
  /** Marks the class as the cluster's default; remove() takes the mark off again. */
  readonly isDefault?: boolean;
  readonly bindingMode?: 'WaitForFirstConsumer' | 'Immediate';
  readonly prefix?: string;
}

export function localStorage(options: LocalStorageOptions = {}): LocalStorage {
  const className = uniqueName(options.prefix ?? 'kp-local');
  const annotations = options.isDefault ? { 'storageclass.kubernetes.io/is-default-class': 'true' } : {};
  kubectl(['apply', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: className, annotations },
      provisioner: 'kubernetes.io/no-provisioner',
      volumeBindingMode: options.bindingMode ?? 'WaitForFirstConsumer',
      reclaimPolicy: 'Retain',
      ...(options.allowVolumeExpansion !== undefined ? { allowVolumeExpansion: options.allowVolumeExpansion } : {}),
    }),
  });
  const volumeNames: string[] = [];
  const addVolumes = (count: number, sizeGi = options.sizeGi ?? 10): string[] => {
    const names = Array.from({ length: count }, () => uniqueName(`${className}-pv`));
    const items = names.map((name) => ({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name, labels: { 'kube-provisioner.test/class': className } },
      spec: {
        capacity: { storage: `${sizeGi}Gi` },
        accessModes: ['ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Retain',
        storageClassName: className,
        local: { path: `/mnt/${name}` },
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [clusterEnv().nodeName] }] }],
          },
        },
      },
    }));
    if (items.length > 0) kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }) });
    volumeNames.push(...names);
    return names;
  };
  addVolumes(options.volumes ?? 0);
  return {
    className,
    volumeNames,
    addVolumes,
    remove: () => {
      kubectl(['delete', 'pv', '-l', `kube-provisioner.test/class=${className}`, '--wait=false', '--ignore-not-found']);
      kubectl(['delete', 'storageclass', className, '--ignore-not-found']);
    },
  };
}

export interface ClaimView {
  readonly metadata: { uid: string; labels?: Record<string, string>; ownerReferences?: unknown[]; deletionTimestamp?: string };
  readonly spec: { volumeName?: string; storageClassName?: string; resources: { requests: { storage: string } }; accessModes: string[] };
  readonly status: { phase: string; capacity?: { storage: string } };
}

/** The claim as kubectl sees it, or undefined when there is none. */
export function claimOf(namespace: string, name: string): ClaimView | undefined {
  const list = kubectlJson<{ items: ClaimView[] }>(['get', 'pvc', '-n', namespace, '--field-selector', `metadata.name=${name}`]);
  return list.items[0];
}

/** Whether any StorageClass of the cluster is marked default (a test that needs none checks it first). */
export function defaultClassNames(): string[] {
  const list = kubectlJson<{ items: { metadata: { name: string; annotations?: Record<string, string> } }[] }>(['get', 'storageclass']);
  return list.items
    .filter((item) => item.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true')
    .map((item) => item.metadata.name);
}
