// The command line's rules, one for every command: a single-value flag given twice is
// refused (exit 2, naming the flag); usage errors are one line without a literal `\n`; an
// empty --kubeconfig says so the same way everywhere; "no answer" from the API server is
// exit code 4 from every command; every command that addresses workloads takes --instance.
// runCli runs in-process; the server that never answers is a local TCP socket that accepts
// and stays silent (unit test; the commands against the real control plane are in
// test/integration/).
import { mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCreateArgs } from '../../../src/cli/args.js';
import { parseLifecycleArgs } from '../../../src/cli/commands/lifecycle-args.js';
import { EXIT } from '../../../src/cli/exit-codes.js';
import { runCli } from '../../../src/cli/run.js';

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { stdout: (l) => out.push(l), stderr: (l) => err.push(l) });
  return { code, out, err };
}

const missing = ['--kubeconfig', '/nonexistent/kubeconfig'];
const SPEC = ['--container-id', '1', '--node-id', '1', '--hostname', 'web', '--image', 'nginx:1.27', '--cpus', '1', '--memory-mb', '64'];

describe('a single-value flag given twice is refused, naming the flag (it kept the last before)', () => {
  it.each([
    ['create', [...SPEC, '--timeout', '1s', '--timeout', '2s'], '--timeout'],
    ['create', [...SPEC, '--hostname', 'web2'], '--hostname'],
    ['create', [...SPEC, '-n', 'a', '--namespace', 'b'], '--namespace'],
    ['create', [...SPEC, '--kubeconfig=/a', '--kubeconfig', '/b'], '--kubeconfig'],
    ['get', ['-o', 'json', '-o', 'wide'], '--output'],
    ['status', ['a/b', '--timeout', '1s', '--timeout', '2s'], '--timeout'],
    ['stop', ['a/b', '--container-id', '1', '--container-id', '2'], '--container-id'],
    ['reconfigure', ['a/b', '--image', 'nginx:1', '--image', 'nginx:2'], '--image'],
    ['check', ['--needs', 'create', '--needs', 'lifecycle'], '--needs'],
    ['nodes', ['--cpus', '1', '--cpus', '2', '--memory-mb', '64'], '--cpus'],
    ['ui', ['--port', '1', '--port', '2'], '--port'],
  ] as const)('%s %j', async (command, argv, flag) => {
    const { code, err } = await run([command, ...argv, ...missing]);
    expect(code).toBe(EXIT.invalidInput);
    expect(err[0]).toBe(`error: UsageError: ${flag} is given more than once; give it once`);
  });

  it('repeatable flags stay repeatable', () => {
    const parsed = parseCreateArgs([...SPEC, '--env', 'A=1', '--env', 'B=2', '--arg', 'x', '--arg', 'y']);
    expect(parsed).toMatchObject({ spec: { env: { A: '1', B: '2' }, args: ['x', 'y'] } });
  });
});

describe('usage errors are one line, as the user would read it', () => {
  it('--timeout -1 (a value that looks like a flag): no literal \\n in the message', async () => {
    const { code, err } = await run(['create', ...SPEC, '--timeout', '-1', ...missing]);
    expect(code).toBe(EXIT.invalidInput);
    expect(err[0]).not.toContain('\\n');
    expect(err[0]).toMatch(/^error: UsageError: .*--timeout.* To give a value that starts with a dash, write --timeout=-1\.$/);
  });

  it.each([['get'], ['status', 'a/b'], ['nodes'], ['check'], ['stop', 'a/b'], ['ui'], ['create', ...SPEC]])(
    '%s --kubeconfig "": "--kubeconfig must not be empty", as create says it',
    async (...argv) => {
      const { code, err } = await run([...argv, '--kubeconfig', '']);
      expect(code).toBe(EXIT.invalidInput);
      expect(err[0]).toBe('error: UsageError: --kubeconfig must not be empty');
    },
  );
});

describe('--instance on every command that addresses workloads', () => {
  it.each(['start', 'stop', 'restart', 'reconfigure', 'delete'] as const)('%s --instance', (command) => {
    const parsed = parseLifecycleArgs(command, [
      'team-a/web',
      '--instance',
      'manager-1',
      '--container-id',
      '42',
      ...(command === 'reconfigure' ? ['--image', 'nginx:1.28'] : []),
    ]);
    expect(parsed).toMatchObject({ instance: 'manager-1' });
  });

  it.each([['get'], ['status', 'a/b'], ['stop', 'a/b'], ['ui']])(
    '%s: an --instance that is no label value is refused (exit 2)',
    async (...argv) => {
      const { code, err } = await run([...argv, '--instance', 'not a label', ...missing]);
      expect(code).toBe(EXIT.invalidInput);
      expect(err[0]).toMatch(/--instance must be a Kubernetes label value/);
    },
  );

  it.each([['get'], ['status'], ['start'], ['stop'], ['restart'], ['reconfigure'], ['delete'], ['ui'], ['create']])(
    '%s --help names --instance',
    async (command) => {
      const { out } = await run([command, '--help']);
      expect(out.join('\n')).toMatch(/--instance ID/);
    },
  );
});

describe('"no answer" from the API server is exit code 4, from every command', () => {
  let server: net.Server;
  const sockets = new Set<Socket>();
  let kubeconfig: string;

  beforeAll(async () => {
    // Accepts connections and never says a word: no TLS handshake, no answer.
    server = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const dir = mkdtempSync(join(tmpdir(), 'kp-silent-'));
    kubeconfig = join(dir, 'config');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: c',
        `clusters: [{name: c, cluster: {server: "https://127.0.0.1:${(server.address() as AddressInfo).port}"}}]`,
        'users: [{name: u, user: {token: silent-token}}]',
        'contexts: [{name: c, context: {cluster: c, user: u, namespace: team-a}}]',
      ].join('\n'),
    );
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it.each([
    ['get', []],
    ['get PROVIDER_ID', ['team-a/web']],
    ['status', ['team-a/web']],
    ['start', ['team-a/web']],
    ['stop', ['team-a/web']],
    ['nodes', []],
    ['check', ['--timeout', '2s']],
  ] as const)('%s', async (name, argv) => {
    const command = name.split(' ')[0]!;
    const { code, out, err } = await run([command, ...argv, '--kubeconfig', kubeconfig, '--request-timeout', '300ms']);
    expect({ code, text: [...out, ...err].join('\n') }).toMatchObject({ code: EXIT.timeout });
  });
});
