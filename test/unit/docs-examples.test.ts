// docs/status.md quotes its examples: each quoted file must appear in it as written, so the
// doc cannot drift from the code the integration suite runs (test/integration/status-examples.test.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('docs/status.md', () => {
  const doc = read('docs/status.md');
  const quoted = [...doc.matchAll(/\(`(examples\/[^`]+)`\)/g)].map((match) => match[1]!);

  it('names the examples it quotes', () => {
    expect(quoted).toEqual(['examples/status.mjs', 'examples/list.cjs', 'examples/statuses-live.mjs']);
  });

  it.each(quoted)('quotes %s exactly as the file reads', (path) => {
    expect(doc).toContain(read(path).trimEnd());
  });
});
