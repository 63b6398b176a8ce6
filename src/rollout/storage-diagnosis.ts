// Storage problems of a container's Pod, named in the controllers' words. Pure: the Pod,
// its diagnosis, its claim and the recent Warning events of both in; a refined diagnosis
// out. Where the words come from:
//
//   scheduler        PodScheduled=False: "pod has unbound immediate PersistentVolumeClaims",
//                    "didn't find available persistent volumes to bind", "volume node
//                    affinity conflict", "persistentvolumeclaim "x" not found / is being deleted"
//   PV controller    the claim's events: ProvisioningFailed, FailedBinding, ExternalProvisioning
//   attach/detach    the Pod's events: FailedAttachVolume (Multi-Attach included)
//   kubelet          the Pod's events: FailedMount; the seeding init container's exit
//
// The failure policy (storage-policy.ts) decides when each one ends a rollout.
import type { CoreV1Event, V1ContainerStatus, V1PersistentVolumeClaim, V1Pod } from '../kube/objects.js';
import { oneLine } from '../text.js';
import type { PodDiagnosis } from './events.js';

import {
  SEED_CONTAINER_NAME as SEED_CONTAINER,
  SEED_MESSAGE_PREFIX as SEED_PREFIX,
  SEED_UNSUPPORTED_EXIT_CODE as SEED_UNSUPPORTED_EXIT,
} from '../input/storage.js';
import { KINDS } from '../kube/kinds.js';

/** Reasons this module gives, beside the controllers' own (ProvisioningFailed, FailedAttachVolume, FailedMount). */
export const STORAGE_REASONS = {
  /** An Immediate-binding claim is not bound: provisioning has not happened (yet). */
  unboundClaim: 'UnboundClaim',
  /** WaitForFirstConsumer: no volume fits the claim on any node the Pod could use. */
  noMatchingVolume: 'NoMatchingVolume',
  /** The claim's volume is on nodes the Pod cannot run on. */
  volumeNodeConflict: 'VolumeNodeConflict',
  claimNotFound: 'ClaimNotFound',
  claimTerminating: 'ClaimTerminating',
  provisioningFailed: 'ProvisioningFailed',
  failedAttach: 'FailedAttachVolume',
  failedMount: 'FailedMount',
  /** The image cannot run the seeding command (no /bin/sh, no cp). */
  seedUnsupported: 'SeedUnsupported',
  /** The seeding command ran and failed (a full volume, a path that is a link). */
  seedFailed: 'SeedFailed',
} as const;

/** The reasons of the Pod events that are about its volumes (the attach/detach controller's, the kubelet's). */
export const STORAGE_EVENT_REASONS: ReadonlySet<string> = new Set([STORAGE_REASONS.failedAttach, STORAGE_REASONS.failedMount]);

