// statuses$(): every managed workload of a namespace, live, for a UI of a thousand
// containers. It reads the same shared informers provision$ waits on (one Deployment and
// Pod watch per namespace, and one per watch of each member kind with a part in the
// status: Service, endpoint slice, claim; label selector managed=true; no polling), and
// emits a workload's status event only when its status changed: every workload once
// after the first list, then per change; a deleted workload's last event says `missing`;
// while the API server is unreachable, every workload is `unknown` with the reason, until
// it answers again.
//
// A member's watches are always open, whether or not any workload has one (a claim): one
// more watch per namespace (the one provisionings' waits share), and a workload that gains
// a volume shows it with nothing to start. A caller that may not watch a member that may
// go without (claims, 403) gets statuses without its fields (`storage`), as from status();
// every other fatal error ends the stream.
//
// status$() is the same for one Deployment, addressed by its provider ID: `missing` while
// it does not exist, then its changes.
import { Observable, Subscription, asyncScheduler, defer, type SchedulerLike } from 'rxjs';
import { ForbiddenError } from '../../errors/api.js';
import { OperationAbortedError } from '../../errors/operation.js';
import { defaultInformerRegistry, type InformerRegistry } from '../../informers/registry.js';
import type { KubernetesClient } from '../../kube/client.js';
import { resolveFailurePolicy, type FailurePolicyOverrides } from '../../rollout/failure-policy.js';
import { abortOn } from '../../rx/abort-on.js';
import { maskOutput } from '../../rx/mask-output.js';
import { maskOf } from '../../mask.js';
import { parseProviderId } from '../../input/provider-id.js';
import { crashLogOption } from '../toolkit/crash-logs.js';
import { checkReadOptions, containerIdOption, namespaceOption } from '../toolkit/read-options.js';
import { namespaceInformers } from '../../members/namespace-informers.js';
import { StatusBoard, type StatusBoardOptions, type StatusEvent } from './status-board.js';
import { MEMBERS, type MemberTable } from '../../members/set.js';
import { statusMembers } from './member-status.js';

export interface StatusesOptions {
  /** Default: the client's namespace. */
  readonly namespace?: string;
  /** Shared informers; default: one registry for the process (the one provision$ uses). */
  readonly informers?: InformerRegistry;
  /** When a Pod problem makes a workload `failed` (see failure-policy.ts). */
  readonly failurePolicy?: FailurePolicyOverrides;
  /** Ends the stream with OperationAbortedError (already aborted: at once). */
  readonly signal?: AbortSignal;
  /** Clock and timers (tests). */
  readonly scheduler?: SchedulerLike;
  /** The Manager installation (instance label) to watch; default: workloads without an instance label. */
  readonly instance?: string;
  /** The member kinds of a workload; default MEMBERS (claim, Deployment, Service). */
  readonly members?: MemberTable;
}

export interface StatusStreamOptions extends Omit<StatusesOptions, 'namespace'> {
  /** Manager's container id: a Deployment carrying another one is reported `missing`. */
  readonly containerId?: string | number;
}

/** Cold and endless: each subscription follows the namespace until unsubscribed. */
export function statuses$(client: KubernetesClient, options: StatusesOptions = {}): Observable<StatusEvent> {
  return defer(() => {
    checkReadOptions('statuses$', options);
    const namespace = namespaceOption(options.namespace, client);
    return board$(client, namespace, options, undefined).pipe(
      abortOn(options.signal, (reason) => new OperationAbortedError('statuses', `namespace ${namespace}`, reason)),
      maskOutput(maskOf(client)),
    );
  });
}

/** One workload's status events: `missing` while its Deployment does not exist. Endless. */
export function status$(client: KubernetesClient, providerId: string, options: StatusStreamOptions = {}): Observable<StatusEvent> {
  return defer(() => {
    const target = parseProviderId(providerId);
    checkReadOptions('status$', options);
    const containerId = containerIdOption(options.containerId);
    return board$(client, target.namespace, options, { name: target.name, ...(containerId !== undefined ? { containerId } : {}) }).pipe(
      abortOn(options.signal, (reason) => new OperationAbortedError('status', target, reason)),
      maskOutput(maskOf(client)),
    );
  });
}

function board$(
  client: KubernetesClient,
  namespace: string,
  options: Omit<StatusesOptions, 'namespace'>,
  only: StatusBoardOptions['only'],
): Observable<StatusEvent> {
  return new Observable<StatusEvent>((subscriber) => {
    const members = statusMembers(options.members ?? MEMBERS);
    const informers = namespaceInformers(
      { registry: options.informers ?? defaultInformerRegistry, client, namespace, instance: options.instance },
      members.map((member) => member.rules),
    );
    const scheduler = options.scheduler ?? asyncScheduler;
    const board = new StatusBoard({
      namespace,
      scheduler,
      policy: resolveFailurePolicy(options.failurePolicy),
      emit: (event) => subscriber.next(event),
      members,
      cached: {
        pods: (containerId) => informers.pods.cached(containerId),
        held: (member, watch, key) => informers.members[member]![watch]!.cached(key),
      },
      ...crashLogOption(client, namespace, scheduler),
      ...(only ? { only } : {}),
    });
    const subscription = new Subscription(() => board.close());
    // A fatal informer error (401, 403, TLS) ends the stream with that typed error.
    subscription.add(
      informers.pods.observeAll().subscribe({ next: (notice) => board.onPods(notice), error: (error: unknown) => subscriber.error(error) }),
    );
    informers.members.forEach((watches, member) =>
      watches.forEach((informer, watch) =>
        subscription.add(
          informer.observeAll().subscribe({
            next: (notice) => board.onMember(member, watch, notice),
            error: (error: unknown) =>
              error instanceof ForbiddenError && members[member]!.rules.optional ? board.memberUnreadable(member) : subscriber.error(error),
          }),
        ),
      ),
    );
    subscription.add(
      informers.deployments
        .observeAll()
        .subscribe({ next: (notice) => board.onDeployments(notice), error: (error: unknown) => subscriber.error(error) }),
    );
    return subscription;
  });
}
