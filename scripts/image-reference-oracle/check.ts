// Cross-checks our image reference grammar (src/input/image-reference.ts) against the parser
// a node uses, built from its Go module: every row of test/support/image-reference-cases.ts,
// then random strings from reference-like pieces. Prints the figures; exits 1 on any
// disagreement. Needs Go; run with `npm run check:image-references`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { imageReferenceProblem } from '../../src/input/image-reference.js';
import { IMAGE_REFERENCE_CASES } from '../../test/support/image-reference-cases.js';

const here = dirname(fileURLToPath(import.meta.url));
const binary = join(mkdtempSync(join(tmpdir(), 'kp-ref-oracle-')), 'oracle');
execFileSync('go', ['build', '-o', binary, '.'], { cwd: here, stdio: 'inherit' });

function oracle(refs: readonly string[]): boolean[] {
  const input = refs.map((ref) => JSON.stringify(ref)).join('\n') + '\n';
  const lines = execFileSync(binary, { input, maxBuffer: 1 << 28 })
    .toString()
    .trim()
    .split('\n');
  return lines.map((line) => line === 'accepted');
}

const pieces = [
  ...['a', 'z', '0', '9', 'A', 'Z', 'ab', '.', '_', '__', '-', '--', ':', '/', '@', ' ', '+', '~', 'é', '[', ']', '%'],
  ...['sha256:', 'sha384:', 'sha512:', 'md5:', 'localhost', 'docker.io', 'index.docker.io', 'library/', 'x.io/', 'Reg/'],
  ...['::1', 'fe80', '8080', '99999', 'latest', ':tag', 'f'.repeat(32), '0123456789abcdef'.repeat(4), 'F'.repeat(64)],
];
const samples = fc.sample(
  fc.array(fc.constantFrom(...pieces), { maxLength: 14 }).map((parts) => parts.join('')),
  { numRuns: 200_000, seed: 17 },
);
const refs = [...new Set([...IMAGE_REFERENCE_CASES.map((c) => c.ref), ...samples])];
const node = oracle(refs);
let accepted = 0;
const disagreements: string[] = [];
refs.forEach((ref, index) => {
  const ours = imageReferenceProblem(ref) === undefined;
  if (node[index]) accepted += 1;
  if (ours !== node[index])
    disagreements.push(`${JSON.stringify(ref)}: node ${node[index] ? 'accepts' : 'refuses'}, we ${ours ? 'accept' : 'refuse'}`);
});
const tableWrong = IMAGE_REFERENCE_CASES.filter((c) => c.accepted !== node[refs.indexOf(c.ref)]);
console.log(`references checked: ${refs.length} (${IMAGE_REFERENCE_CASES.length} table rows), accepted by the node's parser: ${accepted}`);
console.log(`table rows that disagree with the node's parser: ${tableWrong.length}`);
console.log(`disagreements between our grammar and the node's parser: ${disagreements.length}`);
for (const line of disagreements.slice(0, 20)) console.log(`  ${line}`);
process.exitCode = disagreements.length || tableWrong.length ? 1 : 0;
