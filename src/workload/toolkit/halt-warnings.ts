// withHaltWarnings(): while a wait runs, a system container's Pod that is still running
// some seconds after it was told to stop is named, once per Pod. systemd halts at once on
// SIGRTMIN+3 but re-executes itself on SIGTERM, the runtime's signal for an image without
// a STOPSIGNAL; the library cannot read an image's configuration, so the symptom is what
// it names, while the kubelet waits out the grace period.
import {
  EMPTY,
  Observable,
  ReplaySubject,
  asyncScheduler,
  catchError,
  distinct,
  filter,
  map,
  mergeMap,
  share,
  switchMap,
  take,
  timer,
} from 'rxjs';
import type { OperatorFunction, SchedulerLike } from 'rxjs';
import type { V1Pod } from '../../kube/objects.js';
import { SYSTEM_TERMINATION_GRACE_SECONDS } from '../../input/system-container.js';
import { isoTime } from '../../rx/clock-time.js';
import type { WaitTarget } from './await-workload.js';
import type { WarnedEvent } from './lifecycle-events.js';
import type { OwnedWorkload } from './ownership.js';
import { isSystemPodTemplate } from '../../members/deployment/system-manifest.js';

/** Seconds after which a system container still running since its stop is named: systemd halts in about one. */
export const HALT_EXPECTED_SECONDS = 10;

export interface HaltWatch {
  readonly target: WaitTarget;
  /** The Pods carrying the workload's container-id label, as the informer sees them. */
  readonly pods$: Observable<readonly V1Pod[]>;
  readonly scheduler?: SchedulerLike;
}

/** The watch for a workload's Pods when it is a system container, else undefined. */
export function haltWatchOf(
  owned: Pick<OwnedWorkload, 'deployment'>,
  target: WaitTarget & { readonly scheduler?: SchedulerLike | undefined },
  pods$: Observable<readonly V1Pod[]>,
): HaltWatch | undefined {
  if (!isSystemPodTemplate(owned.deployment.spec?.template?.spec)) return undefined;
  const { namespace, name, providerId, scheduler } = target;
  return { target: { namespace, name, providerId }, pods$, ...(scheduler ? { scheduler } : {}) };
}

/**
 * The wait's events, with a `warned` event for each Pod still running HALT_EXPECTED_SECONDS
 * after this wait first saw it terminating. Without a watch (not a system container): the
 * wait as it is. The warnings end with the wait.
 */
export function withHaltWarnings<T>(watch: HaltWatch | undefined): OperatorFunction<T, T | WarnedEvent> {
  if (watch === undefined) return (wait$) => wait$;
  return (wait$) =>
    new Observable<T | WarnedEvent>((subscriber) => {
      const warnings = haltWarnings(watch).subscribe((event) => subscriber.next(event));
      const wait = wait$.subscribe(subscriber);
      return () => {
        warnings.unsubscribe();
        wait.unsubscribe();
      };
    });
}

function haltWarnings({ target, pods$, scheduler = asyncScheduler }: HaltWatch): Observable<WarnedEvent> {
  const snapshots$ = pods$.pipe(share({ connector: () => new ReplaySubject<readonly V1Pod[]>(1) }));
  return snapshots$.pipe(
    mergeMap((pods) => pods.filter(isHalting)),
    distinct((pod) => pod.metadata?.uid),
    mergeMap((pod) =>
      timer(HALT_EXPECTED_SECONDS * 1000, scheduler).pipe(
        switchMap(() => snapshots$.pipe(take(1))),
        map((pods) => pods.find((each) => each.metadata?.uid === pod.metadata?.uid)),
        filter((still): still is V1Pod => still !== undefined && isHalting(still)),
        map((still) => slowHalt(target, still, scheduler)),
      ),
    ),
    // Only words are added: the wait reports the informer's own failures.
    catchError(() => EMPTY),
  );
}

/** Told to stop (a deletion under way), and a container still running. */
function isHalting(pod: V1Pod): boolean {
  return pod.metadata?.deletionTimestamp != null && (pod.status?.containerStatuses ?? []).some((status) => status.state?.running);
}

function slowHalt(target: WaitTarget, pod: V1Pod, scheduler: SchedulerLike): WarnedEvent {
  const name = pod.metadata?.name ?? '?';
  return {
    type: 'warned',
    at: isoTime(scheduler),
    namespace: target.namespace,
    name: target.name,
    providerId: target.providerId,
    reason: 'SlowHalt',
    pod: name,
    message:
      `pod ${name} is still running ${HALT_EXPECTED_SECONDS} s after it was told to stop: systemd halts at once on SIGRTMIN+3 but ` +
      `re-executes itself on SIGTERM, so the image most likely has no STOPSIGNAL SIGRTMIN+3 (or a unit is slow to stop); ` +
      `the kubelet kills it when its ${SYSTEM_TERMINATION_GRACE_SECONDS} s grace period ends. Fix: STOPSIGNAL SIGRTMIN+3 in the image`,
  };
}
