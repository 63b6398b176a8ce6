// `kube-provision ui` flags, without a cluster: help, and bad input refused with exit 2
// before any kubeconfig is read or any port is opened.
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    stdout: (line) => out.push(line),
    stderr: (line) => err.push(line),
    signal: new AbortController().signal,
  });
  return { code, out, err };
}

describe('kube-provision ui (flags)', () => {
  it('is listed in the top-level help, with its own --help', async () => {
    expect((await run(['--help'])).out[0]).toMatch(/ui +serve a live page/);
    const help = await run(['ui', '--help']);
    expect(help.code).toBe(0);
    expect(help.out[0]).toMatch(/^Usage: kube-provision ui/);
    expect(help.out[0]).toContain('127.0.0.1 only, without authentication');
  });

  it('refuses a bad --port, an unknown flag and a bad --request-timeout with exit 2, naming the flag', async () => {
    for (const [argv, words] of [
      [['ui', '--port', 'http'], '--port must be a whole number'],
      [['ui', '--port', '-1'], '--port'],
      [['ui', '--bind', '0.0.0.0'], "Unknown option '--bind'"],
      [['ui', '--request-timeout', 'soon'], '--request-timeout must be a duration'],
    ] as const) {
      const result = await run([...argv]);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.err[0]).toContain(words);
    }
  });

  it('names a missing kubeconfig (exit 5) without serving anything', async () => {
    const result = await run(['ui', '--port', '0', '--kubeconfig', '/nonexistent/kubeconfig']);
    expect(result.code).toBe(5);
    expect(result.err[0]).toMatch(/KubeconfigNotFoundError/);
  });
});
