// kube-provision exec and logs, run in-process against a FAKE API server on 127.0.0.1
// (test/support/fake-pod-api.ts: plain HTTP reads, pods/log, and a `ws` server speaking the
// channel protocol), through a kubeconfig that points at it. The local terminal is a fake
// too (raw mode and size recorded, resizes sent by the test).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import type { CliIo, CliTerminalIo } from '../../../src/cli/io.js';
import { exitFrame, frame, startFakePodApi, type FakePodApi } from '../../support/fake-pod-api.js';

let fake: FakePodApi;
let dir: string;
let kubeconfig: string;

beforeEach(async () => {
  fake = await startFakePodApi();
  dir = mkdtempSync(join(tmpdir(), 'exec-logs-cli-'));
  kubeconfig = join(dir, 'config');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: fake, cluster: {server: "' + fake.url + '", insecure-skip-tls-verify: true}}]',
      'users: [{name: fake, user: {token: fake-token}}]',
      'contexts: [{name: fake, context: {cluster: fake, user: fake, namespace: default}}]',
      'current-context: fake',
      '',
    ].join('\n'),
  );
});
afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string[];
  stderr: string[];
  bytes: string;
}

function localTerminal(tty: boolean) {
  const state = { raw: [] as boolean[], resize: undefined as (() => void) | undefined, columns: 80, rows: 24, bytes: '' };
  const terminal: CliTerminalIo = {
    writeStdout: (data) => (state.bytes += Buffer.from(data).toString()),
    writeStderr: (data) => (state.bytes += Buffer.from(data).toString()),
    stdinIsTty: tty,
    setRawMode: (raw) => state.raw.push(raw),
    size: () => ({ columns: state.columns, rows: state.rows }),
    onResize: (listener) => {
      state.resize = listener;
      return () => (state.resize = undefined);
    },
  };
  return { state, terminal };
}

async function run(argv: string[], extra: Partial<CliIo> = {}): Promise<Run> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCli([argv[0]!, '--kubeconfig', kubeconfig, '--insecure-skip-tls-verify', ...argv.slice(1)], {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
    ...extra,
  });
  return { code, stdout, stderr, bytes: '' };
}

describe('kube-provision exec', () => {
  it("exits with the command's exit status and passes its output through as bytes", async () => {
    fake.exec = (socket) => {
      socket.send(frame(1, 'no newline'));
      socket.send(exitFrame(42));
      socket.close();
    };
    const { state, terminal } = localTerminal(false);
    const result = await run(['exec', 'default/web', '--', 'sh', '-c', 'printf "no newline"; exit 42'], { terminal });
    expect(result.code).toBe(42);
    expect(state.bytes).toBe('no newline');
    expect(fake.seen.exec[0]?.command).toEqual(['sh', '-c', 'printf "no newline"; exit 42']);
    expect(state.raw).toEqual([]);
  });

  it('-i gives the command our stdin and ends it at our end', async () => {
    const typed: string[] = [];
    fake.exec = (socket) => {
      socket.on('message', (data: Buffer) => {
        if (data[0] === 0) typed.push(data.subarray(1).toString());
        if (data[0] === 255) {
          socket.send(exitFrame(0));
          socket.close();
        }
      });
    };
    const stdin = new PassThrough();
    stdin.end('line 1\n');
    const result = await run(['exec', 'web', '-i', '--', 'cat'], { stdin, terminal: localTerminal(false).terminal });
    expect(result.code).toBe(0);
    expect(typed.join('')).toBe('line 1\n');
  });

  it('-it: a shell on the local terminal in raw mode (restored after), its size sent and resized', async () => {
    const frames: string[] = [];
    const { state, terminal } = localTerminal(true);
    fake.exec = (socket) => {
      socket.on('message', (data: Buffer) => {
        frames.push(`${data[0]}:${data.subarray(1).toString()}`);
        if (frames.length === 1) {
          state.columns = 100;
          state.resize?.();
        }
        if (frames.length === 2) {
          socket.send(exitFrame(0));
          socket.close();
        }
      });
    };
    const stdin = new PassThrough();
    const result = await run(['exec', '-it', 'default/web'], { stdin, terminal });
    expect(result.code).toBe(0);
    expect(fake.seen.exec[0]?.command).toEqual(['bash']);
    expect(frames).toEqual(['4:{"Width":80,"Height":24}', '4:{"Width":100,"Height":24}']);
    expect(state.raw).toEqual([true, false]);
    expect(state.resize).toBeUndefined();
  });

  it('bad flags name the flag and the rule, before any request (exit 2)', async () => {
    const noCommand = await run(['exec', 'default/web']);
    expect(noCommand.code).toBe(2);
    expect(noCommand.stderr[0]).toBe('error: UsageError: exec needs a command after "--", or -it for a shell');
    const notTty = await run(['exec', '-t', 'default/web', '--', 'sh'], { terminal: localTerminal(false).terminal });
    expect(notTty.code).toBe(2);
    expect(notTty.stderr[0]).toContain('-t needs a terminal on stdin');
    const twoIds = await run(['exec', 'default/web', 'ls', '--', 'sh']);
    expect(twoIds.stderr[0]).toContain('exec takes one PROVIDER_ID before "--" and the command after it (got default/web ls before "--")');
    expect(fake.seen.exec).toHaveLength(0);
  });

  it('no running container: exit 5 with what the Pods do', async () => {
    fake.pods = [];
    const result = await run(['exec', 'default/web', '--', 'true']);
    expect(result.code).toBe(5);
    expect(result.stderr[0]).toBe('error: NoRunningContainerError: workload default/web has no container to reach: it has no pod yet');
  });
});

