// A minimal Server-Sent Events reader for tests (Node's fetch, streamed body): collects
// the events of one response until it ends, `stop` says so, or the signal aborts.
export interface SseEvent {
  readonly id?: string;
  readonly event: string;
  readonly data: string;
}

export interface SseResponse {
  readonly status: number;
  readonly contentType: string | null;
  readonly events: SseEvent[];
}

export async function readEventStream(
  url: string,
  options: { lastEventId?: string; stop?: (event: SseEvent, all: readonly SseEvent[]) => boolean; signal?: AbortSignal } = {},
): Promise<SseResponse> {
  const controller = new AbortController();
  options.signal?.addEventListener('abort', () => controller.abort(), { once: true });
  const response = await fetch(url, {
    headers: { Accept: 'text/event-stream', ...(options.lastEventId ? { 'Last-Event-ID': options.lastEventId } : {}) },
    signal: controller.signal,
  });
  const events: SseEvent[] = [];
  const result = { status: response.status, contentType: response.headers.get('content-type'), events };
  if (!response.body) return result;
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields: Record<string, string> = {};
        for (const line of block.split('\n')) {
          if (line.startsWith(':') || line === '') continue;
          const colon = line.indexOf(':');
          fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
        }
        if (fields.event === undefined && fields.data === undefined) continue;
        const event: SseEvent = {
          ...(fields.id !== undefined ? { id: fields.id } : {}),
          event: fields.event ?? 'message',
          data: fields.data ?? '',
        };
        events.push(event);
        if (options.stop?.(event, events)) {
          controller.abort();
          return result;
        }
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  }
  return result;
}
