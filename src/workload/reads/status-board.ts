// StatusBoard: the state behind statuses$ and status$. It is fed by the shared informers
// of a namespace (Deployments, Pods, and the watches of every member kind with a part in
// the status: every key's changes, through observeAll) and emits a workload's status
// event only when the status changed.
//
// Routing is O(1) per informer event: a Deployment change names its workload (the
// informer's key is the Deployment name), a Pod change names its container-id, which
// leads to the workload(s) carrying it, and a member's change names its key: the
// workload's own name (a Service and its slices), or a key its Deployment names (the
// claim its Pods mount), which leads to the workload(s) with that key. Only that workload
// is evaluated, with only its own objects, read from the informers' caches then (the board
// keeps no copy of them, only each workload's Deployment and what it judged). Nothing is
// emitted before every informer has listed once (a Deployment without its Pods would flash
// a wrong status); then every workload once.
//
// The failure policy runs per workload, as during a rollout, through the same tracker step
// (rollout/tracker.ts) with every member's gate, once per event: problems are tracked over time, the status is read
// off that one judgement, and a grace window ending is a timer of that workload alone. While either
// informer is disconnected (the API server is unreachable), every workload is `unknown`
// with the reason; when both are connected again, every workload is evaluated afresh.
//
// When a workload's step names a crash, its status is shown at once and the container's
// last log lines are read (readCrashLog, once per crash, one read per workload at a time);
// when they are in, the workload is evaluated again and its status carries them.
import type { V1Deployment, V1Pod } from '../../kube/objects.js';
import { channel } from 'node:diagnostics_channel';
import type { SchedulerLike, Subscription } from 'rxjs';
import type { InformerNotice } from '../../informers/shared-informer.js';
import { CrashLogReads, type CrashLogReader, type CrashRef } from '../../rollout/crash-lines.js';
import type { FailurePolicy } from '../../rollout/failure-policy.js';
import { frozen } from '../../interning.js';
import { sameWorkloadStatus } from '../../rollout/same-workload-status.js';
import { INITIAL_TRACKER_STATE, trackRollout, type TrackerState } from '../../rollout/tracker.js';
import { ownershipStatus, trackedStatus, workloadStatus, type WorkloadStatusValue } from '../../rollout/workload-status.js';
import { isoTime } from '../../rx/clock-time.js';
import { scheduleAfter } from '../../rx/long-timer.js';
import { NODE_ID_LABEL, containerIdOf } from '../../input/labels.js';
import { judgeMembers, memberKey, type MemberView, type StatusMember } from './member-status.js';
import { unreachableStatus } from './unreachable.js';

/** One workload's status, as statuses$ and status$ emit it (plain JSON). */
export interface StatusEvent {
  readonly type: 'status';
  /** ISO-8601 time the status was computed. */
  readonly at: string;
  readonly namespace: string;
  readonly name: string;
  /** `namespace/name`: Manager's Container.containerId. */
  readonly providerId: string;
  /** The container-id label (Manager's Container.id); empty when not known. */
  readonly containerId: string;
  /** The node-id label (Manager's Node.id); empty when not known. */
  readonly nodeId: string;
  /** The Deployment resourceVersion the status was computed from; empty when none was read. */
  readonly resourceVersion: string;
  readonly status: WorkloadStatusValue;
}

export interface StatusBoardOptions {
  readonly namespace: string;
  readonly scheduler: SchedulerLike;
  readonly policy: FailurePolicy;
  readonly emit: (event: StatusEvent) => void;
  /** Follow this Deployment only (status$); it is reported `missing` while absent. */
  readonly only?: { readonly name: string; readonly containerId?: string };
  /** Reads a crashed container's last lines; without it, statuses carry none. */
  readonly readCrashLog?: CrashLogReader;
  /** The member kinds with a part in the status, whose watches `onMember` reports. */
  readonly members: readonly StatusMember[];
  /** The informers' caches, which the notices report changes of. */
  readonly cached: CachedObjects;
}

/**
 * What the informers hold under a routing key now. The board reads a workload's objects
 * from them when it evaluates it, and keeps none of its own but each workload's Deployment.
 */
export interface CachedObjects {
  readonly pods: (containerId: string) => readonly V1Pod[];
  /** What watch `watch` of member `member` (indexes into StatusBoardOptions.members and its watches) holds under `key`. */
  readonly held: (member: number, watch: number, key: string) => readonly unknown[];
}

/** An informer the board is fed by: `deployments`, `pods`, or a member's watch (`member/watch`). */
type Source = string;

const NO_PODS: readonly V1Pod[] = Object.freeze([]);

/**
 * Told of every informer change the board receives (`notice`) and of every status it
 * computes (`evaluation`), for benchmarks: node:diagnostics_channel, which costs one check
 * when nobody listens.
 */
