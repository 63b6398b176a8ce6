// Code quoted in docs/ is the code that runs: every block marked `<!-- quote: PATH -->` must
// equal the file PATH (examples/, run by the integration suite) byte for byte, and every
// block marked `<!-- excerpt: PATH -->` (the lines Manager adds to its own files) must be
// consecutive lines of PATH, indentation aside: the Manager-shaped test app whose files
// hold them is what the tests run (test/support/manager/).
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { documentationFiles, fencedBlocks } from '../support/examples.js';
import { dedent } from '../support/manager-guide.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const QUOTE = /<!-- quote: (\S+) -->\n```[a-z]*\n([\s\S]*?)```/g;

const docs = readdirSync(`${root}docs`).filter((file) => file.endsWith('.md'));
const quotes = docs.flatMap((doc) =>
  [...readFileSync(`${root}docs/${doc}`, 'utf8').matchAll(QUOTE)].map((match) => ({ doc, path: match[1]!, body: match[2]! })),
);

describe('docs quote the example files as they are', () => {
  it('finds the quotes (lifecycle examples and the Role)', () => {
    expect(quotes.map((quote) => quote.path)).toEqual(
      expect.arrayContaining([
        'examples/stop-start.mjs',
        'examples/restart.mjs',
        'examples/reconfigure.mjs',
        'examples/remove.mjs',
        'docs/kube-provisioner-role.yaml',
      ]),
    );
  });

  it.each(quotes.map((quote) => [`${quote.doc}: ${quote.path}`, quote] as const))('%s', (_, quote) => {
    expect(quote.body).toBe(readFileSync(`${root}${quote.path}`, 'utf8'));
  });
});

const excerpts = documentationFiles()
  .flatMap(fencedBlocks)
  .filter((block) => block.excerptOf !== undefined);

function containsConsecutively(file: readonly string[], block: readonly string[]): boolean {
  for (let start = 0; start + block.length <= file.length; start++) {
    if (dedent(file.slice(start, start + block.length)).every((line, index) => line === block[index])) return true;
  }
  return false;
}

describe("docs excerpt Manager's own files as the Manager-shaped test app holds them", () => {
  it("finds the excerpts of Manager's Node model, node routes, container routes, jobs and OpenAPI file", () => {
    expect(new Set(excerpts.map((block) => block.excerptOf))).toEqual(
      new Set([
        'test/support/manager/models/node.cjs',
        'test/support/manager/routers/nodes.cjs',
        'test/support/manager/routers/containers.cjs',
        'test/support/manager/routers/container-sessions.cjs',
        'test/support/manager/sessions-server.cjs',
        'test/support/manager/bin/create-container.cjs',
        'test/support/manager/bin/reconfigure-container.cjs',
        'test/support/manager/openapi-paths.yaml',
      ]),
    );
  });

  it.each(excerpts.map((block) => [`${block.file}:${block.line}: ${block.excerptOf!}`, block] as const))('%s', (_, block) => {
    expect(block.excerptOf!.endsWith('.yaml') ? ['yaml'] : ['js', 'javascript', 'cjs']).toContain(block.language);
    const file = readFileSync(`${root}${block.excerptOf!}`, 'utf8').split('\n');
    const lines = dedent(block.body.replace(/\n$/, '').split('\n'));
    expect(containsConsecutively(file, lines), `the block must be lines of ${block.excerptOf!} as written`).toBe(true);
  });
});
