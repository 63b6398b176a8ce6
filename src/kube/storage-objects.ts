// The storage objects (v1 PersistentVolumeClaim, storage.k8s.io/v1 StorageClass), a Pod's
// volumes and mounts, and core v1 Events, typed as the JSON the API server sends: only the
// fields the library sets or reads, named as in the Kubernetes API.
import type { V1ObjectMeta, V1Time } from './objects.js';

export interface V1PersistentVolumeClaimSpec {
  accessModes?: string[];
  resources?: { requests?: { [key: string]: string }; limits?: { [key: string]: string } };
  storageClassName?: string;
  volumeName?: string;
  volumeMode?: string;
}

export interface V1PersistentVolumeClaimCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastProbeTime?: V1Time;
  lastTransitionTime?: V1Time;
}

export interface V1PersistentVolumeClaimStatus {
  /** Pending, Bound or Lost. */
  phase?: string;
  accessModes?: string[];
  /** What the bound volume actually has. */
  capacity?: { [key: string]: string };
  /** Resizing, FileSystemResizePending, ControllerResizeError, NodeResizeError. */
  conditions?: V1PersistentVolumeClaimCondition[];
  /** What a resize has allocated so far (RecoverVolumeExpansionFailure). */
  allocatedResources?: { [key: string]: string };
  /** Per resource: ControllerResizeInProgress, ControllerResizeInfeasible, NodeResizePending, NodeResizeInProgress, NodeResizeInfeasible. */
  allocatedResourceStatuses?: { [key: string]: string };
}

export interface V1PersistentVolumeClaim {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec?: V1PersistentVolumeClaimSpec;
  status?: V1PersistentVolumeClaimStatus;
}

export interface V1StorageClass {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  provisioner: string;
  /** Immediate (the default) or WaitForFirstConsumer. */
  volumeBindingMode?: string;
  allowVolumeExpansion?: boolean;
  /** Delete (the default) or Retain. */
  reclaimPolicy?: string;
  parameters?: { [key: string]: string };
}

export interface V1Volume {
  name: string;
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
  emptyDir?: { medium?: string; sizeLimit?: string };
}

export interface V1VolumeMount {
  name: string;
  mountPath: string;
  subPath?: string;
  readOnly?: boolean;
}

export interface V1SecurityContext {
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
}

export interface V1ObjectReference {
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  apiVersion?: string;
}

/** A core v1 Event (what `kubectl get events` lists; the scheduler's events.k8s.io ones appear here too). */
export interface CoreV1Event {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  involvedObject: V1ObjectReference;
  reason?: string;
  message?: string;
  /** Normal or Warning. */
  type?: string;
  count?: number;
  firstTimestamp?: V1Time;
  lastTimestamp?: V1Time;
  eventTime?: V1Time;
  reportingComponent?: string;
  source?: { component?: string; host?: string };
  series?: { count?: number; lastObservedTime?: V1Time };
}
