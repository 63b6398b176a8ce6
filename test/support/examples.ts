// The documentation's code examples (examples/) and the markdown that quotes them. Every
// js/ts code block in the docs is byte-identical to one example file, and every example is
// run by a test as written: the pure ones in the unit suite (test/unit/docs.test.ts), the
// ones that need a cluster in the integration suite (test/integration/examples.test.ts).
// Examples import the package by its name. examples/ lies inside this package, so Node
// resolves that name to the package itself (self-reference through package.json
// `exports`, for import and require alike): they run against the built dist/.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * What each example needs: nothing (unit suite), the cluster (run by
 * test/integration/examples.test.ts), a cluster and Manager-shaped models on SQLite
 * (`manager`: test/support/manager/models/, run by test/integration/manager.test.ts), or a
 * dedicated integration test that runs it with the arguments it takes (`tested by <file>`).
 */
export type ExampleNeeds = 'nothing' | 'cluster' | 'manager' | `tested by ${string}`;

export const EXAMPLES: Readonly<Record<string, ExampleNeeds>> = {
  'manager-reconfigure-container.cjs': 'tested by test/integration/manager-jobs.test.ts',
  'manager-start-stop-container.cjs': 'tested by test/integration/manager-jobs.test.ts',
  'manager-container-status.cjs': 'tested by test/integration/manager-jobs.test.ts',
  'manager-jest.test.cjs': 'tested by test/package/package.test.ts',
  'build-deployment.mjs': 'nothing',
  'exec-and-logs.mjs': 'tested by test/unit/exec-logs-example.test.ts',
  'provision.mjs': 'cluster',
  'provision.cjs': 'cluster',
  'progress.mjs': 'cluster',
  'manager-create-container.cjs': 'manager',
  'status.mjs': 'tested by test/integration/status-examples.test.ts',
  'list.cjs': 'tested by test/integration/status-examples.test.ts',
  'statuses-live.mjs': 'tested by test/integration/status-examples.test.ts',
  'stop-start.mjs': 'tested by test/integration/examples-lifecycle.test.ts',
  'restart.mjs': 'tested by test/integration/examples-lifecycle.test.ts',
  'reconfigure.mjs': 'tested by test/integration/examples-lifecycle.test.ts',
  'remove.mjs': 'tested by test/integration/examples-lifecycle.test.ts',
  'express-live.cjs': 'tested by test/integration/live-ui-server.test.ts',
  'check-cluster.mjs': 'tested by test/integration/check.test.ts',
  'nodes-and-fits.mjs': 'tested by test/integration/check.test.ts',
  'manager-node-check.cjs': 'tested by test/integration/check.test.ts',
  'require-commonjs.cjs': 'tested by test/package/package.test.ts',
  'import-esm.mjs': 'tested by test/package/package.test.ts',
};

export function exampleFiles(): string[] {
  return readdirSync(`${ROOT}examples`).sort();
}

export function exampleSource(file: string): string {
  return readFileSync(`${ROOT}examples/${file}`, 'utf8');
}

/** The markdown files whose code blocks must be examples: README.md, docs/*.md and the other READMEs. */
export function documentationFiles(): string[] {
  const docs = readdirSync(`${ROOT}docs`)
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', 'bench/README.md', 'scripts/control-plane/README.md', ...docs.sort()];
}

/** Info strings of code blocks that are code: each such block must be an example file. */
export const CODE_LANGUAGES: ReadonlySet<string> = new Set(['js', 'javascript', 'mjs', 'cjs', 'ts', 'typescript', 'jsx', 'tsx']);
/** Info strings of blocks that are not run: shell commands, transcripts, pictures. */
export const NON_CODE_LANGUAGES: ReadonlySet<string> = new Set(['sh', 'console', 'text', 'yaml']);

export interface FencedBlock {
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The info string's first word, '' when there is none. */
  readonly language: string;
  /** The lines between the fences, each ending in '\n'. */
  readonly body: string;
  /**
   * Set when the line before the fence is `<!-- excerpt: PATH -->`: the block is lines of
   * that file (code Manager adds to its own files, as it stands in the Manager-shaped
   * test app that runs it), checked by test/unit/docs-quotes.test.ts.
   */
  readonly excerptOf?: string;
}

const EXCERPT = /^<!-- excerpt: (\S+) -->$/;

/** The fenced code blocks (``` or ~~~) of a markdown file. */
export function fencedBlocks(file: string): FencedBlock[] {
  const lines = readFileSync(`${ROOT}${file}`, 'utf8').split('\n');
  const blocks: FencedBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/.exec(lines[index] ?? '');
    if (!open) continue;
    const fence = open[1] ?? '```';
    const start = index;
    const body: string[] = [];
    for (index++; index < lines.length && !isClosingFence(lines[index] ?? '', fence); index++) body.push(`${lines[index]}\n`);
    const excerptOf = EXCERPT.exec(lines[start - 1] ?? '')?.[1];
    blocks.push({
      file,
      line: start + 1,
      language: (open[2] ?? '').toLowerCase(),
      body: body.join(''),
      ...(excerptOf ? { excerptOf } : {}),
    });
  }
  return blocks;
}

function isClosingFence(line: string, fence: string): boolean {
  const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
  return close !== null && close[1]![0] === fence[0] && close[1]!.length >= fence.length;
}

export interface ExampleRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `node examples/<file> [args]` from the repository root, as a reader would, with `env`
 * on top of this process's environment. Killed (code null) if it does not exit on its own.
 */
export function runExample(
  file: string,
  env: Record<string, string> = {},
  timeoutMs = 60_000,
  args: readonly string[] = [],
): Promise<ExampleRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`examples/${file}`, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    });
  });
}
