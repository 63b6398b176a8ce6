// Documentation that does not rot: every js/ts code block in the docs is byte-identical to
// a file in examples/, every example is quoted and run (the pure ones here, the others in
// test/integration/examples.test.ts), every path the docs or code comments cite exists in
// this repository, and the file tables list every file. Reads files and runs the built
// examples as child processes; no fakes.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CODE_LANGUAGES,
  EXAMPLES,
  NON_CODE_LANGUAGES,
  ROOT,
  documentationFiles,
  exampleFiles,
  exampleSource,
  fencedBlocks,
  runExample,
} from '../support/examples.js';

const blocks = documentationFiles().flatMap(fencedBlocks);
const examplesBySource = new Map(exampleFiles().map((file) => [exampleSource(file), file]));

describe('code blocks in the docs are the examples, as written', () => {
  it('finds the README and its code blocks', () => {
    expect(blocks.filter((block) => block.file === 'README.md' && CODE_LANGUAGES.has(block.language)).length).toBeGreaterThan(3);
  });

  it.each(blocks.map((block) => [`${block.file}:${block.line}`, block] as const))(
    '%s is an example file, or marked as shell/transcript/picture',
    (_where, block) => {
      // An excerpt of Manager-side code is checked against its file by docs-quotes.test.ts.
      if (block.excerptOf) return;
      if (CODE_LANGUAGES.has(block.language)) {
        expect(examplesBySource.get(block.body), 'a js/ts block must be byte-identical to a file in examples/').toBeDefined();
      } else {
        expect([...NON_CODE_LANGUAGES], 'mark a block that is not code as sh, console or text').toContain(block.language);
      }
    },
  );

  it('lists every file in examples/ exactly once, with what it needs to run', () => {
    expect(exampleFiles()).toEqual(Object.keys(EXAMPLES).sort());
  });

  it.each(Object.entries(EXAMPLES).filter(([, needs]) => needs.startsWith('tested by ')))(
    'examples/%s is run by the test it names (%s)',
    (file, needs) => {
      const testFile = needs.slice('tested by '.length);
      expect(existsSync(`${ROOT}${testFile}`), testFile).toBe(true);
      const test = readFileSync(`${ROOT}${testFile}`, 'utf8');
      expect(test.includes(`examples/${file}`) || test.includes(`'${file}'`), `${testFile} names ${file}`).toBe(true);
    },
  );

  it.each(exampleFiles())('examples/%s is quoted by a document', (file) => {
    const quoted = blocks.some((block) => CODE_LANGUAGES.has(block.language) && block.body === exampleSource(file));
    expect(quoted, `no document quotes examples/${file}`).toBe(true);
  });

  it.each(exampleFiles())('examples/%s imports the package by its name, as a user would', (file) => {
    const source = exampleSource(file);
    expect(source).toMatch(/(?:from |require\()'kube-provisioner(?:\/manager)?'/);
    expect(source).not.toMatch(/(?:from |require\()'\.{1,2}\//);
  });
});

describe('examples that need no cluster run as written (the built package, as a child process)', () => {
  it('examples/build-deployment.mjs prints the Deployment it builds and every problem of an invalid spec', async () => {
    expect(EXAMPLES['build-deployment.mjs']).toBe('nothing');
    expect(existsSync(`${ROOT}dist/index.js`), 'dist/ is missing: run `npm run build` (npm test does)').toBe(true);
    const run = await runExample('build-deployment.mjs');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')).toEqual([
      'team-a web Recreate',
      '{"limits":{"cpu":"500m","memory":"256Mi"},"requests":{"cpu":"500m","memory":"256Mi"}}',
      expect.stringMatching(/^hostname: must be a DNS-1123 label: .*\(it contains "W", "_"\) \(got "[^"]*"\)$/),
      'cpus: must be greater than 0 (got 0)',
      '',
    ]);
  });
});

describe('benchmark figures live in bench/results/', () => {
  it("the README's Benchmarks section quotes only rows and dates of the results files it links", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.split('\n## Benchmarks')[1]?.split('\n## ')[0] ?? '';
    const linked = [...section.matchAll(/\]\((bench\/results\/[^)]+\.md)\)/g)].map((match) => match[1] ?? '');
    const results = linked.map((file) => readFileSync(join(ROOT, file), 'utf8')).join('\n');
    const rows = section.split('\n').filter((line) => line.startsWith('|'));
    const dates = section.match(/\d{4}-\d{2}-\d{2}/g) ?? [];
    expect(linked.length).toBeGreaterThan(0);
    for (const row of rows) expect(results, 'a quoted row must be copied verbatim from a results file').toContain(row);
    for (const date of dates) expect(results, 'a quoted date must be the date of a results file').toContain(date);
  });

  it('bench/README.md holds no results tables: the method only, with links', () => {
    const benchReadme = readFileSync(join(ROOT, 'bench/README.md'), 'utf8');
    expect(benchReadme).toContain('](results/cluster.md)');
    expect(benchReadme).not.toMatch(/\d+(\.\d+)? (ms|µs) \(/);
  });
});

