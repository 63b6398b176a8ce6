// The cluster's StorageClasses, read as values: which one is the default (what the API
// server's DefaultStorageClass admission gives a claim that names none), and what a class
// offers (its binding mode, whether it allows expansion). Pure.
import type { V1StorageClass } from '../kube/objects.js';

/** The annotation that marks the default class (and its beta spelling, still honoured). */
export const DEFAULT_CLASS_ANNOTATIONS: readonly string[] = [
  'storageclass.kubernetes.io/is-default-class',
  'storageclass.beta.kubernetes.io/is-default-class',
];

/** Marks a dynamic provisioner's absence: such a class binds only volumes an administrator created. */
export const NO_PROVISIONER = 'kubernetes.io/no-provisioner';

export function isDefaultClass(storageClass: V1StorageClass): boolean {
  const annotations = storageClass.metadata?.annotations ?? {};
  return DEFAULT_CLASS_ANNOTATIONS.some((key) => annotations[key] === 'true');
}

function createdMs(storageClass: V1StorageClass): number {
  const created = storageClass.metadata?.creationTimestamp;
  return created === undefined ? 0 : new Date(created).getTime();
}

/**
 * The default class: of those marked default, the newest (as the admission plugin chooses
 * since Kubernetes 1.28; ties by name), undefined when none is marked. `defaults` lists
 * every marked one, so a caller can say that more than one is.
 */
export function defaultStorageClass(classes: readonly V1StorageClass[]): { chosen?: V1StorageClass; defaults: V1StorageClass[] } {
  const defaults = classes
    .filter(isDefaultClass)
    .sort((a, b) => createdMs(b) - createdMs(a) || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  return { ...(defaults[0] ? { chosen: defaults[0] } : {}), defaults };
}

export interface StorageClassSummary {
  readonly name: string;
  readonly provisioner: string;
  /** Immediate or WaitForFirstConsumer. */
  readonly bindingMode: string;
  readonly allowsExpansion: boolean;
  readonly reclaimPolicy: string;
  readonly isDefault: boolean;
}

/** What a class offers, with the API server's defaults filled in. */
export function summarizeStorageClass(storageClass: V1StorageClass): StorageClassSummary {
  return {
    name: storageClass.metadata?.name ?? '',
    provisioner: storageClass.provisioner ?? '',
    bindingMode: storageClass.volumeBindingMode ?? 'Immediate',
    allowsExpansion: storageClass.allowVolumeExpansion === true,
    reclaimPolicy: storageClass.reclaimPolicy ?? 'Delete',
    isDefault: isDefaultClass(storageClass),
  };
}

/** One line about a class, for a check item or an error. */
export function describeStorageClass(storageClass: V1StorageClass): string {
  const summary = summarizeStorageClass(storageClass);
  const binding =
    summary.bindingMode === 'WaitForFirstConsumer' ? 'binds when the Pod is scheduled (WaitForFirstConsumer)' : 'binds at once (Immediate)';
  const provisioner =
    summary.provisioner === NO_PROVISIONER ? 'no provisioner: only volumes an administrator created' : `provisioner ${summary.provisioner}`;
  const expansion = summary.allowsExpansion ? 'allows expansion' : 'does not allow expansion';
  return `${summary.name}: ${provisioner}, ${binding}, ${expansion}, reclaim ${summary.reclaimPolicy}`;
}
