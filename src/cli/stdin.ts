// `-f -` reads the spec from stdin: asynchronously, so that Ctrl-C still interrupts a
// terminal nobody types into (a blocking read would hold the process past every signal),
// and within the bound every file the CLI reads has.
import { UsageError } from '../errors/input.js';
import { ProvisionAbortedError } from '../errors/rollout.js';
import { MAX_FILE_BYTES } from '../kube/read-file.js';

export function readStdin(stream: NodeJS.ReadableStream, signal: AbortSignal | undefined, maxBytes = MAX_FILE_BYTES): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error: Error | undefined): void => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      signal?.removeEventListener('abort', onAbort);
      if (error) {
        // Nothing more is read: a pending read must not keep the process alive.
        (stream as { destroy?: () => void }).destroy?.();
        reject(error);
      } else {
        resolve(Buffer.concat(chunks).toString('utf8'));
      }
    };
    const onData = (chunk: Buffer | string): void => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size > maxBytes) finish(new UsageError(`--spec-file - (stdin) is larger than ${maxBytes} bytes`));
      else chunks.push(bytes);
    };
    const onEnd = (): void => finish(undefined);
    const onError = (error: Error): void =>
      finish(new UsageError(`--spec-file - (stdin) cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`));
    const onAbort = (): void => finish(new ProvisionAbortedError(undefined, signal?.reason));
    if (signal?.aborted) {
      onAbort();
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
  });
}
