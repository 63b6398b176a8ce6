// awaitRouted(): after a rollout is complete, the wait until the workload's Service routes
// to its new Pod: the endpoint slice controller lists that Pod as ready on every port of the
// Service (and, for a LoadBalancer, a load balancer has given the Service an address). That
// is the moment a connection to the address reaches the Pod, so "ready" means reachable.
//
// Over the informers' snapshots of the Deployment (for which Pods are the rollout's), the
// workload's Pods, its Service and that Service's EndpointSlices; each snapshot is
// evaluated as it arrives, by the tracker's step with the Service as its gate
// (service-gate.ts). The only timer is the tracker's recheck for the LoadBalancer's grace
// window, and only while the address is pending: a cluster with no load-balancer
// controller never assigns one, and the wait fails with `LoadBalancerPending` instead of
// running out its timeout (the window ends a margin before the operation's deadline at
// the latest: loadBalancerGraceEndsBy).
//
//   no Service (and none expected)              completes at once: nothing to route
//   the expected Service not cached yet         waits (the informer has not seen our create)
//   the expected Service gone, or the Deployment  fails: Deleted
//   LoadBalancer without an address             progress; fails after the grace window
//   a Service that cannot route to these Pods   fails at once: ServiceMismatch (its selector,
//     (someone else's, under our name/labels)     a port aimed elsewhere), naming what differs
//   no ready Pod of the rollout routed yet      progress "waiting for the Service to route to the Pod"
//   a ready Pod of the rollout routed           one last progress (routed), then completes
import { Observable, asyncScheduler, type SchedulerLike, type Subscriber } from 'rxjs';
import type { V1Deployment, V1EndpointSlice, V1Pod, V1Service } from '../kube/objects.js';
import { RolloutFailedError } from '../errors/rollout.js';
import { isoTime } from '../rx/clock-time.js';
import { RecheckTimer } from '../rx/recheck-timer.js';
import type { RolloutTarget } from './await-rollout.js';
import type { ProgressEvent } from './events.js';
import { DEFAULT_FAILURE_POLICY, type FailurePolicy } from './failure-policy.js';
import { rolloutStatus } from './rollout-status.js';
import { gateOf, serviceRoute } from './service-gate.js';
import type { ServiceStatusValue } from './service-status.js';
import { INITIAL_TRACKER_STATE, trackRollout, type TrackerState } from './tracker.js';

export interface RoutedSources {
  readonly deployments$: Observable<readonly V1Deployment[]>;
  readonly pods$: Observable<readonly V1Pod[]>;
  readonly services$: Observable<readonly V1Service[]>;
  readonly slices$: Observable<readonly V1EndpointSlice[]>;
}

export interface AwaitRoutedOptions {
  readonly scheduler?: SchedulerLike;
  readonly failurePolicy?: FailurePolicy;
  /**
   * The Service this run created (its UID): waited for until the informer has it, and its
   * deletion fails the wait. Absent: whatever Service the first snapshot holds, none meaning
   * there is nothing to route.
   */
  readonly serviceUid?: string;
  /**
   * Scheduler time by which a pending LoadBalancer's grace window ends at the latest
   * (loadBalancerGraceEndsBy of the operation's deadline); absent: the grace alone.
   */
  readonly loadBalancerEndsBy?: number;
}

/** The progress events of a routed wait carry the Service; the last, routed one also the Pod it routes to. */
export type RoutedProgressEvent = ProgressEvent & {
  readonly service: ServiceStatusValue;
  /** The Pod the Service routes to, and the address of its node (a NodePort Service's address). */
  readonly routedTo?: { readonly pod: string; readonly podIp: string | null; readonly hostIp: string | null };
};

export function awaitRouted(
  target: RolloutTarget,
  sources: RoutedSources,
  options: AwaitRoutedOptions = {},
): Observable<RoutedProgressEvent> {
  return new Observable<RoutedProgressEvent>((subscriber) => {
    const watch = new RoutedWatch(target, options, subscriber);
    const subscriptions = [
      sources.deployments$.subscribe({ next: (objects) => watch.onDeployments(objects), error: (error) => subscriber.error(error) }),
      sources.pods$.subscribe({ next: (objects) => watch.onPods(objects), error: (error) => subscriber.error(error) }),
      sources.slices$.subscribe({ next: (objects) => watch.onSlices(objects), error: (error) => subscriber.error(error) }),
      sources.services$.subscribe({ next: (objects) => watch.onServices(objects), error: (error) => subscriber.error(error) }),
    ];
    return () => {
      watch.close();
      for (const subscription of subscriptions) subscription.unsubscribe();
    };
  });
}

