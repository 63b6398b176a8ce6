// logs$(): a workload's container log as lines (pods/log), found like a terminal's container
// (container-target.ts). With `follow`, the lines keep coming across what ends a kubelet's
// follow: its log rotation (the container still runs: the follow is reopened from the last
// line's second and what was delivered is dropped, see log-lines.ts), a restart of the
// container, and a Pod replaced by start, restart or reconfigure (the next container that
// starts, found by the workload's labels through a watch, its log from its start; the run
// that ended is read to its end first when it can still be). Unsubscribing aborts the
// request at once. A tty container's lines (a system container's console) come clean
// (consoleLine).
import { Observable } from 'rxjs';
import { ApiUnreachableError, NotFoundError } from '../../errors/api.js';
import { NoRunningContainerError } from '../../errors/exec.js';
import { InvalidOptionError } from '../../errors/input.js';
import { parseProviderId } from '../../input/provider-id.js';
import type { KubernetesClient, PodLogStreamParams, WatchHandle } from '../../kube/client.js';
import type { V1Pod } from '../../kube/objects.js';
import { setLongTimeout } from '../../rx/long-timer.js';
import { consoleLine } from '../../text.js';
import { containerStatus, findContainer, fits, kubeletError, targetOf, type ContainerTarget } from './container-target.js';
import { StallWatch } from './follow-stall.js';
import { DeliveredMark, LineSplitter, splitTimestamp, type RawLogLine } from './log-lines.js';

/** Longest line handed on, in characters; the rest of a longer line is dropped (`truncated`). */
export const DEFAULT_MAX_LINE_CHARS = 16 * 1024;
/** The kubelet's timestamp and its space: RFC 3339 with nanoseconds and a zone offset. */
const TIMESTAMP_ROOM = 36;
/** How long a follow waits for the next container to start when the one it followed ended. */
export const DEFAULT_NEXT_CONTAINER_WAIT_MS = 300_000;

export interface LogsOptions {
  /** Keep following: across rotation, restarts and replaced Pods, until unsubscribed. */
  readonly follow?: boolean;
  /** Put the kubelet's timestamp on each line (`time`). */
  readonly timestamps?: boolean;
  /** Only the last lines of the log at the start. */
  readonly tailLines?: number;
  /** Only lines from the last seconds. */
  readonly sinceSeconds?: number;
  /** Only lines since this time (RFC 3339). */
  readonly sinceTime?: string;
  /** The run before the current one (a crashed container's last words); not with follow. */
  readonly previous?: boolean;
  readonly maxLineChars?: number;
  /** Bound on waiting for the next container while following; default 300000. */
  readonly nextContainerWaitMs?: number;
  readonly containerId?: string | number;
  readonly instance?: string;
}

export interface LogLine {
  readonly text: string;
  /** The kubelet's timestamp (RFC 3339, nanoseconds), with `timestamps`. */
  readonly time?: string;
  readonly pod: string;
  readonly container: string;
  /** The line was longer than maxLineChars and was cut. */
  readonly truncated: boolean;
}

