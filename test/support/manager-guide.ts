// Applies docs/manager.md's excerpts to Manager's own files, as a reader would. Each excerpt
// carries, on the line above its `<!-- excerpt: PATH -->` marker, where it goes in Manager's
// file: `<!-- apply: FILE {placement} -->` (FILE under create-a-container/, the placement as
// JSON, or a list of them for a block applied twice). A placement names lines by their text,
// trimmed, and each must be one line of the file (or of the `within` block) when it applies.
import { readFileSync } from 'node:fs';
import { ROOT, fencedBlocks } from './examples.js';

export interface Placement {
  /** Search the anchors only inside the block that opens at this line. */
  readonly within?: string;
  /** Insert after this line (inside it, when it opens a block). */
  readonly after?: string;
  /** Insert before this line. */
  readonly before?: string;
  /** Insert after the block that opens at this line. */
  readonly afterBlock?: string;
  /** Insert last in the block (object, list, arguments) that opens at this line. */
  readonly lastIn?: string;
  /** Replace this line. */
  readonly replace?: string;
  /** Replace the block that opens at this line, its closing line included. */
  readonly replaceBlock?: string;
  /** The statement at `after` or `afterBlock` gets this name first (`const NAME = ...`). */
  readonly declare?: string;
  /** Lines moved, as they are, into the function the excerpt opens (closed after them). */
  readonly move?: { readonly from: string; readonly throughBlock: string; readonly rename?: Record<string, string> };
}

export interface GuideExcerpt {
  /** 1-based line of the excerpt's fence in the guide. */
  readonly line: number;
  /** Manager's file, under create-a-container/. */
  readonly file: string;
  readonly placements: readonly Placement[];
  /** The Manager-shaped test file the excerpt is lines of. */
  readonly excerptOf: string;
  readonly language: string;
  readonly body: string;
  /** The guide's words about it: its text from the last heading to the excerpt. */
  readonly prose: string;
}

const APPLY = /^<!-- apply: (\S+) (.+) -->$/;
const GUIDE = 'docs/manager.md';

/** The guide's excerpts, in the guide's order, each with where it goes. */
export function guideExcerpts(): GuideExcerpt[] {
  const lines = readFileSync(`${ROOT}${GUIDE}`, 'utf8').split('\n');
  const blocks = fencedBlocks(GUIDE);
  const inBlock = (index: number) =>
    blocks.some((block) => index >= block.line - 1 && index <= block.line + block.body.split('\n').length - 1);
  const headings = lines.flatMap((line, index) => (/^#/.test(line) && !inBlock(index) ? [index] : []));
  return blocks.flatMap((block) => {
    if (block.excerptOf === undefined) return [];
    const markerIndex = block.line - 2;
    const apply = APPLY.exec(lines[markerIndex - 1] ?? '');
    if (!apply) throw new Error(`${GUIDE}:${block.line}: an excerpt without an <!-- apply: FILE {...} --> line above its marker`);
    const parsed = JSON.parse(apply[2]!) as Placement | Placement[];
    const lastHeading = headings.findLast((heading) => heading < markerIndex) ?? 0;
    return [
      {
        line: block.line,
        file: apply[1]!,
        placements: Array.isArray(parsed) ? parsed : [parsed],
        excerptOf: block.excerptOf,
        language: block.language,
        body: block.body,
        prose: lines.slice(lastHeading, markerIndex - 1).join('\n'),
      },
    ];
  });
}

/** Every text a placement names: the guide's words must name each. */
export function namedTexts(placement: Placement): string[] {
  const { within, after, before, afterBlock, lastIn, replace, replaceBlock, declare, move } = placement;
  return [
    within,
    after,
    before,
    afterBlock,
    lastIn,
    replace,
    replaceBlock,
    declare,
    move?.from,
    move?.throughBlock,
    ...Object.entries(move?.rename ?? {}).flat(),
  ].filter((text): text is string => text !== undefined);
}

const indentOf = (line: string): number => /^ */.exec(line)![0].length;

/** The lines without their common indentation, and without trailing blanks. */
export function dedent(lines: readonly string[]): string[] {
  const indent = Math.min(...lines.filter((line) => line.trim() !== '').map(indentOf));
  return lines.map((line) => line.slice(indent).trimEnd());
}

const reindent = (lines: readonly string[], indent: number): string[] =>
  dedent(lines).map((line) => (line === '' ? '' : ' '.repeat(indent) + line));

/** Index of the line closing the block that opens at `open`: the next one at its indentation that starts with a closer. */
function blockEnd(lines: readonly string[], open: number, what: string): number {
  const indent = indentOf(lines[open]!);
  for (let index = open + 1; index < lines.length; index++) {
    const line = lines[index]!;
    if (line.trim() !== '' && indentOf(line) === indent && /^[}\])]/.test(line.trim())) return index;
  }
  throw new Error(`${what}: the block opened by line ${open + 1} does not close`);
}

