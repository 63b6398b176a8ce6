// A minimal ustar writer for image layers: regular files, directories and symbolic links,
// owned by root, with a fixed modification time, so the same entries always give the same
// bytes (and so the same layer digest).
export type TarEntry =
  | { readonly type: 'file'; readonly path: string; readonly mode: number; readonly content: Buffer }
  | { readonly type: 'dir'; readonly path: string; readonly mode: number }
  | { readonly type: 'symlink'; readonly path: string; readonly target: string };

const BLOCK = 512;
/** 2000-01-01T00:00:00Z: any fixed time does; zero makes some tools warn. */
const MTIME = 946_684_800;

/** The archive: entries in the order given, then the two zero blocks that end it. */
export function writeTar(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const content = entry.type === 'file' ? entry.content : Buffer.alloc(0);
    parts.push(header(entry, content.length), content, Buffer.alloc(padding(content.length)));
  }
  parts.push(Buffer.alloc(2 * BLOCK));
  return Buffer.concat(parts);
}

function header(entry: TarEntry, size: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  const name = entry.type === 'dir' && !entry.path.endsWith('/') ? `${entry.path}/` : entry.path;
  if (name.startsWith('/') || Buffer.byteLength(name) > 100) throw new Error(`tar: path must be relative and at most 100 bytes: ${name}`);
  const mode = entry.type === 'symlink' ? 0o777 : entry.mode;
  block.write(name, 0, 100, 'utf8');
  block.write(octal(mode, 7), 100);
  block.write(octal(0, 7), 108);
  block.write(octal(0, 7), 116);
  block.write(octal(size, 11), 124);
  block.write(octal(MTIME, 11), 136);
  block.write(' '.repeat(8), 148);
  block.write(entry.type === 'file' ? '0' : entry.type === 'dir' ? '5' : '2', 156);
  if (entry.type === 'symlink') {
    if (Buffer.byteLength(entry.target) > 100) throw new Error(`tar: link target longer than 100 bytes: ${entry.target}`);
    block.write(entry.target, 157, 100, 'utf8');
  }
  block.write('ustar\u000000', 257, 'latin1');
  block.write('root', 265);
  block.write('root', 297);
  let checksum = 0;
  for (const byte of block) checksum += byte;
  block.write(`${checksum.toString(8).padStart(6, '0')}\u0000 `, 148, 'latin1');
  return block;
}

function octal(value: number, digits: number): string {
  return `${value.toString(8).padStart(digits, '0')}\u0000`;
}

function padding(size: number): number {
  return (BLOCK - (size % BLOCK)) % BLOCK;
}
