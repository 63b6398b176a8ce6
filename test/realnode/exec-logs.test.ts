// exec and logs on the real node (a real kubelet and containerd): a command's exit status
// through the library and the CLI, a terminal that falls back to sh (busybox has no bash)
// and whose close ends the session, and a followed log that goes on across the
// kubelet's log rotation (containerLogMaxSize, scripts/control-plane/real-node/configs.ts)
// and across a restart that replaces the Pod, with no line lost or repeated.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runCli } from '../../src/cli/run.js';
import { execCommand, logs$, openTerminal, provision, restart, type LogLine } from '../../src/index.js';
import { clusterEnv } from '../support/cluster-env.js';
import { apiFor, kubectl } from '../support/kube.js';
import { createRealNodeNamespace, realSpec, shellEntrypoint } from '../support/real-node.js';

const logRequests: string[] = [];
const api = apiFor('admin', { onRequest: (info) => (info.path.endsWith('/log') ? logRequests.push(info.path) : undefined) });
let namespace: string;
let providerId: string;

// Numbered lines of about 1 KB, a few hundred KB a second: past the 1 MiB rotation size
// within seconds, at a pace the follow keeps up with.
const WRITER = `i=0; pad=$(head -c 1000 /dev/zero | tr '\\0' x); while true; do echo "n=$i $pad"; i=$((i+1)); if [ $((i % 20)) -eq 0 ]; then sleep 0.1; fi; done`;

beforeAll(async () => {
  namespace = createRealNodeNamespace('rn-exec');
  const spec = realSpec({ namespace, entrypoint: shellEntrypoint(WRITER) });
  providerId = (await provision(api, spec, { timeoutMs: 120_000 })).providerId;
}, 150_000);

afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

const numberOf = (line: LogLine): number => Number(/^n=(\d+) /.exec(line.text)?.[1] ?? -1);

/** Whether the numbers run 0, 1, 2, ... with nothing missing or repeated. */
function consecutive(numbers: readonly number[]): boolean {
  return numbers.every((number, index) => number === index);
}

describe('exec on the real node', () => {
  it('runs a command and returns its exit status and output', async () => {
    const result = await execCommand(api, providerId, ['sh', '-c', 'echo out; echo err >&2; exit 7']);
    expect(result).toEqual({ exitCode: 7, stdout: 'out\n', stderr: 'err\n', truncated: false });
  });

  it('kube-provision exec exits with the command status', async () => {
    const code = await runCli(['exec', '--kubeconfig', clusterEnv().kubeconfigs.admin, providerId, '--', 'sh', '-c', 'exit 9'], {
      stdout: () => undefined,
      stderr: () => undefined,
      terminal: {
        writeStdout: () => undefined,
        writeStderr: () => undefined,
        stdinIsTty: false,
        setRawMode: () => undefined,
        size: () => undefined,
        onResize: () => () => undefined,
      },
    });
    expect(code).toBe(9);
  });

  it('a terminal falls back to sh (no bash in busybox) and close() ends the session', async () => {
    let output = '';
    const terminal = await openTerminal(api, providerId, { columns: 80, rows: 24, onStdout: (data) => (output += data.toString()) });
    terminal.write('echo $((6*7)); sleep 4321\r');
    const deadline = Date.now() + 15_000;
    while (!output.includes('42') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(output).toContain('42');
    expect(terminal.command).toEqual(['sh']);
    const running = await execCommand(api, providerId, ['sh', '-c', 'ps | grep -c "sleep 432[1]"']);
    expect(running.stdout.trim()).toBe('1');
    await terminal.close();
    expect(await terminal.exit).toEqual({ exitCode: null });
  }, 60_000);
});

describe('logs -f on the real node', () => {
  it('follows across the log rotation and a restart with nothing lost or repeated', async () => {
    const lines: LogLine[] = [];
    let failure: unknown;
    const subscription = logs$(api, providerId, { follow: true }).subscribe({
      next: (line) => lines.push(line),
      error: (error: unknown) => (failure = error),
    });
    try {
      const firstPod = async (): Promise<string> => {
        for (const end = Date.now() + 10_000; lines.length === 0 && Date.now() < end;)
          await new Promise((resolve) => setTimeout(resolve, 50));
        return lines[0]?.pod ?? '';
      };
      const pod = await firstPod();
      expect(pod).not.toBe('');
      // Past 20 MB read over more than 10 s, the kubelet (rotating at 1 MiB, checked every
      // 10 s) has rotated the file during the follow: ended it there (we reopen) or followed
      // the new file itself.
      for (const end = Date.now() + 90_000; lines.length < 20_000 && failure === undefined && Date.now() < end;) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(failure, String(failure)).toBeUndefined();
      expect(lines.length).toBeGreaterThanOrEqual(20_000);
      await restart(api, providerId, { timeoutMs: 120_000 });
      for (const end = Date.now() + 30_000; lines.filter((line) => line.pod !== pod).length < 50 && Date.now() < end;) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const before = lines.filter((line) => line.pod === pod).map(numberOf);
      const after = lines.filter((line) => line.pod !== pod).map(numberOf);
      expect(consecutive(before), `first Pod: ${before.length} lines`).toBe(true);
      expect(after.length).toBeGreaterThanOrEqual(50);
      expect(consecutive(after), `second Pod: ${after.length} lines`).toBe(true);
      expect(new Set(lines.map((line) => line.pod)).size).toBe(2);
      // For the record: how many times the follow of the first Pod was opened.
      console.log(`log requests for ${pod}: ${logRequests.filter((path) => path.includes(pod)).length}`);
    } finally {
      subscription.unsubscribe();
    }
  }, 240_000);
});
