// crashLogReader(): the last lines a crashing container wrote, read through the API server
// (the pods/log subresource). The tracker names the crash (rollout/crash-lines.ts); whoever
// waits on or shows a rollout reads its lines with this (provision, every lifecycle wait,
// statuses$ and status$), and the tracker puts them on the diagnosis, so the progress
// event, the status and the RolloutFailedError carry them. No status carries them, and
// they are what a user reads first.
//
// Bounded: the last LOG_TAIL_LINES lines, at most LOG_LIMIT_BYTES read, each line cut to
// MAX_LOG_LINE_CHARS, one read per crash (the caller's, by the crash's key), and each read
// within LOG_READ_TIMEOUT_MS. Masked: the transport masks the client's credentials, and
// the values of the container's env vars whose names say they hold a secret are masked
// here (from the Deployment as written, or read for the purpose: the informers' cache
// keeps no env). One line per log line (control characters escaped). A log that cannot be read
// (RBAC without pods/log, a kubelet that is gone, a container that wrote nothing) is no
// lines: the event, the status and the error stay as they were.
import { catchError, concatMap, map, of, timeout, type Observable, type SchedulerLike } from 'rxjs';

import type { KubernetesClient } from '../../kube/client.js';
import type { V1Deployment } from '../../kube/objects.js';
import { Masker } from '../../mask.js';
import type { CrashLogReader, CrashRef } from '../../rollout/crash-lines.js';
import { fromAbortable } from '../../rx/from-abortable.js';
import { oneLine, stripTerminalCodes } from '../../text.js';
import { workloadContainer } from '../../members/deployment/container.js';

export const LOG_TAIL_LINES = 5;
export const MAX_LOG_LINE_CHARS = 200;
const LOG_LIMIT_BYTES = 16 * 1024;
const LOG_READ_TIMEOUT_MS = 5_000;
/** Env var names that say their value is a secret. */
const SECRET_NAME = /PASS|SECRET|TOKEN|KEY|CREDENTIAL|AUTH|PRIVATE/i;

const NO_LINES: readonly string[] = Object.freeze([]);

/**
 * `{ readCrashLog }` for awaitRollout and the StatusBoard, or nothing when the client cannot
 * read logs. `written`: the Deployment as this operation wrote or read it, whose env says
 * what to mask; without it (a live list's cached Deployment holds no env) the Deployment is
 * read first, and a crash whose Deployment cannot be read gets no lines.
 */
export function crashLogOption(
  client: KubernetesClient,
  namespace: string,
  scheduler: SchedulerLike,
  written?: V1Deployment,
): { readonly readCrashLog?: CrashLogReader } {
  const reader = crashLogReader(client, namespace, scheduler, written);
  return reader ? { readCrashLog: reader } : {};
}

/** The reader of a namespace's crash logs; undefined when the client cannot read logs. */
export function crashLogReader(
  client: KubernetesClient,
  namespace: string,
  scheduler: SchedulerLike,
  written?: V1Deployment,
): CrashLogReader | undefined {
  const readPodLog = client.readPodLog?.bind(client);
  if (readPodLog === undefined) return undefined;
  const mask$ = (cached: V1Deployment): Observable<Masker> =>
    written !== undefined
      ? of(secretMask(written))
      : fromAbortable((signal) => client.read('deployments', namespace, cached.metadata?.name ?? '', { signal })).pipe(
          map((live) => secretMask(live)),
        );
  return (crash, cached) =>
    mask$(cached).pipe(
      concatMap((secrets) => readLastLines(readPodLog, namespace, crash, secrets)),
      timeout({ first: LOG_READ_TIMEOUT_MS, scheduler, with: () => of(NO_LINES) }),
      catchError(() => of(NO_LINES)),
    );
}

function readLastLines(
  readPodLog: NonNullable<KubernetesClient['readPodLog']>,
  namespace: string,
  crash: CrashRef,
  secrets: Masker,
): Observable<readonly string[]> {
  const params = { container: crash.container, tailLines: LOG_TAIL_LINES, limitBytes: LOG_LIMIT_BYTES };
  return fromAbortable((signal) => readPodLog(namespace, crash.pod, params, { signal })).pipe(map((text) => logLines(text, secrets)));
}

/**
 * The text's last lines, each masked, on one line and cut to MAX_LOG_LINE_CHARS. A console's
 * terminal codes and CRs (systemd writes to a terminal) are removed first: its words remain.
 */
export function logLines(text: string, secrets: Masker): readonly string[] {
  const lines = stripTerminalCodes(text).split('\n');
  while (lines.length > 0 && lines.at(-1)?.trim() === '') lines.pop();
  return lines.slice(-LOG_TAIL_LINES).map((line) => {
    const safe = oneLine(secrets.mask(line));
    return safe.length > MAX_LOG_LINE_CHARS ? `${safe.slice(0, MAX_LOG_LINE_CHARS - 1)}…` : safe;
  });
}

/** The values of the workload container's env vars named like secrets (PASSWORD, API_TOKEN, ...). */
export function secretMask(deployment: V1Deployment | undefined): Masker {
  const env = (deployment && workloadContainer(deployment)?.env) ?? [];
  return new Masker(env.filter((variable) => SECRET_NAME.test(variable.name)).map((variable) => variable.value));
}
