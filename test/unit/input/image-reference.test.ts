// Image references are checked by the grammar a node applies (the kubelet and containerd's
// reference parser, "normalized named" form). The table is drawn from that parser's own
// test cases (test/support/image-reference-cases.ts); `npm run check:image-references`
// checks every row, and 200,000 random strings, against the parser itself.
import { describe, expect, it } from 'vitest';
import { imageReferenceProblem, isValidImageReference } from '../../../src/input/image-reference.js';
import { describeValue } from '../../../src/input/given.js';
import { parseWorkloadSpec } from '../../../src/input/workload-spec.js';
import { InvalidSpecError } from '../../../src/errors/input.js';
import { IMAGE_REFERENCE_CASES } from '../../support/image-reference-cases.js';

const spec = (image: string) => ({ containerId: 1, nodeId: 1, hostname: 'web', image, cpus: 1, memoryMb: 64 });

describe('image references: what a node accepts, we accept', () => {
  it.each(IMAGE_REFERENCE_CASES.filter((c) => c.accepted).map((c) => [c.why, c.ref]))('%s: %j', (_why, ref) => {
    expect(imageReferenceProblem(ref)).toBeUndefined();
    expect(isValidImageReference(ref)).toBe(true);
    // Passed on exactly as given.
    expect(parseWorkloadSpec(spec(ref)).image).toBe(ref);
  });
});

describe('image references: what a node refuses (InvalidImageName), we refuse before any request', () => {
  it.each(IMAGE_REFERENCE_CASES.filter((c) => !c.accepted).map((c) => [c.why, c.ref]))('%s: %j', (_why, ref) => {
    const problem = imageReferenceProblem(ref);
    expect(problem).toEqual(expect.any(String));
    expect(isValidImageReference(ref)).toBe(false);
    let error: unknown;
    try {
      parseWorkloadSpec(spec(ref));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidSpecError);
    // The rule, then the reference refused (cut when long).
    expect((error as InvalidSpecError).issues).toEqual([{ path: 'image', message: `${problem} (got ${describeValue(ref)})` }]);
    // One line, whatever the reference held.
    expect((error as Error).message).not.toMatch(/[\n\r]/);
  });
});

describe('image references: the message names the rule', () => {
  it.each([
    ['Nginx', /repository path "Nginx" must be lowercase/],
    ['test:5000/Uppercase/lowercase:tag', /repository path "Uppercase\/lowercase" must be lowercase/],
    ['1a3f5e7d9c1b3a5f7e9d1c3b5a7f9e1d3c5b7a9f1e3d5d7c9b1a3f5e7d9c1b3a', /image ID/],
    [`app@md5:${'0'.repeat(64)}`, /"md5" is not one a node can verify/],
    [`app@sha256:${'0'.repeat(63)}`, /exactly 64 hex digits, not 63/],
    ['foo.com:http/bar', /the registry "foo.com:http"/],
    ['example.com/..dots/myimage', /path component "..dots"/],
    ['app:.tag', /the tag ".tag"/],
    ['a'.repeat(248), /at most 255 characters \(it has 256, "library\/" included\)/],
    [' nginx', /whitespace/],
  ])('%j', (ref, rule) => {
    expect(imageReferenceProblem(ref)).toMatch(rule);
  });
});
