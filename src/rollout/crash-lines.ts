// The crash whose last log lines a user needs first, and those lines on its diagnosis. The
// tracker names the crash (a step's most telling Pod problem, when it is a container that
// crashed) and puts the lines on it once they are read; reading them through the API server
// is its caller's (workload/crash-logs.ts), since no status carries them.
import { catchError, defaultIfEmpty, of, take, type Observable, type Subscription } from 'rxjs';
import type { V1Deployment } from '../kube/objects.js';
import type { PodDiagnosis } from './events.js';
import { FAILURE_WAITING_REASONS } from './pod-diagnosis.js';

/** One crash: a container of a Pod, at one restart count. */
export interface CrashRef {
  /** Pod, container and restart count: later steps about the same crash have the same key. */
  readonly key: string;
  readonly pod: string;
  readonly container: string;
}

/** The lines read for one crash (empty when none could be read). */
export interface CrashLines {
  readonly key: string;
  readonly lines: readonly string[];
}

/**
 * Reads a crash's last lines: at most one value, bounded in time, never an error (a log that
 * cannot be read is no lines). The Deployment says which values to mask.
 */
export type CrashLogReader = (crash: CrashRef, deployment: V1Deployment) => Observable<readonly string[]>;

/** The crash `diagnosis` reports: a container in CrashLoopBackOff or one that ended in failure (Error, OOMKilled, ...); not a failure to start it. */
export function crashOf(diagnosis: PodDiagnosis | undefined): CrashRef | undefined {
  if (diagnosis?.container === undefined || diagnosis.severity !== 'failed') return undefined;
  const { reason } = diagnosis;
  if (reason !== 'CrashLoopBackOff' && FAILURE_WAITING_REASONS.has(reason)) return undefined;
  return {
    key: `${diagnosis.pod}/${diagnosis.container}/${diagnosis.restartCount ?? 0}`,
    pod: diagnosis.pod,
    container: diagnosis.container,
  };
}

/** The diagnosis with the lines read for its crash, when they are for this crash and not empty. */
export function withCrashLines(diagnosis: PodDiagnosis, read: CrashLines | undefined): PodDiagnosis {
  if (read === undefined || read.lines.length === 0 || crashOf(diagnosis)?.key !== read.key) return diagnosis;
  return { ...diagnosis, logs: read.lines };
}

/** `; last log line: ...` when the diagnosis carries lines, else nothing. */
export function lastLogLine(diagnosis: PodDiagnosis | undefined): string {
  const last = diagnosis?.logs?.at(-1);
  return last === undefined ? '' : `; last log line: ${last}`;
}

const NO_LINES: readonly string[] = Object.freeze([]);

/**
 * One waiter's or one workload's crash log reads: the last crash's lines, and at most one
 * read under way (a newer crash replaces it).
 */
export class CrashLogReads {
  /** The last crash's lines, for the tracker's `logs`. */
  lines: CrashLines | undefined;
  private reading: { readonly key: string; subscription?: Subscription } | undefined;

  constructor(private readonly read: CrashLogReader) {}

  /** Reads the crash's lines unless they are being read; `done` runs once they are in `lines`. */
  request(crash: CrashRef, deployment: V1Deployment, done: () => void): void {
    if (this.reading?.key === crash.key) return;
    this.stop();
    const reading: { readonly key: string; subscription?: Subscription } = { key: crash.key };
    this.reading = reading;
    const subscription = this.read(crash, deployment)
      .pipe(
        take(1),
        defaultIfEmpty(NO_LINES),
        catchError(() => of(NO_LINES)),
      )
      .subscribe((lines) => {
        if (this.reading !== reading) return;
        this.reading = undefined;
        this.lines = { key: crash.key, lines };
        done();
      });
    // A reader that answered at once has already cleared `reading`.
    if (this.reading === reading) reading.subscription = subscription;
  }

  /** Ends the read under way, if any. */
  stop(): void {
    this.reading?.subscription?.unsubscribe();
    this.reading = undefined;
  }
}
