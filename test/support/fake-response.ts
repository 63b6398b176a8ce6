// A stand-in for http.ServerResponse in unit tests of toEventStream: records what is
// written, and lets a test decide when write() reports a full socket and when it drains.
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';

export interface ParsedEvent {
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
}

export class FakeResponse extends EventEmitter {
  statusCode = 0;
  headers: Record<string, string | number> = {};
  readonly chunks: string[] = [];
  writableEnded = false;
  destroyed = false;
  /** When false, write() accepts the chunk but reports a full socket (as Node does). */
  accepting = true;
  writes = 0;
  readonly req: { headers: Record<string, string> };

  constructor(requestHeaders: Record<string, string> = {}) {
    super();
    this.req = { headers: requestHeaders };
  }

  writeHead(statusCode: number, headers: Record<string, string | number> = {}): this {
    this.statusCode = statusCode;
    this.headers = headers;
    return this;
  }

  write(chunk: string): boolean {
    if (this.writableEnded || this.destroyed) throw new Error('write after end');
    this.writes += 1;
    this.chunks.push(chunk);
    return this.accepting;
  }

  end(): this {
    this.writableEnded = true;
    this.emit('close');
    return this;
  }

  destroy(): this {
    this.destroyed = true;
    this.emit('close');
    return this;
  }

  /** The socket drained: write() accepts again. */
  drain(): void {
    this.accepting = true;
    this.emit('drain');
  }

  /** The client went away. */
  disconnect(): void {
    this.destroyed = true;
    this.emit('close');
  }

  get text(): string {
    return this.chunks.join('');
  }

  /** The SSE events written so far (comments and the retry field left out). */
  get events(): ParsedEvent[] {
    return this.text
      .split('\n\n')
      .filter((block) => block !== '')
      .map((block) => {
        const event: { -readonly [K in keyof ParsedEvent]: string } = {};
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue;
          const colon = line.indexOf(': ');
          const field = line.slice(0, colon);
          if (field === 'id' || field === 'event' || field === 'data') event[field] = line.slice(colon + 2);
        }
        return event;
      })
      .filter((event) => event.event !== undefined);
  }

  get heartbeats(): number {
    return this.chunks.filter((chunk) => chunk === ': heartbeat\n\n').length;
  }

  asResponse(): ServerResponse {
    return this as unknown as ServerResponse;
  }
}