// ---- cited paths and file tables ---------------------------------------------------------

const REPO_PATH = /(?<![\w./~-])(?:src|test|bench|scripts|docs|examples|\.ci)\/[\w./-]*[\w/]/g;

/** A cited path exists as written, or as the .ts source of a cited .js module. */
function pathExists(path: string): boolean {
  return existsSync(join(ROOT, path)) || existsSync(join(ROOT, path.replace(/\.js$/, '.ts')));
}

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (statSync(join(ROOT, path)).isDirectory()) return name === 'results' ? [] : filesUnder(path);
    return [path];
  });
}

describe('every path the docs and comments cite is in this repository', () => {
  it.each(documentationFiles())('%s', (file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const missing = [...text.matchAll(REPO_PATH)].map((match) => match[0]).filter((path) => !pathExists(path));
    const linksMissing = [...text.matchAll(/\]\(([^)#\s]+)\)/g)]
      .map((match) => match[1] ?? '')
      .filter((target) => !/^[a-z]+:/.test(target))
      .filter((target) => !existsSync(join(ROOT, file, '..', target)));
    expect([...missing, ...linksMissing]).toEqual([]);
  });

  it('code comments cite only files that exist, and nothing outside the repository', () => {
    const sources = ['src', 'test', 'bench', 'scripts', 'examples']
      .flatMap(filesUnder)
      .filter((path) => /\.(ts|mjs|cjs|js|sh)$/.test(path));
    const outside = ['/work/', ['shared', 'reference'].join('/')];
    const problems: string[] = [];
    for (const file of sources) {
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .forEach((line, index) => {
          const comment = /(?:^\s*(?:\/\/|\*|\/\*|#)|\s\/\/)(.*)$/.exec(line)?.[1];
          if (comment === undefined) return;
          for (const needle of outside) if (comment.includes(needle)) problems.push(`${file}:${index + 1} cites ${needle}`);
          for (const match of comment.matchAll(REPO_PATH)) {
            if (!pathExists(match[0])) problems.push(`${file}:${index + 1} cites ${match[0]}, which does not exist`);
          }
        });
    }
    expect(problems).toEqual([]);
  });

  it("scripts/control-plane/README.md's file table lists every file there, in its folders too", () => {
    const readme = readFileSync(join(ROOT, 'scripts/control-plane/README.md'), 'utf8');
    const listed = [...readme.matchAll(/^\| `([^`]+)` \|/gm)].map((match) => match[1]);
    const files = filesUnder('scripts/control-plane').map((path) => path.slice('scripts/control-plane/'.length));
    for (const file of files) expect(listed, file).toContain(file);
  });

  it("bench/README.md's file list names every benchmark source", () => {
    const files = readFileSync(join(ROOT, 'bench/README.md'), 'utf8').split('## Files')[1] ?? '';
    for (const file of filesUnder('bench').filter((path) => path.endsWith('.ts'))) expect(files, file).toContain(file);
  });
});

describe('docs that describe the code as it is (no stale stand-ins)', () => {
  it('docs/live-ui.md says the library backend offers every operation, and the backend does', async () => {
    const { libraryBackend } = await import('../../src/ui/library-backend.js');
    const { availableActions } = await import('../../src/ui/backend.js');
    const backend = libraryBackend();
    expect(availableActions(backend)).toEqual(['start', 'stop', 'restart', 'remove']);
    expect(backend.provision$).toBeDefined();
    expect(backend.connection$).toBeDefined();
    const page = readFileSync(join(ROOT, 'docs/live-ui.md'), 'utf8');
    expect(page).not.toMatch(/Until the lifecycle\s+operations/);
    expect(page).toMatch(/wires the library's own functions, all of them/);
  });

  it('no script or source file still carries a STAND-IN for something that has been merged', () => {
    const sources = (dir: string): string[] =>
      readdirSync(join(ROOT, dir)).flatMap((name) => {
        const path = join(dir, name);
        return statSync(join(ROOT, path)).isDirectory() ? sources(path) : /\.(ts|mjs|cjs|js)$/.test(name) ? [path] : [];
      });
    const stale = [...sources('scripts'), ...sources('src')].filter((file) =>
      /STAND-IN until/.test(readFileSync(join(ROOT, file), 'utf8')),
    );
    expect(stale).toEqual([]);
  });
});
