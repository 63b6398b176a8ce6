// The two helpers every relayed message passes through: the scrubber (credential values
// masked wherever and however they appear) and control-character escaping (one event, one
// line). Pure functions; the end-to-end checks are in credential-matrix.test.ts.
import { describe, expect, it } from 'vitest';
import { InvalidSpecError } from '../../src/errors/input.js';
import { KubeProvisionerError } from '../../src/errors/base.js';
import { UnknownContextError } from '../../src/errors/kubeconfig.js';
import { MASK, Scrubber, credentialValues, preparedCredentials } from '../../src/kube/scrub.js';
import { escapeControlCharacters, jsonLine, oneLine } from '../../src/text.js';

describe('Scrubber', () => {
  it('masks a value wherever it appears, and its JSON-escaped and URL-encoded forms', () => {
    const scrubber = new Scrubber(['s3cr"et/value']);
    expect(scrubber.scrub('a s3cr"et/value b')).toBe(`a ${MASK} b`);
    expect(scrubber.scrub(JSON.stringify({ echo: 'x s3cr"et/value y' }))).toBe(`{"echo":"x ${MASK} y"}`);
    expect(scrubber.scrub(`?q=${encodeURIComponent('s3cr"et/value')}`)).toBe(`?q=${MASK}`);
    expect(scrubber.scrub('nothing here')).toBe('nothing here');
  });

  it('masks values shorter than 4 characters only where they stand alone', () => {
    const scrubber = new Scrubber(['ab']);
    expect(scrubber.scrub('ab')).toBe(MASK);
    expect(scrubber.scrub('password=ab;')).toBe(`password=${MASK};`);
    expect(scrubber.scrub('about abc')).toBe('about abc');
  });

  it('learns credentials later (an exec plugin token), and masks the longest match first', () => {
    const scrubber = new Scrubber(['token']);
    scrubber.add('token-from-plugin');
    expect(scrubber.scrub('Bearer token-from-plugin')).toBe(`Bearer ${MASK}`);
  });

  it('copies decoded JSON with every string scrubbed, keys included, own "__proto__" kept as a key', () => {
    const scrubber = new Scrubber(['hunter22']);
    const value = JSON.parse('{"a":["hunter22",1,{"hunter22":"x"}],"__proto__":"hunter22"}') as unknown;
    const copy = scrubber.scrubValue(value) as Record<string, unknown>;
    expect(JSON.stringify(copy)).toBe(`{"a":["${MASK}",1,{"${MASK}":"x"}],"__proto__":"${MASK}"}`);
  });

  it('scrubs errors: our own in place (message, stack, cause chain), foreign ones replaced by a plain copy', () => {
    const scrubber = new Scrubber(['hunter22']);
    const spawnError = Object.assign(new Error('spawn /bin/plugin hunter22 ENOENT'), {
      code: 'ENOENT',
      spawnargs: ['hunter22'],
      headers: { authorization: 'Bearer hunter22' },
    });
    const ours = new KubeProvisionerError('failed with hunter22', { cause: spawnError });
    const scrubbed = scrubber.scrubError(ours);
    expect(scrubbed).toBe(ours);
    expect(ours.message).toBe(`failed with ${MASK}`);
    expect(ours.stack).not.toContain('hunter22');
    const cause = ours.cause as Error & Record<string, unknown>;
    expect(cause.message).toBe(`spawn /bin/plugin ${MASK} ENOENT`);
    expect(cause.code).toBe('ENOENT');
    expect(cause.spawnargs).toBeUndefined();
    expect(cause.headers).toBeUndefined();
    expect(JSON.stringify(ours) + String(cause.stack)).not.toContain('hunter22');
  });

  it('collects every credential of a kubeconfig: tokens, basic auth (and its header form), keys, exec env and args, auth-provider secrets, URL credentials', () => {
    const pem = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n';
    const values = credentialValues({
      users: [
        { token: 'tok-1' },
        { username: 'alice', password: 'pw-2' },
        { keyData: Buffer.from(pem).toString('base64') },
        { exec: { command: '/bin/plugin', args: ['get', '--secret=arg-3'], env: [{ name: 'X', value: 'env-4' }] } },
        { authProvider: { name: 'oidc', config: { 'refresh-token': 'refresh-5', 'client-secret': 'client-6' } } },
      ],
      clusters: [{ server: 'https://x', proxyUrl: 'http://bob:proxy-7@proxy:3128' }],
    });
    for (const expected of [
      'tok-1',
      'alice',
      'pw-2',
      Buffer.from('alice:pw-2').toString('base64'),
      pem,
      'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC',
      '--secret=arg-3',
      'arg-3',
      'env-4',
      'refresh-5',
      'client-6',
      'proxy-7',
    ]) {
      expect(values).toContain(expected);
    }
  });

  it('learns what the authenticator put into a prepared request', () => {
    expect(preparedCredentials({ headers: { Authorization: 'Bearer minted-8' } })).toEqual(['Bearer minted-8', 'minted-8']);
    expect(preparedCredentials({ auth: 'u:p' })).toEqual([Buffer.from('u:p').toString('base64')]);
  });
});

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
