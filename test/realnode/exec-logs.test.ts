// exec on the real node (a real kubelet and containerd): a command's exit status through
// the library and the CLI, and a terminal that falls back to sh (busybox has no bash) and
// whose close ends the shell and what runs in its foreground, seen from another exec.
// (Logs: logs-follow.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runCli } from '../../src/cli/run.js';
import { execCommand, openTerminal, provision } from '../../src/index.js';
import { clusterEnv } from '../support/cluster-env.js';
import { apiFor, kubectl } from '../support/kube.js';
import { createRealNodeNamespace, realSpec, shellEntrypoint } from '../support/real-node.js';

const api = apiFor('admin');
let namespace: string;
let providerId: string;

// A container that runs until deleted.
const WRITER = 'while true; do sleep 1; done';

beforeAll(async () => {
  namespace = createRealNodeNamespace('rn-exec');
  const spec = realSpec({ namespace, entrypoint: shellEntrypoint(WRITER) });
  providerId = (await provision(api, spec, { timeoutMs: 120_000 })).providerId;
}, 150_000);

afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

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

  it('a terminal falls back to sh (no bash in busybox), and close() ends the shell and its foreground command', async () => {
    let output = '';
    const terminal = await openTerminal(api, providerId, { columns: 80, rows: 24, onStdout: (data) => (output += data.toString()) });
    terminal.write('echo $((6*7)); sleep 4321\r');
    await waitFor(() => output.includes('42'), 15_000);
    expect(output).toContain('42');
    expect(terminal.command).toEqual(['sh']);
    expect(await countOf('sleep 432[1]')).toBe(1);
    // The terminal's shell: "sh" alone (the container's own is "sh -c ...").
    expect(await countOf('^s[h]$')).toBe(1);
    await terminal.close();
    expect(await terminal.exit).toEqual({ exitCode: null });
    // Seen from another exec: neither the sleep nor the shell that ran it is left.
    expect(await goneWithin('sleep 432[1]', 10_000)).toBe(true);
    expect(await goneWithin('^s[h]$', 10_000)).toBe(true);
  }, 60_000);

  it('close() also ends a foreground program that ignores Ctrl-C but reads its input, and the shell', async () => {
    const terminal = await openTerminal(api, providerId, { columns: 80, rows: 24 });
    terminal.write(`sh -c 'trap "" INT; cat; echo ended' marker-7391\r`);
    await waitFor(async () => (await countOf('marker-739[1]')) === 1, 15_000);
    expect(await countOf('marker-739[1]')).toBe(1);
    await terminal.close();
    expect(await goneWithin('marker-739[1]', 10_000)).toBe(true);
    expect(await goneWithin('^s[h]$', 10_000)).toBe(true);
  }, 60_000);
});

/** How many processes in the container match `pattern` (grep's; a bracket keeps grep itself out). */
async function countOf(pattern: string): Promise<number> {
  const result = await execCommand(api, providerId, ['sh', '-c', `ps -o args | grep -c "${pattern}" || true`]);
  return Number(result.stdout.trim());
}

async function goneWithin(pattern: string, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 250))) {
    if ((await countOf(pattern)) === 0) return true;
  }
  return false;
}

async function waitFor(check: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end && !(await check());) await new Promise((resolve) => setTimeout(resolve, 100));
}
