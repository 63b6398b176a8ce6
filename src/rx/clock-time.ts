import type { SchedulerLike } from 'rxjs';

// Formatting a Date is a large part of building a progress event, and events come in
// bursts (a relist re-evaluates every waiter at once), so the last millisecond's string
// is kept and reused.
let lastMs = Number.NaN;
let lastIso = '';

/** The clock's current time as an ISO-8601 string, for event stamps. */
export function isoTime(clock: SchedulerLike): string {
  const ms = clock.now();
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
