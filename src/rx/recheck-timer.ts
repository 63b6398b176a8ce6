import type { SchedulerLike, Subscription } from 'rxjs';
import { scheduleAfter } from './long-timer.js';

/**
 * A waiter's one pending recheck, at an absolute time on its scheduler: set again for the
 * same time keeps the timer, another time replaces it, undefined (no grace window left)
 * cancels it. The tracker says when its next window ends; this turns that into a timer.
 */
export class RecheckTimer {
  private at: number | undefined;
  private timer: Subscription | undefined;
  private readonly scheduler: SchedulerLike;
  private readonly work: () => void;

  constructor(scheduler: SchedulerLike, work: () => void) {
    this.scheduler = scheduler;
    this.work = work;
  }

  set(at: number | undefined): void {
    if (at === this.at) return;
    this.timer?.unsubscribe();
    this.at = at;
    this.timer =
      at === undefined
        ? undefined
        : scheduleAfter(this.scheduler, Math.max(0, at - this.scheduler.now()), () => {
            this.at = undefined;
            this.timer = undefined;
            this.work();
          });
  }

  stop(): void {
    this.timer?.unsubscribe();
    this.timer = undefined;
    this.at = undefined;
  }
}
