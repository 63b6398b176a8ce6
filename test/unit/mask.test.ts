// The masking module (src/mask.ts): known secret values in every form an echo gives them,
// credential shapes whoever printed them, and nothing else. Which kubeconfig values are
// secrets is credential-values.ts. Pure functions, no I/O; the end-to-end checks (CLI,
// library, events, the page) are in credential-matrix.test.ts.
import { describe, expect, it } from 'vitest';
import { KubeProvisionerError } from '../../src/errors/base.js';
import { RolloutFailedError, RolloutTimeoutError } from '../../src/errors/rollout.js';
import { credentialValues, execArgumentSecrets, preparedCredentials } from '../../src/kube/credential-values.js';
import { MASK, Masker, isHighEntropyWord, maskCredentials, maskErrorWith, maskHighEntropyWords, maskValueWith } from '../../src/mask.js';

const TOKEN = 'kp-token-4f1c9a27d3b84e6f9c0a';
const b64 = (text: string, url = false): string => Buffer.from(text).toString(url ? 'base64url' : 'base64');

describe('known values: every form an echo gives them', () => {
  const masker = new Masker([TOKEN, 'pa"ss\\word-8k2']);

  it.each([
    ['as it is', `got ${TOKEN} back`],
    ['split by a newline', `got ${TOKEN.slice(0, 11)}\n${TOKEN.slice(11)} back`],
    ['split by a space', `got ${TOKEN.slice(0, 7)} ${TOKEN.slice(7)} back`],
    ['split by an escaped newline in JSON', JSON.stringify({ echo: `${TOKEN.slice(0, 13)}\n${TOKEN.slice(13)}` })],
    ['base64', `got ${b64(TOKEN)} back`],
    ['base64url', `got ${b64(`x${TOKEN}?>`, true)} back`],
    ['base64 inside a longer base64 text, any alignment', `got ${b64(`ab:${TOKEN}`)} ${b64(`a:${TOKEN}`)} ${b64(`:${TOKEN}`)}`],
    ['percent-encoded in lower case', `?t=${encodeURIComponent(`/${TOKEN}/`).toLowerCase()}`],
    ['percent-encoded twice', `?t=${encodeURIComponent(encodeURIComponent(`a/${TOKEN}`))}`],
    ['percent-encoded character by character', `?t=${[...TOKEN].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')}`],
    ['JSON with \\/ escapes', JSON.stringify({ echo: `a/${TOKEN}` }).replace(/\//g, '\\/')],
    ['JSON with \\uXXXX escapes', `{"echo":"${[...TOKEN].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"}`],
    ['hex', `got ${Buffer.from(TOKEN).toString('hex')} and ${Buffer.from(TOKEN).toString('hex').toUpperCase()}`],
    ['a truncated prefix', `got ${TOKEN.slice(0, 12)}... (cut)`],
    ['a truncated prefix at the very end', `got ${TOKEN.slice(0, 15)}`],
  ])('%s', (_form, text) => {
    const masked = masker.mask(text);
    expect(masked).toContain(MASK);
    expect(masked).not.toContain(TOKEN.slice(0, 10));
    expect(masked).not.toContain(TOKEN.slice(-10));
  });

  it('a password with " and \\ inside JSON inside JSON', () => {
    const text = JSON.stringify({ message: JSON.stringify({ password: 'pa"ss\\word-8k2' }) });
    const masked = masker.mask(text);
    expect(masked).toContain(MASK);
    expect(masked).not.toMatch(/word-8k2|pa\\+"ss/);
    // The rest of the text is left as it was.
    expect(masked.startsWith('{"message":"{\\"password\\":\\"')).toBe(true);
  });

  it('masks the whole secret once, and leaves the text around it', () => {
    expect(masker.mask(`a ${TOKEN} b ${TOKEN}`)).toBe(`a ${MASK} b ${MASK}`);
    expect(masker.mask('nothing here')).toBe('nothing here');
  });

  it('a value shorter than 8 characters is masked only where it stands alone', () => {
    const short = new Masker(['team', 'ab']);
    expect(short.mask('profile team not found')).toBe(`profile ${MASK} not found`);
    expect(short.mask('password=ab;')).toBe(`password=${MASK};`);
    expect(short.mask('team-a/team-web2 created Deployment')).toBe('team-a/team-web2 created Deployment');
    expect(short.mask('about abc teams')).toBe('about abc teams');
  });

  it('learns what an authenticator returned, keeping only the latest sets', () => {
    const learner = new Masker();
    for (let index = 0; index < 6; index += 1) learner.learn([`minted-token-number-${index}`]);
    expect(learner.mask('Bearer minted-token-number-5')).toBe(`Bearer ${MASK}`);
    expect(learner.mask('x minted-token-number-2 y')).toBe(`x ${MASK} y`);
    // Six sets learned, four kept: the oldest token (long expired) is forgotten.
    expect(learner.size).toBe(4);
  });
});

describe('credential shapes, whoever printed them', () => {
  it.each([
    ['a JWT', 'token eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJzdWIiOiJzeXN0ZW06c2EifQ.c2lnbmF0dXJlLWJ5dGVz ok', 'eyJzdWIi'],
    ['a JWT cut short', 'stderr: eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJzdWIiOiJz', 'eyJhbGciOiJS'],
    ['Bearer', 'Authorization: Bearer opaque-7d9f2c1b8a', 'opaque-7d9f'],
    ['Basic', 'Authorization: Basic dXNlcjpodW50ZXIy', 'dXNlcjpod'],
    ['token=', 'failed: token=abc123def456&x=1', 'abc123def456'],
    ['secret=', 'secret = "s3cr3t value"', 's3cr3t value'],
    ['password=', "password='hunter2!'", 'hunter2!'],
    ['client_secret', 'client_secret=Zm9vYmFyYmF6cXV4', 'Zm9vYmFyYmF6'],
    ['clientSecret in JSON', '{"clientId":"app","clientSecret":"cs-8817aa90"}', 'cs-8817aa90'],
    ['AWS_SECRET_ACCESS_KEY=', 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'wJalrXUtn'],
    ['an AWS access key id', 'using AKIAIOSFODNN7EXAMPLE now', 'AKIAIOSFODNN7EXAMPLE'],
    ['password: in YAML', 'password: Tr0ub4dor&3', 'Tr0ub4dor'],
    ['a value after a token-like flag', 'exec: get-token --token 9f8e7d6c5b4a --region us-east-1', '9f8e7d6c5b4a'],
    ['sha256~ (OpenShift)', 'sha256~abcdefghijklmnopqrstuvwxyz0123456789', 'abcdefghijklmnop'],
    ['ghp_ (GitHub)', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'abcdefghijklmnop'],
    [
      'a PEM body',
      '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oY4W1Vv7tXkq\n-----END EC PRIVATE KEY-----',
      'MHcCAQEE',
    ],
    ['a PEM cut short', 'key: -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQ', 'MIIEvQIB'],
    ['base64 of a PEM (key data)', 'client-key-data LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JSUV2', 'LS0tLS1CRUdJTi'],
    ['a long base64 run (a PEM line)', 'line MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7 end', 'MIIEvQIBADAN'],
    ['user:password@ in a URL', 'proxy http://bob:pr0xy-pw@proxy:3128 refused', 'pr0xy-pw'],
  ])('%s', (_shape, text, secret) => {
    const masked = maskCredentials(text);
    expect(masked).toContain(MASK);
    expect(masked).not.toContain(secret);
  });

  it('leaves plain words, names and the messages of the library alone', () => {
    for (const text of [
      'team-a/team-web2 created Deployment',
      'Bearer authentication is required',
      'Invalid workload spec: env.API_TOKEN: must be a valid variable name',
      'users[0].user.token-file /dev/zero is not a regular file (a character device)',
      'Rollout of team-a/web failed: ErrImagePull (container web in pod web-5d8f7c9b4-x1): not found',
      'sha256:4c1b3e0f5a0d6f1c8e7a3b2d9c0e1f2a3b4c5d6e7f8091a2b3c4d5e6f7a8b9c0',
      'the token was rejected: password: missing',
    ]) {
      expect(maskCredentials(text)).toBe(text);
    }
  });
});

describe('errors', () => {
  const masker = new Masker([TOKEN]);
  const mask = (text: string): string => masker.mask(text);

  it("masks a foreign error's name, message and code in a plain copy that drops every other field", () => {
    const foreign = Object.assign(new Error(`spawn failed ${TOKEN}`), { code: 'ENOENT', spawnargs: [TOKEN], headers: { a: TOKEN } });
    foreign.name = `Plugin${TOKEN}`;
    const ours = new KubeProvisionerError('failed', { cause: foreign });
    const masked = maskErrorWith(ours, mask);
    expect(masked).toBe(ours);
    const cause = ours.cause as Error & Record<string, unknown>;
    expect(cause.name).toBe(`Plugin${MASK}`);
    expect(cause.message).toBe(`spawn failed ${MASK}`);
    expect(cause.code).toBe('ENOENT');
    expect(cause.spawnargs).toBeUndefined();
    expect(cause.headers).toBeUndefined();
    expect(JSON.stringify(ours) + String(cause.stack) + String(ours.stack)).not.toContain(TOKEN);
  });

  it('masks our own errors in place: message, stack and every field a relayed text reached', () => {
    const failed = new RolloutFailedError({ namespace: 'team-a', name: 'web' }, 'ErrImagePull', `pull failed: ${TOKEN}`, { pod: 'web-1' });
    maskErrorWith(failed, mask);
    expect(failed.detail).toBe(`pull failed: ${MASK}`);
    expect(failed.message).not.toContain(TOKEN);
    expect(failed.reason).toBe('ErrImagePull');
    expect(failed.namespace).toBe('team-a');
    const timeout = new RolloutTimeoutError({ namespace: 'team-a', name: 'web' }, 1000, {
      state: 'InProgress',
      reason: 'X',
      message: TOKEN,
    });
    maskErrorWith(timeout, mask);
    expect(JSON.stringify(timeout)).not.toContain(TOKEN);
    expect(timeout.lastStatus?.message).toBe(MASK);
  });
});

describe('values', () => {
  const masker = new Masker([TOKEN]);
  const mask = (text: string): string => masker.mask(text);

  it('hands on a plain value with nothing to mask as it is, and copies only the parts that change', () => {
    const clean = { state: 'running', replicas: { ready: 1 }, ports: [{ port: 22 }], at: '2026-12-04T03:00:00.000Z' };
    expect(maskValueWith(clean, mask)).toBe(clean);
    const leaky = { state: 'failed', message: `pull failed: ${TOKEN}`, replicas: clean.replicas, ports: [clean.ports[0], TOKEN] };
    const masked = maskValueWith(leaky, mask);
    expect(masked).not.toBe(leaky);
    expect(masked).toEqual({ state: 'failed', message: `pull failed: ${MASK}`, replicas: { ready: 1 }, ports: [{ port: 22 }, MASK] });
    expect(masked.replicas).toBe(clean.replicas);
    expect(masked.ports[0]).toBe(clean.ports[0]);
    // The original is never written to.
    expect(leaky.message).toBe(`pull failed: ${TOKEN}`);
    expect(leaky.ports[1]).toBe(TOKEN);
    // A key that is a secret is masked too, in a copy.
    const keyed = { [TOKEN]: 1 };
    expect(maskValueWith(keyed, mask)).toEqual({ [MASK]: 1 });
    expect(Object.keys(keyed)).toEqual([TOKEN]);
  });
});

describe('which kubeconfig values are secrets', () => {
  it('an EKS-style exec plugin: its arguments are not secrets (cluster and region names), its env values are', () => {
    const values = credentialValues({
      users: [
        {
          exec: {
            command: 'aws',
            args: ['eks', 'get-token', '--cluster-name', 'team', '--region', 'us-east-1'],
            env: [{ name: 'AWS_PROFILE', value: 'team-admin' }],
          },
        },
      ],
      clusters: [{ server: 'https://eks.example' }],
    });
    expect(values).toEqual(['team-admin']);
  });

  it('an argument after a token-like flag is a secret, in both forms', () => {
    expect(execArgumentSecrets(['get', '--token', 'tok-1', '--client-secret=cs-2', '--api-key', '--verbose', '--name', 'n'])).toEqual([
      'tok-1',
      'cs-2',
    ]);
  });

  it('tokens, passwords (and the pair on the wire), key data, auth-provider secrets, URL passwords; not user names', () => {
    const pem = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n';
    const values = credentialValues({
      users: [
        { token: 'tok-1' },
        { username: 'alice', password: 'pw-2' },
        { keyData: b64(pem) },
        { authProvider: { name: 'oidc', config: { 'refresh-token': 'refresh-5', 'client-secret': 'client-6', 'client-id': 'app' } } },
      ],
      clusters: [{ server: 'https://x', proxyUrl: 'http://bob:proxy-7@proxy:3128' }],
    });
    for (const expected of [
      'tok-1',
      'pw-2',
      b64('alice:pw-2'),
      pem,
      'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC',
      'refresh-5',
      'client-6',
      'proxy-7',
    ]) {
      expect(values).toContain(expected);
    }
    for (const notSecret of ['alice', 'alice:pw-2', 'bob', 'app', 'oidc']) expect(values).not.toContain(notSecret);
  });

  it('learns what the authenticator put into a prepared request', () => {
    expect(preparedCredentials({ headers: { Authorization: 'Bearer minted-8' } })).toEqual(['minted-8']);
    expect(preparedCredentials({ auth: 'u:p' })).toEqual([b64('u:p'), 'p']);
  });
});

describe('maskHighEntropyWords: relayed text (a plugin’s stderr, a server’s message) in no credential shape', () => {
  const token = 'Sp7fQ2xK9mZr4TbW1vLc8NdY';
  const lowercase = 'k3j9x2m7q8w4z1v6b5n0c9r2t7y4u8p3';

  it.each([
    ['a token after a plain word and a space', `token ${token}`, `token ${MASK}`],
    ['a bare token in a sentence', `minted ${token} for you`, `minted ${MASK} for you`],
    ['a token quoted, or at the end of a path', `value "${token}" at /tmp/${token}`, `value "${MASK}" at /tmp/${MASK}`],
    ['a long lowercase token of letters and digits', `session ${lowercase}`, `session ${MASK}`],
  ])('masks %s', (_what, text, masked) => {
    expect(maskHighEntropyWords(text)).toBe(masked);
  });

  it.each([
    ['ordinary words, however long', 'CreateContainerConfigError: couldn\u2019t find key DATABASE_PASSWORD_FROM_SECRET in Secret'],
    ['an image reference with a digest', `registry.example.com:5000/team/app@sha256:${'4f1c9a27d3b84e6f'.repeat(4)}`],
    ['an image reference with a tag', 'ghcr.io/mieweb/opensource-server/manager-agent:v2.14.0-rc3'],
    ['a path', '/var/lib/kubelet/pods/volumes/kubernetes.io~csi/pvc-data/mount'],
    ['a UID', 'pods "web-7c9f5d6b8-x2k9p" (uid 0b1c2d3e-0000-4000-8000-000000000042) not found'],
    ['a commit and a container ID (hex)', `commit ${'a1b2c3d4e5'.repeat(4)} containerd://${'0f3c9a1d2e4b'.repeat(5)}`],
    ['Kubernetes names, long ones too', 'deployment my-very-long-deployment-name-2026-team-a-7c9f5d6b8 in team-a'],
    ['environment variable names', 'AWS_SECRET_ACCESS_KEY_ID_2 and KUBE_PROVISIONER_TIMEOUT_SECONDS'],
    ['a Go type and a field path', 'io.k8s.api.core.v1.PodSpec spec.template.spec.containers[0].resources.limits'],
  ])('keeps %s', (_what, text) => {
    expect(maskHighEntropyWords(text)).toBe(text);
  });

  it('judges a word by length, mixed characters and entropy', () => {
    expect(isHighEntropyWord(token)).toBe(true);
    // Too short, no digit, repetitive (low entropy), hex.
    expect(isHighEntropyWord(token.slice(0, 19))).toBe(false);
    expect(isHighEntropyWord('SupercalifragilisticExpialidocious')).toBe(false);
    expect(isHighEntropyWord('Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1')).toBe(false);
    expect(isHighEntropyWord('4F1C9A27D3B84E6F9C0A4F1C9A27D3B8')).toBe(false);
  });

  it('the shapes-only masker leaves such a word alone: our own text is never judged by entropy', () => {
    expect(maskCredentials(`token ${token}`)).toBe(`token ${token}`);
  });
});
