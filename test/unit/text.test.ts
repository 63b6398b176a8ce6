// Control-character escaping: one event, one line. Pure functions; the masking of
// credentials is in mask.test.ts, the end-to-end checks in credential-matrix.test.ts.
import { describe, expect, it } from 'vitest';
import { InvalidSpecError } from '../../src/errors/input.js';
import { UnknownContextError } from '../../src/errors/kubeconfig.js';
import { escapeControlCharacters, jsonLine, oneLine } from '../../src/text.js';

describe('control characters', () => {
  it('escapes every control character, C1 and the Unicode line separators included', () => {
    expect(escapeControlCharacters('a\nb\rc\td\u001be\u0000f\u007fg\u0085h\u2028i\u2029j')).toBe(
      'a\\nb\\rc\\td\\u001be\\u0000f\\u007fg\\u0085h\\u2028i\\u2029j',
    );
    expect(escapeControlCharacters('plain text, émoji 😀')).toBe('plain text, émoji 😀');
  });

  it('oneLine collapses whitespace runs of a relayed message and escapes the rest', () => {
    expect(oneLine('  Back-off pulling image\n  "nginx"\r\n\u001b[31m ')).toBe('Back-off pulling image "nginx" \\u001b[31m');
  });

  it('jsonLine is valid JSON on one line, even with U+2028 and C1 controls inside strings', () => {
    const value = { message: 'a\u2028b\u0085c\nd' };
    const line = jsonLine(value);
    expect(line).not.toMatch(/[\n\u2028\u0085]/);
    expect(JSON.parse(line)).toEqual(value);
  });

  it('every error message is one line: echoed input and relayed text are escaped once, in the base class', () => {
    const context = new UnknownContextError('prod\n12:00:00.000 default/web ready', ['a']);
    expect(context.message).not.toMatch(/\n/);
    expect(context.message).toContain('prod\\n12:00:00.000');
    const spec = new InvalidSpecError([{ path: 'env.A\nB', message: 'bad' }]);
    expect(spec.message).not.toMatch(/\n/);
    expect(spec.issues[0]?.path).toBe('env.A\\nB');
  });
});
