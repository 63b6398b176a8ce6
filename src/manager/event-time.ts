import type { SchedulerLike } from 'rxjs';

/** The scheduler's current time as an ISO-8601 string, for the `at` of step events. */
export function eventTime(clock: SchedulerLike): string {
  return new Date(clock.now()).toISOString();
}