/** The one line whose trimmed text is `anchor`, between `from` and `to`. */
function findLine(lines: readonly string[], anchor: string, [from, to]: readonly [number, number], what: string): number {
  const found: number[] = [];
  for (let index = from; index < to; index++) if (lines[index]!.trim() === anchor) found.push(index);
  if (found.length !== 1) {
    const where = found.map((index) => index + 1).join(', ');
    throw new Error(`${what}: \`${anchor}\` must be one line, found ${found.length}${where ? ` (lines ${where})` : ''}`);
  }
  return found[0]!;
}

/** Gives the statement at `index` (a line, or the block it opens) a name: `app.use(x(...))` becomes `const NAME = x(...)`. */
function declareAt(lines: string[], index: number, end: number, name: string): void {
  const line = lines[index]!;
  const indent = ' '.repeat(indentOf(line));
  if (line.trim().startsWith('app.use(')) {
    lines[index] = `${indent}const ${name} = ${line.trim().slice('app.use('.length)}`;
    lines[end] = lines[end]!.replace(')', '');
  } else {
    lines[index] = `${indent}const ${name} = ${line.trim()}`;
  }
}

/** Applies one excerpt at one placement to a file's lines (changed in place). */
export function applyPlacement(lines: string[], excerpt: GuideExcerpt, placement: Placement): void {
  const what = `docs/manager.md:${excerpt.line} on ${excerpt.file}`;
  const body = excerpt.body.replace(/\n$/, '').split('\n');
  let scope: [number, number] = [0, lines.length];
  if (placement.within !== undefined) {
    const open = findLine(lines, placement.within, scope, what);
    scope = [open, blockEnd(lines, open, what) + 1];
  }
  const find = (anchor: string) => findLine(lines, anchor, scope, what);

  if (placement.after !== undefined) {
    const at = find(placement.after);
    if (placement.declare) declareAt(lines, at, at, placement.declare);
    const opens = /[{[(]$/.test(lines[at]!.trimEnd());
    const next = lines.slice(at + 1).find((line) => line.trim() !== '') ?? '';
    lines.splice(at + 1, 0, ...reindent(body, opens ? indentOf(next) : indentOf(lines[at]!)));
  } else if (placement.before !== undefined) {
    const at = find(placement.before);
    lines.splice(at, 0, ...reindent(body, indentOf(lines[at]!)));
  } else if (placement.replace !== undefined) {
    const at = find(placement.replace);
    lines.splice(at, 1, ...reindent(body, indentOf(lines[at]!)));
  } else if (placement.replaceBlock !== undefined) {
    const at = find(placement.replaceBlock);
    lines.splice(at, blockEnd(lines, at, what) - at + 1, ...reindent(body, indentOf(lines[at]!)));
  } else if (placement.lastIn !== undefined) {
    const open = find(placement.lastIn);
    const close = blockEnd(lines, open, what);
    let last = close - 1;
    while (last > open && lines[last]!.trim() === '') last--;
    if (last === open) throw new Error(`${what}: \`${placement.lastIn}\` opens an empty block`);
    if (!lines[last]!.trimEnd().endsWith(',')) lines[last] = `${lines[last]!.trimEnd()},`;
    lines.splice(close, 0, ...reindent(body, indentOf(lines[last]!)));
  } else if (placement.afterBlock !== undefined) {
    let moved: string[] = [];
    if (placement.move) {
      const from = find(placement.move.from);
      const through = find(placement.move.throughBlock);
      if (through < from) throw new Error(`${what}: \`${placement.move.throughBlock}\` comes before \`${placement.move.from}\``);
      const end = blockEnd(lines, through, what);
      moved = lines.splice(from, end - from + 1);
      for (const [name, renamed] of Object.entries(placement.move.rename ?? {})) {
        moved = moved.map((line) => line.replace(new RegExp(`\\b${name}\\b`, 'g'), renamed));
      }
      scope = [0, lines.length];
    }
    const open = find(placement.afterBlock);
    const end = blockEnd(lines, open, what);
    if (placement.declare) declareAt(lines, open, end, placement.declare);
    const indent = indentOf(lines[open]!);
    const inserted = reindent(body, indent);
    if (placement.move) inserted.push(...reindent(moved, indent + 2), `${' '.repeat(indent)}}`);
    lines.splice(end + 1, 0, ...(indent === 0 ? ['', ...inserted] : inserted));
  } else {
    throw new Error(`${what}: the placement names no position (after, before, afterBlock, lastIn, replace, replaceBlock)`);
  }
}

/** Manager's files as the guide leaves them: the before-copies, each excerpt applied in the guide's order. */
export function applyGuide(before: (file: string) => string): Map<string, string> {
  const files = new Map<string, string[]>();
  for (const excerpt of guideExcerpts()) {
    const lines = files.get(excerpt.file) ?? before(excerpt.file).split('\n');
    for (const placement of excerpt.placements) applyPlacement(lines, excerpt, placement);
    files.set(excerpt.file, lines);
  }
  return new Map([...files].map(([file, lines]) => [file, lines.join('\n')]));
}