export const STATUS_EVALUATIONS_CHANNEL = 'kube-provisioner:status-evaluations';
const evaluations = channel(STATUS_EVALUATIONS_CHANNEL);
const NOTICE = Object.freeze({ event: 'notice' });
const EVALUATION = Object.freeze({ event: 'evaluation' });

/** One managed Deployment and what the board remembers about it (what its Deployment says is read off it). */
class Workload {
  /** Last emitted. */
  last: WorkloadStatusValue | undefined;
  /** Last computed from objects (never `unknown`): the `previous` of the next evaluation. */
  lastKnown: WorkloadStatusValue | undefined;
  tracker: TrackerState = INITIAL_TRACKER_STATE;
  recheck: Subscription | undefined;
  recheckAt: number | undefined;
  /** Made at the first crash. */
  crashLogs: CrashLogReads | undefined;

  constructor(
    readonly name: string,
    readonly containerId: string,
    public deployment: V1Deployment,
  ) {}

  get nodeId(): string {
    return this.deployment.metadata?.labels?.[NODE_ID_LABEL] ?? '';
  }

  /** Another object took the name: nothing about the old one applies. */
  forget(): void {
    this.lastKnown = undefined;
    this.tracker = INITIAL_TRACKER_STATE;
    this.crashLogs?.stop();
    this.crashLogs = undefined;
  }
}

export class StatusBoard {
  private readonly workloads = new Map<string, Workload>();
  /** Deployment names by container-id label (almost always one). */
  private readonly namesByContainerId = new NameIndex();
  /** Per member keyed by its Deployment: workload names by key (almost always one, of the same name). */
  private readonly namesByKey: readonly (NameIndex | undefined)[];
  /** The members the caller turned out not to be allowed to watch: statuses carry none of their fields. */
  private readonly unreadable = new Set<number>();
  private readonly sourceCount: number;
  /** Whether two statuses say the same: sameWorkloadStatus, and each member's fields the status type does not know. */
  private readonly same: (a: WorkloadStatusValue, b: WorkloadStatusValue) => boolean;
  private readonly synced = new Set<Source>();
  private readonly disconnected = new Map<Source, unknown>();
  private started = false;
  /** status$ only: what was last emitted while the Deployment was absent or not yet seen. */
  private targetLast: WorkloadStatusValue | undefined;
  /** status$ only: the Deployment when it is there but not a workload (no container-id label). */
  private targetDeployment: V1Deployment | undefined;

  constructor(private readonly options: StatusBoardOptions) {
    this.namesByKey = options.members.map((member) => (member.keyedByWorkload ? undefined : new NameIndex()));
    this.sourceCount = 2 + options.members.reduce((count, member) => count + member.rules.watches.length, 0);
    const sameFields = options.members.flatMap((member) => (member.rules.sameFields ? [member.rules] : []));
    this.same =
      sameFields.length === 0
        ? sameWorkloadStatus
        : (a, b) => sameWorkloadStatus(a, b) && sameFields.every((rules) => rules.sameFields!(a, b));
  }

  onDeployments(notice: InformerNotice<V1Deployment>): void {
    if (notice.type !== 'changed') return this.onConnectionNotice('deployments', notice);
    if (evaluations.hasSubscribers) evaluations.publish(NOTICE);
    this.deploymentChanged(notice.key, notice.objects[0]);
  }

  onPods(notice: InformerNotice<V1Pod>): void {
    if (notice.type !== 'changed') return this.onConnectionNotice('pods', notice);
    if (evaluations.hasSubscribers) evaluations.publish(NOTICE);
    this.namesByContainerId.forEach(notice.key, (name) => this.evaluateNamed(name));
  }

  /** Watch `watch` of member `member` changed under a key: the workload(s) with that key are evaluated. */
  onMember(member: number, watch: number, notice: InformerNotice<unknown>): void {
    if (notice.type !== 'changed') return this.onConnectionNotice(`${member}/${watch}`, notice);
    const index = this.namesByKey[member];
    if (index) index.forEach(notice.key, (name) => this.evaluateNamed(name));
    else this.evaluateNamed(notice.key);
  }

  /**
   * The caller may not watch a member's objects (403) and the member says it may go
   * without: statuses carry none of its fields (no `storage`), as status() leaves them out
   * when it may not read them, and everything else is shown as before.
   */
  memberUnreadable(member: number): void {
    this.unreadable.add(member);
    this.options.members[member]?.rules.watches.forEach((_, watch) => this.onConnectionNotice(`${member}/${watch}`, { type: 'synced' }));
    if (this.started) this.evaluateAll();
  }