describe('kube-provision logs', () => {
  const T1 = '2026-12-05T05:00:01.000000001Z';
  it('prints the lines, with --timestamps the kubelet time first, tabs kept; passes --tail and --since', async () => {
    fake.log = (_pod, _query, res) => res.writeHead(200).end(`${T1} a\tb\n${T1} c\n`);
    const result = await run(['logs', 'default/web', '--timestamps', '--tail', '2', '--since', '2m']);
    expect(result.code).toBe(0);
    expect(result.stdout).toEqual([`${T1} a\tb`, `${T1} c`]);
    expect(fake.seen.logs[0]?.query.get('tailLines')).toBe('2');
    expect(fake.seen.logs[0]?.query.get('sinceSeconds')).toBe('120');
  });

  it('-f runs until interrupted: exit 130, the request aborted', async () => {
    fake.log = (_pod, _query, res) => {
      res.writeHead(200);
      res.write(`${T1} first\n`);
    };
    const controller = new AbortController();
    const lines: string[] = [];
    const done = runCli(['logs', '-f', 'default/web', '--kubeconfig', kubeconfig, '--insecure-skip-tls-verify'], {
      stdout: (line) => {
        lines.push(line);
        controller.abort(new Error('interrupted'));
      },
      stderr: () => undefined,
      signal: controller.signal,
    });
    expect(await done).toBe(130);
    expect(lines).toEqual(['first']);
    const end = Date.now() + 2_000;
    while (fake.seen.openLogs > 0 && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(fake.seen.openLogs).toBe(0);
  });

  it('bad flags name the flag, the value and the rule (exit 2)', async () => {
    for (const [argv, message] of [
      [['--tail=-1'], 'error: UsageError: --tail must be a whole number of lines >= 0, not "-1"'],
      [['--since', '500ms'], 'error: UsageError: --since must be a duration of at least 1s (such as 10m), not "500ms"'],
      [['--since-time', 'noon'], 'error: UsageError: --since-time must be an RFC 3339 time such as 2026-12-05T04:00:00Z, not "noon"'],
      [['-f', '--previous'], 'error: UsageError: --previous is the run that ended: it cannot be followed (drop -f or --previous)'],
    ] as const) {
      const result = await run(['logs', 'default/web', ...argv]);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr[0]).toBe(message);
    }
    expect(fake.seen.logs).toHaveLength(0);
  });
});
