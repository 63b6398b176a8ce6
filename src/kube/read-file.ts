// Reading a file a user named (a kubeconfig, a file it names, a spec file) so that no path
// can hang or flood the process: the file is opened without blocking (a named pipe with no
// writer would block an ordinary open, and a read from it would block forever, signals
// included), it must be a regular file (not a pipe, a device such as /dev/zero or
// /dev/urandom, a socket or a directory), and it is read only up to a bound, so a huge
// file costs a refusal, not the event loop. Anything else is a problem in words, at once.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

/** The most any file the library reads may hold: far more than any kubeconfig, CA bundle or spec. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** The rule, as messages state it. */
export const FILE_RULE = `a regular file of at most ${MAX_FILE_BYTES} bytes (4 MiB)`;

export type FileRead =
  | { readonly ok: true; readonly bytes: Buffer }
  /** `problem` completes "<the file> ...": "is a named pipe (FIFO), not a regular file". */
  | { readonly ok: false; readonly code: string | undefined; readonly problem: string };

// Non-blocking, so that opening a FIFO returns at once; not a controlling terminal.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** The whole file, if it is a regular file of at most `maxBytes`; else why not. */
export function readRegularFile(path: string, maxBytes = MAX_FILE_BYTES): FileRead {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    return failed(error);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { ok: false, code: undefined, problem: `is ${kindOf(stats)}, not a regular file` };
    if (stats.size > maxBytes) return tooLarge(maxBytes);
    let buffer = Buffer.allocUnsafe(Math.min(Math.max(stats.size + 1, 4096), maxBytes + 1));
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        // The file grew since fstat (or reports no size, as /proc files do): read on, up to the bound.
        if (length > maxBytes) return tooLarge(maxBytes);
        const larger = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
        buffer.copy(larger, 0, 0, length);
        buffer = larger;
      }
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    if (length > maxBytes) return tooLarge(maxBytes);
    return { ok: true, bytes: buffer.subarray(0, length) };
  } catch (error) {
    return failed(error);
  } finally {
    closeSync(fd);
  }
}

function failed(error: unknown): FileRead {
  const code = (error as NodeJS.ErrnoException).code;
  return { ok: false, code, problem: `cannot be read (${code ?? 'error'})` };
}

function tooLarge(maxBytes: number): FileRead {
  return { ok: false, code: undefined, problem: `is larger than ${maxBytes} bytes` };
}

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  if (stats.isDirectory()) return 'a directory';
  return 'not a file';
}