  /** Cancels every pending grace-window timer. */
  close(): void {
    for (const workload of this.workloads.values()) {
      workload.recheck?.unsubscribe();
      workload.crashLogs?.stop();
    }
  }

  private onConnectionNotice(kind: Source, notice: Exclude<InformerNotice<unknown>, { type: 'changed' }>): void {
    switch (notice.type) {
      case 'synced':
        this.synced.add(kind);
        if (!this.started && this.synced.size === this.sourceCount) {
          this.started = true;
          this.evaluateAll();
        }
        break;
      case 'disconnected':
        this.disconnected.set(kind, notice.error);
        this.evaluateAll();
        break;
      case 'connected':
        this.disconnected.delete(kind);
        if (this.disconnected.size === 0) this.evaluateAll();
        break;
    }
  }

  private deploymentChanged(name: string, deployment: V1Deployment | undefined): void {
    const only = this.options.only;
    if (only && name !== only.name) return;
    const containerId = deployment ? containerIdOf(deployment) : undefined;
    let workload = this.workloads.get(name);
    if (workload && workload.containerId !== containerId) {
      this.remove(workload);
      workload = undefined;
    }
    if (!deployment || containerId === undefined) {
      // Gone, or lacking the container-id label: never reported as a workload.
      this.targetDeployment = deployment;
      this.showTarget();
      return;
    }
    let before: V1Deployment | undefined;
    if (workload) {
      before = workload.deployment;
    } else {
      workload = new Workload(name, containerId, deployment);
      this.workloads.set(name, workload);
      this.namesByContainerId.add(containerId, name);
    }
    const uid = workload.deployment.metadata?.uid;
    if (uid !== undefined && uid !== deployment.metadata?.uid) workload.forget();
    workload.deployment = deployment;
    this.indexKeys(workload.name, before, deployment);
    this.evaluate(workload);
  }

  /**
   * Keeps the key indexes: a change under a key its Deployment names finds the workload
   * with one lookup. The key it had is read off the Deployment it replaces, so the board
   * keeps none per workload.
   */
  private indexKeys(name: string, before: V1Deployment | undefined, after: V1Deployment | undefined): void {
    this.namesByKey.forEach((index, member) => {
      if (!index) return;
      const was = before && memberKey(this.options.members[member]!, name, before);
      const key = after && memberKey(this.options.members[member]!, name, after);
      if (key === was) return;
      if (was !== undefined) index.remove(was, name);
      if (key !== undefined) index.add(key, name);
    });
  }

  private evaluateNamed(name: string): void {
    const workload = this.workloads.get(name);
    if (workload) this.evaluate(workload);
  }

  /** The Deployment is gone (or no longer ours): one final `missing`, if it was ever reported. */
  private remove(workload: Workload): void {
    workload.recheck?.unsubscribe();
    workload.crashLogs?.stop();
    this.workloads.delete(workload.name);
    this.namesByContainerId.remove(workload.containerId, workload.name);
    this.indexKeys(workload.name, workload.deployment, undefined);
    if (!workload.last) return;
    const gone: WorkloadStatusValue = {
      ...workloadStatus(undefined, NO_PODS),
      reason: 'Deleted',
      message: 'the Deployment was deleted, or lost its ownership labels',
    };
    workload.last = gone;
    this.targetLast = gone;
    this.options.emit(this.event(workload.name, workload.containerId, workload.nodeId, '', gone));
  }

  private evaluateAll(): void {
    for (const workload of this.workloads.values()) this.evaluate(workload);
    this.showTarget();
  }

  private evaluate(workload: Workload): void {
    if (!this.started) return;
    if (evaluations.hasSubscribers) evaluations.publish(EVALUATION);
    const failure = this.firstDisconnection();
    if (failure !== undefined) {
      this.show(workload, unreachableStatus(failure.error, workload.lastKnown));
      return;
    }
    const { cached } = this.options;
    const pods = cached.pods(workload.containerId);
    const { deployment } = workload;
    let status = ownershipStatus(deployment, this.options.only?.containerId);
    let crash: CrashRef | undefined;
    if (status) {
      workload.tracker = INITIAL_TRACKER_STATE;
      this.scheduleRecheck(workload, undefined);
    } else {
      // The one judgement of this event: the policy over time with every member's gate, and the status read off it.
      const members = judgeMembers(this.memberViews(workload), deployment, pods, this.options.policy);
      const step = trackRollout(this.options.policy, workload.tracker, {
        deployment,
        pods,
        now: this.options.scheduler.now(),
        ...(members.gates.length > 0 ? { gates: members.gates } : {}),
        ...(workload.crashLogs?.lines ? { logs: workload.crashLogs.lines } : {}),
      });
      workload.tracker = step.state;
      this.scheduleRecheck(workload, step.recheckAt);
      crash = step.crash;
      status = trackedStatus(deployment, pods, step, workload.lastKnown, members.fields);
    }
    // Unchanged, it is the status already shown: one copy per workload, not two.
    if (workload.last && this.same(workload.last, status)) status = workload.last;
    workload.lastKnown = status;
    this.show(workload, status);
    // After the status is shown: a reader that answers at once shows its lines next.
    if (crash) this.readCrashLines(workload, crash);
  }

