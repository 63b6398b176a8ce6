// Code quoted in docs/ is the code that runs: every block marked `<!-- quote: PATH -->` must
// equal the file PATH (examples/, run by the integration suite) byte for byte.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

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
