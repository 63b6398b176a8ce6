// withCrashLogs(): the last lines a crashing container wrote, read through the API server
// (the pods/log subresource) when the kubelet reports the crash, on the progress event
// that reports it and on the RolloutFailedError that ends the wait for it. No status
// carries them, and they are what a user reads first.
//
// Bounded: the last LOG_TAIL_LINES lines, at most LOG_LIMIT_BYTES read, each line cut to
// MAX_LOG_LINE_CHARS, one read per crash (pod, container and restart count), and each read
// within LOG_READ_TIMEOUT_MS. Scrubbed: the transport masks the client's credentials, and
// the values of the container's env vars whose names say they hold a secret are masked
// here. One line per log line (control characters escaped). A log that cannot be read
// (RBAC without pods/log, a kubelet that is gone, a container that wrote nothing) leaves
// the event and the error as they were.
import {
  catchError,
  concatMap,
  defer,
  map,
  of,
  throwError,
  timeout,
  type MonoTypeOperatorFunction,
  type Observable,
  type SchedulerLike,
} from 'rxjs';

import { RolloutFailedError } from '../errors/rollout.js';
import type { KubernetesClient } from '../kube/client.js';
import type { V1Deployment } from '../kube/objects.js';
import { Scrubber } from '../kube/scrub.js';
import type { PodDiagnosis, ProgressEvent } from '../rollout/events.js';
import { FAILURE_WAITING_REASONS } from '../rollout/pod-diagnosis.js';
import { fromAbortable } from '../rx/from-abortable.js';
import { oneLine } from '../text.js';
import { workloadContainer } from './workload-container.js';

export const LOG_TAIL_LINES = 5;
export const MAX_LOG_LINE_CHARS = 200;
const LOG_LIMIT_BYTES = 16 * 1024;
const LOG_READ_TIMEOUT_MS = 5_000;
/** Env var names that say their value is a secret. */
const SECRET_NAME = /PASS|SECRET|TOKEN|KEY|CREDENTIAL|AUTH|PRIVATE/i;

export interface CrashLogSource {
  readonly client: KubernetesClient;
  readonly namespace: string;
  /** The workload's Deployment as written: its container's env says what to mask. */
  readonly deployment: V1Deployment | undefined;
  readonly scheduler: SchedulerLike;
}

const NO_LINES: readonly string[] = Object.freeze([]);

/** Adds `pod.logs` to crash events and `logs` to a crash's RolloutFailedError. */
export function withCrashLogs<T extends { readonly type: string }>(source: CrashLogSource): MonoTypeOperatorFunction<T> {
  return (events$) =>
    defer(() => {
      const secrets = secretMask(source.deployment);
      // The last crash read: later events about the same crash carry the same lines.
      let lastKey = '';
      let lastLines = NO_LINES;
      return events$.pipe(
        concatMap((event) => {
          const crash = crashOf(event);
          if (crash === undefined) return of(event);
          const key = `${crash.pod}/${crash.container}/${crash.restartCount ?? 0}`;
          const lines$ = key === lastKey ? of(lastLines) : readLastLines(source, crash.pod, crash.container, secrets);
          return lines$.pipe(
            map((lines) => {
              lastKey = key;
              lastLines = lines;
              return lines.length === 0 ? event : withLines(event as T & ProgressEvent, lines);
            }),
          );
        }),
        catchError((error: unknown) => {
          if (!isCrashFailure(error)) return throwError(() => error);
          return readLastLines(source, error.pod, error.container, secrets).pipe(
            concatMap((lines) => throwError(() => (lines.length === 0 ? error : withErrorLines(error, lines)))),
          );
        }),
      );
    });
}

/** The crash an event reports: a container in CrashLoopBackOff or one that exited non-zero. */
function crashOf(event: { readonly type: string }): (PodDiagnosis & { readonly container: string }) | undefined {
  if (event.type !== 'progress') return undefined;
  const pod = (event as ProgressEvent).pod;
  if (pod?.container === undefined || pod.severity !== 'failed') return undefined;
  return isCrashReason(pod.reason) ? (pod as PodDiagnosis & { readonly container: string }) : undefined;
}

/** CrashLoopBackOff, or a terminated container's reason (Error, OOMKilled, ...): not a failure to start it. */
function isCrashReason(reason: string): boolean {
  return reason === 'CrashLoopBackOff' || !FAILURE_WAITING_REASONS.has(reason);
}

function isCrashFailure(error: unknown): error is RolloutFailedError & { readonly pod: string; readonly container: string } {
  return (
    error instanceof RolloutFailedError &&
    error.constructor === RolloutFailedError &&
    error.pod !== undefined &&
    error.container !== undefined &&
    error.logs.length === 0 &&
    isCrashReason(error.reason)
  );
}

function readLastLines(source: CrashLogSource, pod: string, container: string, secrets: Scrubber): Observable<readonly string[]> {
  const { client } = source;
  if (client.readPodLog === undefined) return of(NO_LINES);
  const params = { container, tailLines: LOG_TAIL_LINES, limitBytes: LOG_LIMIT_BYTES };
  return fromAbortable((signal) => client.readPodLog!(source.namespace, pod, params, { signal })).pipe(
    timeout({ first: LOG_READ_TIMEOUT_MS, scheduler: source.scheduler, with: () => of('') }),
    map((text) => logLines(text, secrets)),
    catchError(() => of(NO_LINES)),
  );
}

/** The text's last lines, each masked, on one line and cut to MAX_LOG_LINE_CHARS. */
export function logLines(text: string, secrets: Scrubber): readonly string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.slice(-LOG_TAIL_LINES).map((line) => {
    const safe = oneLine(secrets.size > 0 ? secrets.scrub(line) : line);
    return safe.length > MAX_LOG_LINE_CHARS ? `${safe.slice(0, MAX_LOG_LINE_CHARS - 1)}…` : safe;
  });
}

/** The values of the workload container's env vars named like secrets (PASSWORD, API_TOKEN, ...). */
export function secretMask(deployment: V1Deployment | undefined): Scrubber {
  const env = (deployment && workloadContainer(deployment)?.env) ?? [];
  return new Scrubber(env.filter((variable) => SECRET_NAME.test(variable.name)).map((variable) => variable.value));
}

function withLines<T extends ProgressEvent>(event: T, lines: readonly string[]): T {
  const pod = event.pod as PodDiagnosis;
  return { ...event, message: `${event.message}; last log line: ${lines.at(-1) ?? ''}`, pod: { ...pod, logs: lines } };
}

function withErrorLines(error: RolloutFailedError, lines: readonly string[]): RolloutFailedError {
  return new RolloutFailedError({ namespace: error.namespace, name: error.object, kind: error.kind }, error.reason, error.detail, {
    ...(error.pod !== undefined ? { pod: error.pod } : {}),
    ...(error.container !== undefined ? { container: error.container } : {}),
    cause: error.cause,
    logs: lines,
  });
}
