import type { SchedulerLike } from 'rxjs';

/** The clock's current time as an ISO-8601 string, for event stamps. */
export function isoTime(clock: SchedulerLike): string {
  return new Date(clock.now()).toISOString();
}