export function logs$(client: KubernetesClient, providerId: string, options: LogsOptions = {}): Observable<LogLine> {
  return new Observable<LogLine>((subscriber) => {
    const controller = new AbortController();
    let stream: WatchHandle | undefined;
    let stall: StallWatch | undefined;
    const run = async (): Promise<void> => {
      parseProviderId(providerId);
      const checked = checkLogsOptions(options);
      const streamPodLog = client.streamPodLog?.bind(client);
      if (streamPodLog === undefined) throw new InvalidOptionError('client', 'client cannot stream pods/log (it has no streamPodLog)');
      const signal = controller.signal;
      const common = {
        containerId: options.containerId === undefined ? undefined : String(options.containerId),
        instance: options.instance,
        signal,
      };
      let target = await findContainer(client, providerId, options.previous ? 'previous' : 'logs', common);
      const tty = target.tty;
      const followed = new Set<string>([target.containerId]);
      let mark = new DeliveredMark();
      let params: PodLogStreamParams = {
        container: target.container,
        timestamps: true,
        ...(checked.follow ? { follow: true } : {}),
        ...(options.tailLines !== undefined ? { tailLines: options.tailLines } : {}),
        ...(options.sinceSeconds !== undefined ? { sinceSeconds: options.sinceSeconds } : {}),
        ...(options.sinceTime !== undefined ? { sinceTime: options.sinceTime } : {}),
        ...(options.previous ? { previous: true } : {}),
      };
      let keep: (line: RawLogLine) => boolean = () => true;
      const emit = (whole: RawLogLine, from: ContainerTarget): void => {
        const line =
          whole.text.length > checked.maxLineChars ? { ...whole, text: whole.text.slice(0, checked.maxLineChars), truncated: true } : whole;
        if (!keep(line)) return;
        mark.note(line);
        subscriber.next({
          text: tty ? consoleLine(line.text) : line.text,
          ...(options.timestamps && line.time !== undefined ? { time: line.time } : {}),
          pod: from.pod,
          container: from.container,
          truncated: line.truncated,
        });
      };
      const read = (from: ContainerTarget, readParams: PodLogStreamParams): Promise<Error | undefined> =>
        new Promise((resolve) => {
          // The bound is on the text: the timestamp before it has room of its own.
          const splitter = new LineSplitter(checked.maxLineChars + TIMESTAMP_ROOM);
          stall = readParams.follow
            ? new StallWatch({
                lastDelivered: () => mark.lastNanos(),
                lookAtLastLine: (lookSignal) => lastLogLine(streamPodLog, from, lookSignal),
                onStalled: () => {
                  // Quiet and behind: it has read the renamed file to its end; reopen.
                  stream?.abort();
                  stream = undefined;
                  resolve(undefined);
                },
              })
            : undefined;
          stream = streamPodLog(from.namespace, from.pod, readParams, {
            onText: (text) => {
              stall?.heard();
              for (const { line, truncated } of splitter.push(text)) emit(splitTimestamp(line, truncated), from);
            },
            onClose: (error) => {
              stall?.stop();
              stream = undefined;
              const rest = splitter.end();
              if (rest) emit(splitTimestamp(rest.line, rest.truncated), from);
              resolve(error);
            },
          });
        });

      for (;;) {
        const error = await read(target, params);
        // A follow cut by the network is reopened like one the kubelet ended.
        if (error !== undefined && !(checked.follow && error instanceof ApiUnreachableError)) throw kubeletError(error, target);
        if (!checked.follow) return;
        const pod = await readPodIfAny(client, target, signal);
        const status = pod && containerStatus(pod, target.container);
        const since = mark.sinceTime();
        if (status?.containerID === target.containerId && status.state?.running !== undefined) {
          // Rotation (or a cut): the same run, from the last second delivered, without repeats.
          keep = mark.repeatFilter();
          params = { container: target.container, timestamps: true, follow: true, ...(since ? { sinceTime: since } : {}) };
          continue;
        }
        // The run ended. Restarted in place: its end is the previous log now; read what is left of it.
        if (pod && status?.lastState?.terminated?.containerID === target.containerId && since) {
          keep = mark.repeatFilter();
          const drainError = await read(target, { container: target.container, timestamps: true, previous: true, sinceTime: since });
          if (drainError !== undefined && !(drainError instanceof NotFoundError)) throw kubeletError(drainError, target);
        }
        const next = await nextContainer(client, target, followed, checked.nextContainerWaitMs, signal);
        target = targetOf(target.namespace, target.workload, next, target.container, target.selector);
        followed.add(target.containerId);
        mark = new DeliveredMark();
        keep = () => true;
        params = { container: target.container, timestamps: true, follow: true };
      }
    };
    run().then(
      () => subscriber.complete(),
      (error: unknown) => {
        if (!controller.signal.aborted) subscriber.error(error);
      },
    );
    return () => {
      controller.abort();
      stall?.stop();
      stream?.abort();
      stream = undefined;
    };
  });
}

