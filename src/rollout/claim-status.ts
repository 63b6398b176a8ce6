// claimStatus(): what a container's claim is doing, as a value. Pure: the
// claim and, when known, its StorageClass in; no request, no clock. A resize is judged
// the way a careful operator does: by the capacity the volume reports, never by the
// request alone (a claim's request can grow while its volume never does).
import type { V1PersistentVolumeClaim, V1StorageClass } from '../kube/objects.js';
import { quantityUnits } from '../input/parse-quantity.js';
import { oneLine } from '../text.js';
import type { RolloutState } from './events.js';

export type ClaimPhase = 'Pending' | 'Bound' | 'Lost' | 'Terminating' | 'Missing';

/**
 * - `none`: the volume has what the claim asks for;
 * - `pending`: the claim asks for more than the volume has, and nothing says the resize is
 *   refused (an external resizer may be at work, or none exists: the message says which is known);
 * - `in-progress`: a controller or the kubelet is resizing;
 * - `failed`: a resizer gave up (infeasible);
 * - `not-supported`: the claim asks for more, and its class does not allow expansion.
 */
export type ResizeState = 'none' | 'pending' | 'in-progress' | 'failed' | 'not-supported';

export interface ClaimStatusValue {
  readonly name: string;
  readonly phase: ClaimPhase;
  readonly storageClass: string | null;
  /** The claim's request, as stored (e.g. "50Gi"). */
  readonly requested: string | null;
  /** What the bound volume has (e.g. "50Gi"); null until bound. */
  readonly capacity: string | null;
  readonly volumeName: string | null;
  readonly resize: ResizeState;
  /** Whether the class allows expansion; null when the class is not known. */
  readonly expandable: boolean | null;
  /** One line for a human. */
  readonly message: string;
}

const PHASES: ReadonlySet<string> = new Set(['Pending', 'Bound', 'Lost']);

function conditionOf(claim: V1PersistentVolumeClaim, type: string): { reason?: string; message?: string } | undefined {
  return claim.status?.conditions?.find((condition) => condition.type === type && condition.status === 'True');
}

/** Compares two storage quantities as numbers (the API server rewrites "1024Mi" as "1Gi"). */
export function storageCompare(a: string | null | undefined, b: string | null | undefined): number | undefined {
  const left = a ? quantityUnits(a) : undefined;
  const right = b ? quantityUnits(b) : undefined;
  if (left === undefined || right === undefined) return undefined;
  return Math.sign(left - right);
}

function resizeOf(
  claim: V1PersistentVolumeClaim,
  requested: string | null,
  capacity: string | null,
  expandable: boolean | null,
): { resize: ResizeState; message?: string } {
  const status = claim.status?.allocatedResourceStatuses?.storage;
  if (status === 'ControllerResizeInfeasible' || status === 'NodeResizeInfeasible') {
    const condition = conditionOf(claim, 'ControllerResizeError') ?? conditionOf(claim, 'NodeResizeError');
    return { resize: 'failed', message: `resize to ${requested} failed (${status})${condition?.message ? `: ${condition.message}` : ''}` };
  }
  if (capacity === null || storageCompare(requested, capacity) !== 1) return { resize: 'none' };
  if (conditionOf(claim, 'FileSystemResizePending') || status === 'NodeResizePending') {
    return {
      resize: 'pending',
      message: `resize to ${requested}: the volume is grown, the filesystem waits for the node (it grows when a Pod mounts it)`,
    };
  }
  if (conditionOf(claim, 'Resizing') || status === 'ControllerResizeInProgress' || status === 'NodeResizeInProgress') {
    return { resize: 'in-progress', message: `resizing from ${capacity} to ${requested}` };
  }
  if (expandable === false)
    return { resize: 'not-supported', message: `asks for ${requested}, has ${capacity}: its StorageClass does not allow expansion` };
  return { resize: 'pending', message: `asks for ${requested}, has ${capacity}: waiting for a resizer (none may exist for this volume)` };
}

/**
 * The status of a claim; `undefined` is a claim that does not exist (`Missing`). `storageClass`
 * is the claim's class, when the caller has read it (for `expandable`).
 */
export function claimStatus(claim: V1PersistentVolumeClaim | undefined, name: string, storageClass?: V1StorageClass): ClaimStatusValue {
  if (!claim) {
    return {
      name,
      phase: 'Missing',
      storageClass: null,
      requested: null,
      capacity: null,
      volumeName: null,
      resize: 'none',
      expandable: null,
      message: 'no claim',
    };
  }
  const className = claim.spec?.storageClassName || null;
  const requested = claim.spec?.resources?.requests?.storage ?? null;
  const capacity = claim.status?.capacity?.storage ?? null;
  const volumeName = claim.spec?.volumeName || null;
  const expandable = storageClass && storageClass.metadata?.name === className ? storageClass.allowVolumeExpansion === true : null;
  const rawPhase = claim.status?.phase ?? 'Pending';
  const phase: ClaimPhase = claim.metadata?.deletionTimestamp ? 'Terminating' : PHASES.has(rawPhase) ? (rawPhase as ClaimPhase) : 'Pending';
  const resize = resizeOf(claim, requested, capacity, expandable);

  let message: string;
  if (phase === 'Terminating') message = 'being deleted (it goes once no Pod uses it)';
  else if (phase === 'Lost') message = `its volume ${volumeName ?? ''} is gone`.replace(/ {2}/, ' ');
  else if (phase === 'Pending')
    message = `pending: ${requested ?? 'no size'} of ${className ?? 'the default class'}, not bound to a volume yet`;
  else message = `bound to ${volumeName}: ${capacity ?? 'unknown capacity'}${className ? ` of ${className}` : ''}`;
  if (resize.message) message = `${message}; ${resize.message}`;

  return {
    name: claim.metadata?.name ?? name,
    phase,
    storageClass: className,
    requested,
    capacity,
    volumeName,
    resize: resize.resize,
    expandable,
    message: oneLine(message),
  };
}

/**
 * The claim's readiness in the status table's three states: Bound is Complete; Pending is
 * InProgress (the gate's problems say when it is stuck); being deleted or Lost is Failed.
 */
export function claimReadiness(claim: V1PersistentVolumeClaim): {
  readonly state: RolloutState;
  readonly reason: string;
  readonly message: string;
} {
  const status = claimStatus(claim, claim.metadata?.name ?? '');
  switch (status.phase) {
    case 'Bound':
      return { state: 'Complete', reason: 'Bound', message: status.message };
    case 'Terminating':
      return { state: 'Failed', reason: 'ClaimTerminating', message: `the claim is ${status.message}` };
    case 'Lost':
      return { state: 'Failed', reason: 'ClaimLost', message: status.message };
    default:
      return { state: 'InProgress', reason: 'Pending', message: status.message };
  }
}
