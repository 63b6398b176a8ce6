// The storage part of a container's set of objects, as pure functions of its spec: the
// claim, and what the pod template gains from it (the volume, the mounts of
// the persisted paths, and the init container that seeds them from the image).
//
// The claim has the workload's labels and no owner reference: the Deployment deleted by
// hand, or by a garbage collector, never takes the data with it. Only an explicit delete
// removes the claim.

import type { V1Container, V1Deployment, V1PersistentVolumeClaim, V1PodSpec, V1VolumeMount } from '../../kube/objects.js';
import { LABEL_PREFIX } from '../../input/labels.js';
import type { StorageSpec } from '../../input/storage.js';
import { STORAGE_VOLUME_NAME, storageQuantity } from '../../input/storage.js';
import { storageCompare } from '../../rollout/claim-status.js';
import type { DriftField } from '../drift.js';
import type { WorkloadSpec } from '../../input/workload-spec.js';
import { SEED_CONTAINER_NAME, SEED_VOLUME_MOUNT, rootfsSubPath, seedCommand } from './seed-command.js';
import { KINDS } from '../../kube/kinds.js';

export { STORAGE_VOLUME_NAME };

/** ReadWriteOnce: one node at a time, which a single `Recreate` replica is. */
export const CLAIM_ACCESS_MODES: readonly string[] = ['ReadWriteOnce'];

type StorageWorkload = Pick<WorkloadSpec, 'containerId' | 'nodeId' | 'hostname' | 'instance' | 'image'> & { storage: StorageSpec };

export interface BuildClaimOptions {
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  /** The class to write into the claim: the spec's, or the cluster's default found before the create. */
  readonly storageClass?: string;
}

/**
 * On the claim: whether its class was named by the spec (`spec`) or was the cluster's
 * default when it was created (`default`). Only a named class is a promise a later create
 * checks the claim against.
 */
export const CLASS_SOURCE_ANNOTATION = `${LABEL_PREFIX}.storage-class-source`;

/** The claim a Deployment's Pods mount as the container's volume, if it has one. */
export function claimNameOf(deployment: V1Deployment | undefined): string | undefined {
  return deployment?.spec?.template.spec?.volumes?.find((volume) => volume.name === STORAGE_VOLUME_NAME)?.persistentVolumeClaim?.claimName;
}

/** The claim is named after the container, as its Deployment is. */
export function claimName(spec: Pick<WorkloadSpec, 'hostname'>): string {
  return spec.hostname;
}

/** The container's claim: pure, deterministic, no undefined fields. */
export function buildClaim(spec: StorageWorkload, options: BuildClaimOptions): V1PersistentVolumeClaim {
  const storageClass = spec.storage.storageClass ?? options.storageClass;
  return {
    apiVersion: 'v1',
    kind: KINDS.persistentvolumeclaims.kind,
    metadata: {
      name: claimName(spec),
      namespace: options.namespace,
      labels: { ...options.labels },
      ...(storageClass !== undefined ? { annotations: { [CLASS_SOURCE_ANNOTATION]: spec.storage.storageClass ? 'spec' : 'default' } } : {}),
    },
    spec: {
      accessModes: [...CLAIM_ACCESS_MODES],
      resources: { requests: { storage: storageQuantity(spec.storage.sizeGb) } },
      ...(storageClass !== undefined ? { storageClassName: storageClass } : {}),
    },
  };
}

/** The main container's mounts: each persisted path from its copy on the volume. */
export function persistedMounts(storage: Pick<StorageSpec, 'paths'>): V1VolumeMount[] {
  return storage.paths.map((path) => ({ name: STORAGE_VOLUME_NAME, mountPath: path, subPath: rootfsSubPath(path) }));
}

/**
 * The seeding init container: the same image, as root (the copy keeps every owner), with
 * the same resources as the container (so the Pod keeps its QoS class), writing why it
 * failed where the kubelet reads a container's message.
 */
export function seedContainer(spec: StorageWorkload, resources: V1Container['resources']): V1Container {
  return {
    name: SEED_CONTAINER_NAME,
    image: spec.image,
    command: seedCommand(spec.storage.paths),
    volumeMounts: [{ name: STORAGE_VOLUME_NAME, mountPath: SEED_VOLUME_MOUNT }],
    ...(resources ? { resources: structuredClone(resources) } : {}),
    securityContext: { runAsUser: 0, runAsGroup: 0 },
    terminationMessagePolicy: 'FallbackToLogsOnError',
  };
}

/**
 * The pod spec with the container's storage: the claim as a volume, the persisted paths
 * mounted into the container named after the hostname, and (seed `image`) the init
 * container that fills the volume on the first start. A new object; the input is not changed.
 */
export function withStorage(podSpec: V1PodSpec, spec: StorageWorkload): V1PodSpec {
  const mounts = persistedMounts(spec.storage);
  const containers = podSpec.containers.map((container) =>
    container.name === spec.hostname ? { ...container, volumeMounts: [...(container.volumeMounts ?? []), ...mounts] } : container,
  );
  const main = containers.find((container) => container.name === spec.hostname);
  const initContainers =
    spec.storage.seed === 'image' ? [seedContainer(spec, main?.resources), ...(podSpec.initContainers ?? [])] : podSpec.initContainers;
  return {
    ...podSpec,
    ...(initContainers && initContainers.length > 0 ? { initContainers } : {}),
    containers,
    volumes: [...(podSpec.volumes ?? []), { name: STORAGE_VOLUME_NAME, persistentVolumeClaim: { claimName: claimName(spec) } }],
  };
}

/**
 * Where a claim found at create time differs from the one asked for, in the spec's words: a
 * smaller size than asked (more is fine: the volume keeps what it has), another class than
 * the spec names (a class that was only the default is not compared). Labels are checked by
 * ownership before this.
 */
export function claimDrift(desired: V1PersistentVolumeClaim, live: V1PersistentVolumeClaim): DriftField[] {
  const drift: DriftField[] = [];
  const wanted = desired.spec?.resources?.requests?.storage;
  const found = live.spec?.resources?.requests?.storage;
  if (storageCompare(found, wanted) === -1) drift.push({ field: 'storage.sizeGb', live: found ?? '(none)', desired: wanted ?? '(none)' });
  const named = desired.metadata?.annotations?.[CLASS_SOURCE_ANNOTATION] === 'spec';
  const desiredClass = desired.spec?.storageClassName;
  const liveClass = live.spec?.storageClassName;
  if (named && desiredClass !== liveClass)
    drift.push({ field: 'storage.storageClass', live: liveClass || '(none)', desired: desiredClass ?? '(none)' });
  return drift;
}