/** The log's last line as the kubelet has it now, with its timestamp; '' for none. */
function lastLogLine(
  streamPodLog: NonNullable<KubernetesClient['streamPodLog']>,
  from: ContainerTarget,
  signal: AbortSignal,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const handle = streamPodLog(
      from.namespace,
      from.pod,
      { container: from.container, timestamps: true, tailLines: 1 },
      {
        onText: (piece) => (text += piece),
        onClose: (error) => {
          signal.removeEventListener('abort', onAbort);
          if (error === undefined) resolve(text);
          else reject(error);
        },
      },
    );
    const onAbort = (): void => {
      handle.abort();
      reject(new Error('aborted'));
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}

interface CheckedLogsOptions {
  readonly follow: boolean;
  readonly maxLineChars: number;
  readonly nextContainerWaitMs: number;
}

function checkLogsOptions(options: LogsOptions): CheckedLogsOptions {
  const whole = (field: 'tailLines' | 'sinceSeconds' | 'maxLineChars' | 'nextContainerWaitMs', min: number): void => {
    const value = options[field];
    if (value !== undefined && !(typeof value === 'number' && Number.isSafeInteger(value) && value >= min)) {
      throw new InvalidOptionError(field, `${field} must be a whole number >= ${min} (got ${String(value)})`);
    }
  };
  whole('tailLines', 0);
  whole('sinceSeconds', 1);
  whole('maxLineChars', 1);
  whole('nextContainerWaitMs', 1);
  if (options.sinceTime !== undefined && (typeof options.sinceTime !== 'string' || Number.isNaN(Date.parse(options.sinceTime)))) {
    throw new InvalidOptionError(
      'sinceTime',
      `sinceTime must be an RFC 3339 time such as 2026-12-05T04:00:00Z (got ${String(options.sinceTime)})`,
    );
  }
  if (options.sinceTime !== undefined && options.sinceSeconds !== undefined) {
    throw new InvalidOptionError('sinceTime', 'sinceTime and sinceSeconds cannot both be given: choose one');
  }
  if (options.previous && options.follow) {
    throw new InvalidOptionError('previous', 'previous (the run that ended) cannot be followed: drop follow or previous');
  }
  return {
    follow: options.follow === true,
    maxLineChars: options.maxLineChars ?? DEFAULT_MAX_LINE_CHARS,
    nextContainerWaitMs: options.nextContainerWaitMs ?? DEFAULT_NEXT_CONTAINER_WAIT_MS,
  };
}

/** The Pod followed, as it is now (undefined once gone), read by the workload's labels: the Role's list, not get. */
async function readPodIfAny(client: KubernetesClient, target: ContainerTarget, signal: AbortSignal): Promise<V1Pod | undefined> {
  const pods = await client.list('pods', target.namespace, target.selector, { signal });
  return pods.items.find((pod) => pod.metadata?.uid === target.podUid);
}

/**
 * The workload's next container run to follow: one started (running, or ended already)
 * that was not followed before, in a Pod not being deleted; from a list, else from a watch
 * from that list, within `waitMs`.
 */
function nextContainer(
  client: KubernetesClient,
  from: ContainerTarget,
  followed: ReadonlySet<string>,
  waitMs: number,
  signal: AbortSignal,
): Promise<V1Pod> {
  const candidate = (pod: V1Pod): boolean => {
    if (pod.metadata?.deletionTimestamp || !fits(pod, from.container, 'logs')) return false;
    const id = containerStatus(pod, from.container)?.containerID;
    return id !== undefined && id !== '' && !followed.has(id);
  };
  return new Promise<V1Pod>((resolve, reject) => {
    let watch: WatchHandle | undefined;
    let done = false;
    const finish = (outcome: { pod: V1Pod } | { error: unknown }): void => {
      if (done) return;
      done = true;
      timer.clear();
      watch?.abort();
      signal.removeEventListener('abort', onAbort);
      if ('pod' in outcome) resolve(outcome.pod);
      else reject(outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error)));
    };
    const onAbort = (): void => finish({ error: signal.reason });
    const timer = setLongTimeout(
      () =>
        finish({
          error: new NoRunningContainerError(
            from.namespace,
            from.workload,
            `no container started within ${waitMs} ms after ${from.pod}'s ended`,
          ),
        }),
      waitMs,
    );
    signal.addEventListener('abort', onAbort, { once: true });
    const listThenWatch = (): void => {
      client.list('pods', from.namespace, from.selector, { signal }).then(
        (list) => {
          if (done) return;
          const found = list.items.find(candidate);
          if (found) {
            finish({ pod: found });
            return;
          }
          watch = client.watch(
            'pods',
            from.namespace,
            { labelSelector: from.selector, resourceVersion: list.resourceVersion },
            {
              onEvent: (type, pod) => {
                if ((type === 'ADDED' || type === 'MODIFIED') && candidate(pod)) finish({ pod });
              },
              // A watch the server ended starts over from a new list; a failed one ends the wait.
              onClose: (error) => {
                if (error !== undefined) finish({ error });
                else if (!done) listThenWatch();
              },
            },
          );
        },
        (error: unknown) => finish({ error }),
      );
    };
    listThenWatch();
  });
}
