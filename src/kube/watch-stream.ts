// The body of one watch response, read as it arrives: lines are decoded (watch-decoder.ts)
// and handed on one by one, as the server sent them, until the first fault. Kept apart from the socket so
// the same code can be driven by a test with any text at all: the transport feeds it a
// response's chunks and its end, a property test feeds it generated junk.
import { KubeProvisionerError } from '../errors/base.js';
import { MalformedResponseError, type RequestTarget } from '../errors/api.js';
import type { WatchEventType } from './client.js';
import { errorFromNetwork, errorFromWatchStatus } from './translate-error.js';
import { LineSplitter, decodeWatchLine } from './watch-decoder.js';

export interface WatchStreamSink {
  onEvent(type: Exclude<WatchEventType, 'ERROR'>, object: Record<string, unknown>): void;
  /** Called at most once: the stream ended, cleanly (undefined) or with a typed error. */
  onClose(error: Error | undefined): void;
}

export class WatchStreamReader {
  private readonly lines = new LineSplitter();
  private closed = false;

  constructor(
    private readonly server: string,
    private readonly target: RequestTarget,
    private readonly sink: WatchStreamSink,
  ) {}

  get isClosed(): boolean {
    return this.closed;
  }

  /** A chunk of the body; complete lines are delivered, the rest waits for more. */
  push(chunk: string): void {
    for (const line of this.lines.push(chunk)) {
      if (this.closed) return;
      this.deliver(line);
    }
  }

  /**
   * The body ended: `complete` when the server finished it, false when the connection was
   * cut. Text after the last newline is a truncated event.
   */
  end(complete: boolean): void {
    if (!complete) {
      this.close(errorFromNetwork(this.server, Object.assign(new Error('watch stream cut'), { code: 'ECONNRESET' }), this.target));
    } else if (this.lines.rest) {
      this.close(new MalformedResponseError(this.server, 'the watch stream ended in the middle of an event', { target: this.target }));
    } else {
      this.close(undefined);
    }
  }

  /** Ends the stream with `error` (a network error, say). */
  fail(error: Error): void {
    this.close(error);
  }

  private close(error: Error | undefined): void {
    if (this.closed) return;
    this.closed = true;
    this.sink.onClose(error);
  }

  /** One line to the sink; a junk line, an ERROR event, or a sink that throws ends the stream. */
  private deliver(line: string): void {
    const decoded = decodeWatchLine(line);
    if (!decoded.ok) {
      this.close(new MalformedResponseError(this.server, decoded.problem, { target: this.target }));
      return;
    }
    const object = decoded.object;
    if (decoded.type === 'ERROR') {
      // The server reports e.g. 410 Expired in-band and then ends the stream.
      this.close(errorFromWatchStatus(this.server, object, this.target));
      return;
    }
    try {
      this.sink.onEvent(decoded.type, object);
    } catch (error) {
      // A consumer that cannot take this object: a fault of the watch, never of the process.
      this.close(
        error instanceof KubeProvisionerError
          ? error
          : new MalformedResponseError(this.server, `a ${decoded.type} event could not be handled`, { target: this.target, cause: error }),
      );
    }
  }
}