const SCHEDULER_RULES: readonly { readonly test: RegExp; readonly reason: string }[] = [
  { test: /persistentvolumeclaim "[^"]*" is being deleted/i, reason: STORAGE_REASONS.claimTerminating },
  { test: /persistentvolumeclaim "[^"]*" not found/i, reason: STORAGE_REASONS.claimNotFound },
  { test: /unbound immediate PersistentVolumeClaims/i, reason: STORAGE_REASONS.unboundClaim },
  { test: /didn't find available persistent volumes to bind/i, reason: STORAGE_REASONS.noMatchingVolume },
  { test: /volume node affinity conflict|didn't match PersistentVolume's node affinity/i, reason: STORAGE_REASONS.volumeNodeConflict },
];

const SCHEDULER_REASONS: ReadonlySet<string> = new Set(SCHEDULER_RULES.map((rule) => rule.reason));

/** A Warning event, reduced to what the diagnosis reads (the informer caches this much). */
export interface StorageEvent {
  readonly kind: string;
  readonly name: string;
  readonly uid?: string;
  readonly reason: string;
  readonly message: string;
  /** When it was last seen (ms since the epoch); 0 when the event carries no time. */
  readonly lastSeenMs: number;
}

function timeMs(time: string | Date | undefined | null): number | undefined {
  if (!time) return undefined;
  const ms = new Date(time).getTime();
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * An Event as the diagnosis reads it. The time is when it was last seen: a series' last
 * observation (events.k8s.io writers such as the scheduler), else `lastTimestamp`, else
 * `eventTime`, else when it was first seen or created.
 */
export function storageEventOf(event: CoreV1Event): StorageEvent {
  const object = event.involvedObject ?? {};
  const lastSeenMs =
    timeMs(event.series?.lastObservedTime) ??
    timeMs(event.lastTimestamp) ??
    timeMs(event.eventTime) ??
    timeMs(event.firstTimestamp) ??
    timeMs(event.metadata?.creationTimestamp) ??
    0;
  return {
    kind: object.kind ?? '',
    name: object.name ?? '',
    ...(object.uid ? { uid: object.uid } : {}),
    reason: event.reason ?? '',
    message: oneLine(event.message),
    lastSeenMs,
  };
}

export interface StorageContext {
  /** The container's claim, if it exists (its events are matched by UID). */
  readonly claim?: V1PersistentVolumeClaim;
  /** Recent Warning events of the claim and the Pod, any order. */
  readonly events?: readonly StorageEvent[];
  /** The container's image, to name it when it cannot seed the volume. */
  readonly image?: string;
}

/** The storage reason a scheduler message gives, if it is about volumes. */
export function schedulingStorageReason(message: string): string | undefined {
  return SCHEDULER_RULES.find((rule) => rule.test.test(message))?.reason;
}

function latest(events: readonly StorageEvent[], match: (event: StorageEvent) => boolean): StorageEvent | undefined {
  let found: StorageEvent | undefined;
  for (const event of events) if (match(event) && (!found || event.lastSeenMs >= found.lastSeenMs)) found = event;
  return found;
}

/** The newest thing the PV controller said about the claim while it is not bound. */
function claimWords(context: StorageContext): StorageEvent | undefined {
  const claim = context.claim;
  if (!claim || claim.status?.phase === 'Bound') return undefined;
  return latest(
    context.events ?? [],
    (event) =>
      event.kind === KINDS.persistentvolumeclaims.kind &&
      event.name === claim.metadata?.name &&
      (!event.uid || event.uid === claim.metadata?.uid),
  );
}

function seedStatus(pod: V1Pod): V1ContainerStatus | undefined {
  return pod.status?.initContainerStatuses?.find((status) => status.name === SEED_CONTAINER);
}

function seedImage(pod: V1Pod, context: StorageContext): string {
  return (
    pod.spec?.initContainers?.find((container) => container.name === SEED_CONTAINER)?.image ||
    seedStatus(pod)?.image ||
    context.image ||
    'the image'
  );
}

const NO_SHELL = /\/bin\/sh|executable file not found|no such file or directory/i;
const EMPTY_HINT = 'an image without /bin/sh and cp needs storage.seed "empty" (with the paths named)';

/** What the seeding init container says, when it is the problem. */
function seedProblem(pod: V1Pod, diagnosis: PodDiagnosis | undefined, context: StorageContext): PodDiagnosis | undefined {
  const status = seedStatus(pod);
  if (!status || diagnosis?.container !== SEED_CONTAINER) return undefined;
  const image = seedImage(pod, context);
  const terminated = status.state?.terminated ?? status.lastState?.terminated;
  const waiting = status.state?.waiting;
  const make = (reason: string, severity: PodDiagnosis['severity'], message: string): PodDiagnosis => ({
    severity,
    reason,
    message: oneLine(message),
    pod: pod.metadata?.name ?? '',
    container: SEED_CONTAINER,
    restartCount: status.restartCount ?? 0,
  });
  if (terminated?.exitCode === SEED_UNSUPPORTED_EXIT && terminated.message?.includes(SEED_PREFIX)) {
    return make(
      STORAGE_REASONS.seedUnsupported,
      'failed',
      `image ${image} cannot seed the volume: ${terminated.message.replace(SEED_PREFIX, '').trim()}; ${EMPTY_HINT}`,
    );
  }
  // The runtime could not start the command: the image has no shell.
  const startError = [
    terminated?.reason === 'StartError' || terminated?.exitCode === 127 ? terminated.message : undefined,
    waiting?.reason === 'RunContainerError' || waiting?.reason === 'CreateContainerError' ? waiting.message : undefined,
  ]
    .filter((text): text is string => Boolean(text))
    .find((text) => NO_SHELL.test(text));
  if (startError) {
    return make(
      STORAGE_REASONS.seedUnsupported,
      'failed',
      `image ${image} has no /bin/sh to seed the volume (${startError}); ${EMPTY_HINT}`,
    );
  }
  if (terminated && terminated.exitCode !== 0 && terminated.message?.includes(SEED_PREFIX)) {
    return make(
      STORAGE_REASONS.seedFailed,
      'failed',
      `seeding the volume from image ${image} failed: ${terminated.message.replace(SEED_PREFIX, '').trim()}`,
    );
  }
  return undefined;
}

/** Whether the Pod's containers have not started: the window in which attach and mount happen. */
function awaitingVolumes(pod: V1Pod): boolean {
  if (pod.status?.phase !== 'Pending' || !pod.spec?.nodeName) return false;
  const statuses = [...(pod.status.initContainerStatuses ?? []), ...(pod.status.containerStatuses ?? [])];
  return statuses.every((status) => !status.state?.running && !status.state?.terminated);
}

/**
 * The Pod's diagnosis, refined when storage is the problem; `diagnosis` is diagnosePod(pod).
 * Returns `diagnosis` itself when storage has nothing to add.
 */
export function diagnoseStorage(pod: V1Pod, diagnosis: PodDiagnosis | undefined, context: StorageContext = {}): PodDiagnosis | undefined {
  const name = pod.metadata?.name ?? '';
  const seed = seedProblem(pod, diagnosis, context);
  if (seed) return seed;

  if (diagnosis && (diagnosis.reason === 'Unschedulable' || SCHEDULER_REASONS.has(diagnosis.reason))) {
    const reason = schedulingStorageReason(diagnosis.message);
    if (!reason) return diagnosis;
    const words = claimWords(context);
    const message = words ? `${diagnosis.message}; claim ${words.name}: ${words.reason}: ${words.message}` : diagnosis.message;
    // The PV controller's refusal is the more telling reason, when it has given one.
    const refined = words?.reason === 'ProvisioningFailed' ? STORAGE_REASONS.provisioningFailed : reason;
    return { severity: 'waiting', reason: refined, message: oneLine(message), pod: name };
  }

  return volumeEventProblem(pod, context.events ?? []) ?? diagnosis;
}

/**
 * The newest attach or mount failure of a Pod whose containers wait for their volumes, in
 * the attach/detach controller's or the kubelet's words (FailedAttachVolume, FailedMount).
 */
export function volumeEventProblem(pod: V1Pod, events: readonly StorageEvent[]): PodDiagnosis | undefined {
  if (!awaitingVolumes(pod)) return undefined;
  const name = pod.metadata?.name ?? '';
  const podEvent = latest(
    events,
    (event) =>
      event.kind === 'Pod' &&
      event.name === name &&
      (!event.uid || event.uid === pod.metadata?.uid) &&
      STORAGE_EVENT_REASONS.has(event.reason),
  );
  return podEvent && { severity: 'waiting', reason: podEvent.reason, message: oneLine(podEvent.message), pod: name };
}

/** The newest Warning the PV controller gave about a claim that is not bound, if any. */
export function claimEvent(claim: V1PersistentVolumeClaim, events: readonly StorageEvent[]): StorageEvent | undefined {
  return claimWords({ claim, events });
}
