// What the live page refuses, as typed errors the server answers with their own status:
// an action outside the page's one namespace (403), a second operation on a workload that
// has one running (409), more running operations or viewers than the page serves (429,
// 503). Each says what to do instead; none names anything but the workload and the bound.
import { KubeProvisionerError } from '../errors/base.js';

/** The page serves one namespace (and one Manager installation, when it has an instance). */
export class OtherNamespaceError extends KubeProvisionerError {
  override readonly name = 'OtherNamespaceError';
  readonly status = 403;
  constructor(namespace: string, target: string) {
    super(`this page serves namespace ${namespace} only: ${target} is refused`);
  }
}

/** One running operation per workload: a different one is refused until it ends. */
export class OperationInProgressError extends KubeProvisionerError {
  override readonly name = 'OperationInProgressError';
  readonly status = 409;
  readonly operationId: string;
  constructor(running: { readonly id: string; readonly kind: string; readonly providerId: string }, kind: string) {
    super(`${running.kind} of ${running.providerId} is running (${running.id}): the ${kind} is refused until it ends`);
    this.operationId = running.id;
  }
}

const BUSY_MESSAGES = {
  operations: (limit: number) => `${limit} operations are running, the most this page runs at once: try again when one has ended`,
  viewers: (limit: number) => `${limit} viewers are connected, the most this page serves at once: close a tab and reload`,
  sessions: (limit: number) => `${limit} terminals and log panes are open, the most this page serves at once: close one first`,
  'workload-sessions': (limit: number) =>
    `${limit} terminals and log panes are open on this workload, the most it gets at once: close one first`,
} as const;

/** A bound is reached: operations running at once, viewers, or terminals and log panes (in all, or on one workload). */
export class PageBusyError extends KubeProvisionerError {
  override readonly name = 'PageBusyError';
  readonly status: 429 | 503;
  constructor(what: keyof typeof BUSY_MESSAGES, limit: number) {
    super(BUSY_MESSAGES[what](limit));
    this.status = what === 'viewers' ? 503 : 429;
  }
}
