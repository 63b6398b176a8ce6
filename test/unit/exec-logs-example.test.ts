// examples/exec-and-logs.mjs runs as written (the built package, as a child process)
// against a FAKE API server on 127.0.0.1 (test/support/fake-pod-api.ts) served over TLS:
// the kubeconfig trusts its certificate through certificate-authority-data and sends a
// bearer token, so the WebSocket upgrade and the log read go through the client's TLS and
// credentials. The fake answers cat with a hostname, the shell's `exit 3` with 3, and the
// log with two lines; the real-node suite runs the same calls on a real container.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EXAMPLES, ROOT, runExample } from '../support/examples.js';
import { exitFrame, frame, startFakePodApi, type FakePodApi } from '../support/fake-pod-api.js';
import { selfSigned } from '../support/tls.js';

let fake: FakePodApi;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'exec-logs-example-'));
  const cert = selfSigned(dir, 'server');
  fake = await startFakePodApi({ tls: cert });
  writeFileSync(
    join(dir, 'config'),
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: fake, cluster: {server: "${fake.url}", certificate-authority-data: ${Buffer.from(cert.certPem).toString('base64')}}}]`,
      'users: [{name: fake, user: {token: example-token}}]',
      'contexts: [{name: fake, context: {cluster: fake, user: fake, namespace: default}}]',
      'current-context: fake',
      '',
    ].join('\n'),
  );
});
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

it('examples/exec-and-logs.mjs runs a command, a shell and reads the log, over TLS with the kubeconfig token', async () => {
  expect(EXAMPLES['exec-and-logs.mjs']).toBe('tested by test/unit/exec-logs-example.test.ts');
  expect(existsSync(`${ROOT}dist/index.js`), 'dist/ is missing: run `npm run build` (npm test does)').toBe(true);
  fake.exec = (socket, request) => {
    if (request.command[0] === 'cat') {
      socket.send(frame(1, 'web-7c9f5d-aaaaa\n'));
      socket.send(exitFrame(0));
      socket.close();
      return;
    }
    socket.on('message', (data: Buffer) => {
      if (data[0] === 0 && data.subarray(1).toString().includes('exit 3')) {
        socket.send(frame(1, 'hello\r\n'));
        socket.send(exitFrame(3));
        socket.close();
      }
    });
  };
  fake.log = (_pod, _query, res) => res.writeHead(200).end('2026-12-05T05:00:01.000000001Z started\n2026-12-05T05:00:02.5Z ready\n');
  const run = await runExample('exec-and-logs.mjs', { KUBECONFIG_PATH: join(dir, 'config'), PROVIDER_ID: 'default/web' });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout.split('\n')).toEqual([
    'exit 0: web-7c9f5d-aaaaa',
    'hello\r',
    'shell exit 3 (bash)',
    '2026-12-05T05:00:01.000000001Z started',
    '2026-12-05T05:00:02.5Z ready',
    '',
  ]);
  expect(fake.seen.exec.map((request) => request.authorization)).toEqual(['Bearer example-token', 'Bearer example-token']);
  expect(fake.seen.exec[1]?.query.get('tty')).toBe('true');
});
