// The README's Architecture picture, checked against the code: each band of src/ imports
// only from the bands below it (never from above, nor across its own band), the files of
// one band never import each other in a circle, the Manager adapter imports the core only
// through its public API, and every part of src/ is in the picture. Reads the source
// files' import lines (type imports included: a circle of types is still a circle); no fakes.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');

/** The bands of the README's picture, top first; a part is a directory or a file of src/. */
const BANDS: readonly (readonly string[])[] = [
  ['cli', 'manager'],
  ['index.ts', 'ui'],
  ['workload', 'cluster'],
  ['members'],
  ['informers', 'rollout'],
  ['kube'],
  ['input', 'sse'],
  ['rx'],
  ['mask.ts'],
  ['errors'],
  ['text.ts', 'interning.ts'],
];

const bandOf = new Map(BANDS.flatMap((parts, index) => parts.map((part) => [part, index] as const)));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith('.ts') ? [path] : [];
  });
}

/** The part of src/ a file belongs to: its top directory, or the file itself. */
function partOf(file: string): string {
  return relative(SRC, file).split('/')[0] ?? '';
}

/** Relative imports of a file (value and type imports, re-exports, dynamic imports), as src/ paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((match) => match[1] ?? '');
  return specifiers.map((specifier) => normalize(join(dirname(file), specifier)).replace(/\.js$/, '.ts'));
}

const files = sourceFiles(SRC);

describe('architecture: arrows only point down', () => {
  it('places every part of src/ in exactly one band of the picture', () => {
    expect(readdirSync(SRC).sort()).toEqual([...bandOf.keys()].sort());
  });

  it('each band imports only from the bands below it', () => {
    const violations: string[] = [];
    for (const file of files) {
      const from = partOf(file);
      for (const target of importsOf(file)) {
        const to = partOf(target);
        if (to === from) continue;
        if ((bandOf.get(to) ?? -1) <= (bandOf.get(from) ?? -1))
          violations.push(`${relative(ROOT, file)} imports ${relative(ROOT, target)}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('no import cycle inside a band: its files can be read in an order', () => {
    expect(cyclesWithinBands()).toEqual([]);
  });

  it('the Manager adapter reaches the core only through its public API (src/index.ts)', () => {
    const violations = files
      .filter((file) => partOf(file) === 'manager')
      .flatMap((file) => importsOf(file).map((target) => [file, target] as const))
      .filter(([, target]) => partOf(target) !== 'manager' && relative(SRC, target) !== 'index.ts')
      .map(([file, target]) => `${relative(ROOT, file)} imports ${relative(ROOT, target)}`);
    expect(violations).toEqual([]);
  });

  it("the README's Architecture section names every part of src/", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.split('## Architecture')[1]?.split('\n## ')[0] ?? '';
    for (const part of bandOf.keys()) expect(section, part).toContain(part.endsWith('.ts') ? `src/${part}` : `src/${part}/`);
  });
});

/** Every import cycle among the files of one band, each once, as `a -> b -> a`. */
function cyclesWithinBands(): string[] {
  const known = new Set(files);
  const edges = new Map(
    files.map((file) => [
      file,
      importsOf(file).filter((target) => known.has(target) && bandOf.get(partOf(target)) === bandOf.get(partOf(file))),
    ]),
  );
  const cycles = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    path.push(file);
    for (const target of edges.get(file) ?? []) {
      if (state.get(target) === 'open') {
        const cycle = path.slice(path.indexOf(target)).map((each) => relative(ROOT, each));
        // One name per cycle, whichever file the search entered it by.
        const start = cycle.indexOf([...cycle].sort()[0]!);
        const rotated = [...cycle.slice(start), ...cycle.slice(0, start)];
        cycles.add([...rotated, rotated[0]].join(' -> '));
      } else if (!state.has(target)) visit(target);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return [...cycles].sort();
}