  /** Each member's objects of the workload, as the informers hold them now. */
  private memberViews(workload: Workload): MemberView[] {
    const { members, cached } = this.options;
    const views: MemberView[] = [];
    members.forEach((member, index) => {
      if (this.unreadable.has(index)) return;
      const key = memberKey(member, workload.name, workload.deployment);
      if (key === undefined) return;
      const held = member.rules.watches.map((_, watch) => cached.held(index, watch, key));
      views.push({ member, key, view: member.rules.view(held, key) });
    });
    return views;
  }

  /** One timer per workload at most, through the long-timer helper; none while no window is open. */
  private scheduleRecheck(workload: Workload, at: number | undefined): void {
    if (at === workload.recheckAt) return;
    workload.recheck?.unsubscribe();
    workload.recheckAt = at;
    const { scheduler } = this.options;
    workload.recheck =
      at === undefined
        ? undefined
        : scheduleAfter(scheduler, Math.max(0, at - scheduler.now()), () => {
            workload.recheckAt = undefined;
            workload.recheck = undefined;
            if (this.workloads.get(workload.name) === workload) this.evaluate(workload);
          });
  }

  /** The crash's lines; once they are in, the workload is evaluated again and shows them. */
  private readCrashLines(workload: Workload, crash: CrashRef): void {
    const read = this.options.readCrashLog;
    if (read === undefined) return;
    workload.crashLogs ??= new CrashLogReads(read);
    workload.crashLogs.request(crash, workload.deployment, () => {
      if (this.workloads.get(workload.name) === workload) this.evaluate(workload);
    });
  }

  private show(workload: Workload, status: WorkloadStatusValue): void {
    if (workload.last === status || (workload.last && this.same(workload.last, status))) return;
    workload.last = status;
    this.targetLast = status;
    const resourceVersion = workload.deployment.metadata?.resourceVersion ?? '';
    this.options.emit(this.event(workload.name, workload.containerId, workload.nodeId, resourceVersion, status));
  }

  /** status$: says `missing` (or `unknown`) for its Deployment while no workload stands for it. */
  private showTarget(): void {
    const only = this.options.only;
    if (!only || this.workloads.has(only.name)) return;
    const failure = this.firstDisconnection();
    let status: WorkloadStatusValue;
    if (failure !== undefined) status = unreachableStatus(failure.error);
    else if (this.started) status = workloadStatus(this.targetDeployment, NO_PODS);
    else return;
    // Not found after a deletion was reported is no news.
    if (this.targetLast?.state === 'missing' && status.reason === 'NotFound') return;
    if (this.targetLast && this.same(this.targetLast, status)) return;
    this.targetLast = status;
    this.options.emit(this.event(only.name, only.containerId ?? '', '', '', status));
  }

  private firstDisconnection(): { readonly error: unknown } | undefined {
    for (const error of this.disconnected.values()) return { error };
    return undefined;
  }

  private event(name: string, containerId: string, nodeId: string, resourceVersion: string, status: WorkloadStatusValue): StatusEvent {
    return {
      type: 'status',
      at: isoTime(this.options.scheduler),
      namespace: this.options.namespace,
      name,
      providerId: `${this.options.namespace}/${name}`,
      containerId,
      nodeId,
      resourceVersion,
      // Consumers keep it as it is (nothing to mask is not copied): frozen, so none can change what the board compares with.
      status: frozen(status),
    };
  }
}

/** Workload names by a key that almost always names one: a name alone, a list only for more. */
class NameIndex {
  private readonly byKey = new Map<string, string | readonly string[]>();

  add(key: string, name: string): void {
    this.set(key, [...this.namesOf(key), name]);
  }

  remove(key: string, name: string): void {
    this.set(
      key,
      this.namesOf(key).filter((each) => each !== name),
    );
  }

  forEach(key: string, visit: (name: string) => void): void {
    const names = this.byKey.get(key);
    if (typeof names === 'string') visit(names);
    else names?.forEach((name) => visit(name));
  }

  private namesOf(key: string): readonly string[] {
    const names = this.byKey.get(key);
    return typeof names === 'string' ? [names] : (names ?? []);
  }

  private set(key: string, names: readonly string[]): void {
    if (names.length === 0) this.byKey.delete(key);
    else this.byKey.set(key, names.length === 1 ? names[0]! : names);
  }
}