class RoutedWatch {
  private deployment: V1Deployment | undefined;
  private deploymentSeen = false;
  private pods: readonly V1Pod[] = [];
  private slices: readonly V1EndpointSlice[] = [];
  private service: V1Service | undefined;
  private servicesSeen = false;
  private serviceSeen = false;
  private state: TrackerState = INITIAL_TRACKER_STATE;
  private readonly recheck: RecheckTimer;
  private lastMessage: string | undefined;
  private readonly scheduler: SchedulerLike;
  private readonly policy: FailurePolicy;

  constructor(
    private readonly target: RolloutTarget,
    private readonly options: AwaitRoutedOptions,
    private readonly subscriber: Subscriber<RoutedProgressEvent>,
  ) {
    this.scheduler = options.scheduler ?? asyncScheduler;
    this.policy = options.failurePolicy ?? DEFAULT_FAILURE_POLICY;
    this.recheck = new RecheckTimer(this.scheduler, () => this.evaluate());
  }

  onDeployments(objects: readonly V1Deployment[]): void {
    const ours = objects.find((object) => object.metadata?.uid === this.target.uid);
    if (!ours && this.deploymentSeen) {
      this.fail('Deleted', 'the Deployment was deleted while waiting for its Service to route to the Pod');
      return;
    }
    if (ours) {
      this.deployment = ours;
      this.deploymentSeen = true;
    }
    this.evaluate();
  }

  onPods(objects: readonly V1Pod[]): void {
    this.pods = objects;
    this.evaluate();
  }

  onSlices(objects: readonly V1EndpointSlice[]): void {
    this.slices = objects;
    this.evaluate();
  }

  onServices(objects: readonly V1Service[]): void {
    this.servicesSeen = true;
    const expected = this.options.serviceUid;
    const ours = expected === undefined ? objects[0] : objects.find((object) => object.metadata?.uid === expected);
    if (!ours && this.serviceSeen) {
      this.fail('Deleted', 'the Service was deleted while waiting for it to route to the Pod');
      return;
    }
    if (ours) {
      this.service = ours;
      this.serviceSeen = true;
    }
    this.evaluate();
  }

  close(): void {
    this.recheck.stop();
  }

  /** `kind`: the object at fault, when it is not the Deployment (the Service's own gate). */
  private fail(reason: string, detail: string, kind?: string): void {
    this.close();
    const { namespace, name } = this.target;
    this.subscriber.error(new RolloutFailedError({ namespace, name, ...(kind ? { kind } : {}) }, reason, detail));
  }

  /** Runs inside the informers' event delivery: whatever it throws ends this waiter only. */
  private evaluate(): void {
    try {
      this.evaluateNow();
    } catch (error) {
      this.subscriber.error(error);
    }
  }

  private evaluateNow(): void {
    if (this.subscriber.closed || !this.servicesSeen) return;
    if (!this.service) {
      // No Service, none expected: nothing stands between the Pod and its callers.
      if (this.options.serviceUid === undefined) this.subscriber.complete();
      return;
    }
    const deployment = this.deployment;
    if (!deployment) return;
    // The judgement is the tracker's, with the Service as its gate: the one rule statuses$ applies too.
    const route = serviceRoute(this.service, this.slices, deployment, this.pods);
    const gate = gateOf(this.service, deployment, route.status, this.policy, this.options.loadBalancerEndsBy);
    const step = trackRollout(this.policy, this.state, { deployment, pods: this.pods, now: this.scheduler.now(), gates: [gate] });
    this.state = step.state;
    if (step.failure) {
      this.fail(step.failure.reason, step.failure.detail, step.failure.source === 'gate' ? gate.kind : undefined);
      return;
    }
    this.recheck.set(step.recheckAt);
    this.emit(deployment, route.status, route.routedTo);
    if (step.complete) this.subscriber.complete();
  }

  private emit(deployment: V1Deployment, service: ServiceStatusValue, routedTo: V1Pod | undefined): void {
    if (service.message === this.lastMessage && !routedTo) return;
    this.lastMessage = service.message;
    const { target } = this;
    const resourceVersion = deployment.metadata?.resourceVersion;
    this.subscriber.next({
      type: 'progress',
      at: isoTime(this.scheduler),
      namespace: target.namespace,
      name: target.name,
      providerId: target.providerId,
      status: rolloutStatus(deployment),
      ...(resourceVersion ? { resourceVersion } : {}),
      message: service.message,
      service,
      ...(routedTo
        ? {
            routedTo: {
              pod: routedTo.metadata?.name ?? '',
              podIp: routedTo.status?.podIP ?? null,
              hostIp: routedTo.status?.hostIP ?? null,
            },
          }
        : {}),
    });
  }
}
