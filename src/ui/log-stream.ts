// One log pane: a workload's log lines (logs$) written to the page as Server-Sent Events
// (`line` with a LogLine, then `end`, or `error` with the error as viewers see it), with a
// heartbeat comment so a closed tab is noticed while the log is quiet. The page reading too
// slowly (output piling up past a bound) ends the stream rather than the server's memory.
// Closing the page's request unsubscribes, which aborts the log request at once.
import type { ServerResponse } from 'node:http';
import type { Observable, Subscription } from 'rxjs';
import type { ErrorForViewers } from '../sse/error-for-viewers.js';
import { SSE_HEADERS } from '../sse/to-event-stream.js';
import type { LogLine } from '../workload/reads/logs.js';
import type { SessionTicket } from './sessions.js';

/** Lines waiting for a page that does not read them; past it the stream is ended. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

export function streamLogLines(
  response: ServerResponse,
  lines$: Observable<LogLine>,
  ticket: SessionTicket,
  options: { heartbeatMs: number; forViewers: (error: unknown) => ErrorForViewers },
): void {
  response.writeHead(200, SSE_HEADERS);
  response.write(': log\n\n');
  let count = 0;
  let finished = false;
  // Set once subscribed; an error while subscribing finishes before it is.
  const subscribed: { subscription?: Subscription } = {};
  const heartbeat = setInterval(() => response.write(': heartbeat\n\n'), options.heartbeatMs);
  const finish = (outcome: string): void => {
    if (finished) return;
    finished = true;
    clearInterval(heartbeat);
    subscribed.subscription?.unsubscribe();
    ticket.end(`${outcome} after ${count} lines`);
    if (!response.writableEnded) response.end();
  };
  const send = (event: string, data: unknown): void => {
    response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  response.on('close', () => finish('closed by the page'));
  const subscription = lines$.subscribe({
    next: (line) => {
      count += 1;
      send('line', line);
      if (response.writableLength > MAX_BUFFERED_BYTES) {
        send('error', { name: 'SlowPageError', message: 'the page did not keep up with the log: reopen it' });
        finish('ended: the page did not keep up');
      }
    },
    error: (error: unknown) => {
      const viewed = options.forViewers(error);
      send('error', viewed);
      finish(`ended: ${viewed.name}: ${viewed.message}`);
    },
    complete: () => {
      send('end', {});
      finish('ended with the log');
    },
  });
  subscribed.subscription = subscription;
  if (finished) subscription.unsubscribe();
}
