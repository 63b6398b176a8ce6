// The page's terminals and log panes ("sessions"): at most `maxSessions` open at once and
// at most `maxPerWorkload` on one workload (one more is refused, 429), and one line in the
// server's log when each ends: which kind, which workload, for whom (the browser's
// address: the page has no accounts), how long, and how it ended. Never what was typed or shown.
import { PageBusyError } from './refusals.js';

export const DEFAULT_MAX_SESSIONS = 16;
export const DEFAULT_MAX_SESSIONS_PER_WORKLOAD = 4;

export type SessionKind = 'terminal' | 'logs';

export interface SessionTicket {
  /** Ends the session once (later calls do nothing) and logs its line. */
  end(outcome: string): void;
}

export class SessionBoard {
  private readonly perWorkload = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly maxSessions: number,
    private readonly maxPerWorkload: number,
    private readonly log: (line: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Sessions open now. */
  get open(): number {
    return this.total;
  }

  /** Admits a session or throws PageBusyError naming the bound reached. */
  admit(kind: SessionKind, providerId: string, who: string): SessionTicket {
    const onWorkload = this.perWorkload.get(providerId) ?? 0;
    if (this.total >= this.maxSessions) throw new PageBusyError('sessions', this.maxSessions);
    if (onWorkload >= this.maxPerWorkload) throw new PageBusyError('workload-sessions', this.maxPerWorkload);
    this.total += 1;
    this.perWorkload.set(providerId, onWorkload + 1);
    const started = this.now();
    let ended = false;
    return {
      end: (outcome) => {
        if (ended) return;
        ended = true;
        this.total -= 1;
        const left = (this.perWorkload.get(providerId) ?? 1) - 1;
        if (left === 0) this.perWorkload.delete(providerId);
        else this.perWorkload.set(providerId, left);
        const seconds = ((this.now() - started) / 1000).toFixed(1);
        this.log(`${kind} ${providerId} for ${who}: ${seconds}s, ${outcome.replace(/[\r\n]+/g, ' ')}`);
      },
    };
  }
}
