// Errors of a terminal or command in a workload's container (pods/exec) and of following
// its log (pods/log): what the caller acts on, each naming the Pod and container.
import { KubeProvisionerError } from './base.js';

/** Where a session ran: the workload's Pod and container. */
export interface ContainerRef {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
}

function describeContainer(where: ContainerRef): string {
  return `container ${where.container} of pod ${where.namespace}/${where.pod}`;
}

/**
 * The command could not be started: the runtime's words in `detail` (an executable that
 * does not exist, a working directory that does not), or another failure the kubelet
 * reported on the status channel instead of an exit status.
 */
export class ExecFailedError extends KubeProvisionerError {
  override readonly name = 'ExecFailedError';
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  /** The Status reason the kubelet gave (InternalError, ...), if any. */
  readonly reason: string | undefined;
  readonly detail: string;
  /** Whether the runtime said the executable does not exist (a shell to try next). */
  readonly notFound: boolean;
  constructor(where: ContainerRef, detail: string, reason?: string) {
    super(`exec in ${describeContainer(where)} failed: ${detail}`);
    this.namespace = where.namespace;
    this.pod = where.pod;
    this.container = where.container;
    this.reason = reason;
    this.detail = detail;
    this.notFound = /executable file not found|no such file or directory/i.test(detail);
  }
}

/** No shell to open a terminal with: neither of the shells tried exists in the container. */
export class ShellNotFoundError extends KubeProvisionerError {
  override readonly name = 'ShellNotFoundError';
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  readonly tried: readonly string[];
  constructor(where: ContainerRef, tried: readonly string[], options: { cause?: unknown } = {}) {
    super(`no shell in ${describeContainer(where)}: tried ${tried.join(', ')}; pass the command to run instead`, options);
    this.namespace = where.namespace;
    this.pod = where.pod;
    this.container = where.container;
    this.tried = tried;
  }
}

/**
 * The connection to the session went away without the command's exit status: closed by
 * the server or a proxy, or silent past the ping bound (no pong, nothing received).
 */
export class ExecConnectionLostError extends KubeProvisionerError {
  override readonly name = 'ExecConnectionLostError';
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  constructor(where: ContainerRef, detail: string, options: { cause?: unknown } = {}) {
    super(`the session in ${describeContainer(where)} was lost: ${detail}`, options);
    this.namespace = where.namespace;
    this.pod = where.pod;
    this.container = where.container;
  }
}

/** The session reached the bound the caller set (maxSessionMs) and was closed. */
export class ExecSessionTimeoutError extends KubeProvisionerError {
  override readonly name = 'ExecSessionTimeoutError';
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  readonly maxSessionMs: number;
  constructor(where: ContainerRef, maxSessionMs: number) {
    super(`the session in ${describeContainer(where)} reached its bound of ${maxSessionMs} ms and was closed`);
    this.namespace = where.namespace;
    this.pod = where.pod;
    this.container = where.container;
    this.maxSessionMs = maxSessionMs;
  }
}

/**
 * The workload has no Pod whose container can be reached now: none running (for a
 * terminal), none started (for a log), or none that ran before (`previous`). `detail` says
 * what there is instead.
 */
export class NoRunningContainerError extends KubeProvisionerError {
  override readonly name = 'NoRunningContainerError';
  readonly namespace: string;
  readonly workload: string;
  readonly detail: string;
  constructor(namespace: string, workload: string, detail: string) {
    super(`workload ${namespace}/${workload} has no container to reach: ${detail}`);
    this.namespace = namespace;
    this.workload = workload;
    this.detail = detail;
  }
}

/**
 * The API server could not reach the node's kubelet for the Pod (exec and logs are served
 * by the kubelet): a node without one (a simulated KWOK node), or a kubelet that is down or
 * unreachable from the API server. `detail` is the API server's words.
 */
export class KubeletUnreachableError extends KubeProvisionerError {
  override readonly name = 'KubeletUnreachableError';
  readonly namespace: string;
  readonly pod: string;
  readonly node: string;
  readonly detail: string;
  constructor(where: { namespace: string; pod: string; node: string }, detail: string, options: { cause?: unknown } = {}) {
    super(
      `the API server cannot reach the kubelet of node ${where.node || '(none)'} for pod ${where.namespace}/${where.pod}: ${detail}`,
      options,
    );
    this.namespace = where.namespace;
    this.pod = where.pod;
    this.node = where.node;
    this.detail = detail;
  }
}
