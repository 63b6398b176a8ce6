// logs on the real node (a real kubelet rotating small logs: containerLogMaxSize 1Mi,
// scripts/control-plane/real-node/configs.ts, and containerd): `logs$` with follow reads a
// container writing numbered lines fast enough for several rotations, every number once and
// in order, and goes on across a restart that replaces the Pod; `kube-provision logs -f`
// prints a line the container writes; a system container's console (a tty) reads clean.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runCli } from '../../src/cli/run.js';
import { logs$, provision, remove, restart, type LogLine } from '../../src/index.js';
import type { KubernetesClient, PodLogStreamParams, TextStreamHandlers } from '../../src/kube/client.js';
import { clusterEnv } from '../support/cluster-env.js';
import { apiFor, kubectl } from '../support/kube.js';
import { REAL_NODE_IMAGES, createRealNodeNamespace, realNodeEnv, realSpec, shellEntrypoint } from '../support/real-node.js';

const api = apiFor('admin');
/** The log requests the follow made, for the record: the real client, each call noted. */
const logRequests: { pod: string; params: PodLogStreamParams }[] = [];
const noted: KubernetesClient = new Proxy(api, {
  get(target, property) {
    if (property === 'streamPodLog') {
      return (namespace: string, pod: string, params: PodLogStreamParams, handlers: TextStreamHandlers) => {
        logRequests.push({ pod, params });
        return target.streamPodLog(namespace, pod, params, handlers);
      };
    }
    const value: unknown = Reflect.get(target, property, target);
    return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
  },
});
let namespace: string;
let providerId: string;

// Numbered lines of about 1 KB, up to half a MB a second: past the 1 MiB rotation size
// between two of the kubelet's checks (every 10 s), and many lines in each second.
const WRITER = `i=0; pad=$(head -c 1000 /dev/zero | tr '\\0' x); while true; do echo "n=$i $pad"; i=$((i+1)); if [ $((i % 50)) -eq 0 ]; then sleep 0.1; fi; done`;

beforeAll(async () => {
  namespace = createRealNodeNamespace('rn-logs');
  const spec = realSpec({ namespace, entrypoint: shellEntrypoint(WRITER) });
  providerId = (await provision(api, spec, { timeoutMs: 120_000 })).providerId;
}, 150_000);

afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

const numberOf = (line: LogLine): number => Number(/^n=(\d+) /.exec(line.text)?.[1] ?? -1);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The first number that breaks 0, 1, 2, ... (a line lost or repeated), or undefined. */
function firstBreak(numbers: readonly number[]): string | undefined {
  const index = numbers.findIndex((number, at) => number !== at);
  return index === -1 ? undefined : `line ${index} is n=${numbers[index]}`;
}

/** The rotated files the kubelet left for this namespace's Pods (0.log.<time>), by name. */
function rotatedFiles(): string[] {
  const podLogs = join(dirname(realNodeEnv().logDir), 'pod-logs');
  const names: string[] = [];
  for (const pod of readdirSync(podLogs).filter((name) => name.startsWith(`${namespace}_`))) {
    for (const container of readdirSync(join(podLogs, pod))) {
      for (const file of readdirSync(join(podLogs, pod, container))) if (/\.log\.\d{8}-\d{6}/.test(file)) names.push(`${pod}/${file}`);
    }
  }
  return names;
}

describe('logs -f on the real node', () => {
  it('follows across several log rotations and a restart: every number once, in order', async () => {
    const lines: LogLine[] = [];
    let failure: unknown;
    const subscription = logs$(noted, providerId, { follow: true }).subscribe({
      next: (line) => lines.push(line),
      error: (error: unknown) => (failure = error),
    });
    try {
      const rotations = new Set<string>();
      let linesAtThirdRotation: number | undefined;
      // Three rotations seen on the node, and the follow well past the third.
      for (const end = Date.now() + 150_000; Date.now() < end && failure === undefined;) {
        for (const name of rotatedFiles()) rotations.add(name.replace(/\.gz$/, ''));
        if (rotations.size >= 3) linesAtThirdRotation ??= lines.length;
        if (linesAtThirdRotation !== undefined && lines.length > linesAtThirdRotation + 3_000) break;
        await sleep(250);
      }
      expect(failure, String(failure)).toBeUndefined();
      expect(rotations.size, 'rotations seen on the node').toBeGreaterThanOrEqual(3);
      expect(lines.length, `lines when the third rotation was seen: ${linesAtThirdRotation}`).toBeGreaterThan(
        (linesAtThirdRotation ?? Infinity) + 3_000,
      );
      const pod = lines[0]?.pod ?? '';
      await restart(api, providerId, { timeoutMs: 120_000 });
      for (const end = Date.now() + 60_000; lines.filter((line) => line.pod !== pod).length < 200 && Date.now() < end;) {
        await sleep(100);
      }
      expect(failure, String(failure)).toBeUndefined();
      const before = lines.filter((line) => line.pod === pod).map(numberOf);
      const after = lines.filter((line) => line.pod !== pod).map(numberOf);
      expect(firstBreak(before), `first Pod: ${before.length} lines`).toBeUndefined();
      expect(after.length).toBeGreaterThanOrEqual(200);
      expect(firstBreak(after), `second Pod: ${after.length} lines`).toBeUndefined();
      expect(new Set(lines.map((line) => line.pod)).size).toBe(2);
      // For the record: how the first Pod's log was read (follows opened, looks at its last line).
      const ofPod = logRequests.filter((request) => request.pod === pod);
      const follows = ofPod.filter((request) => request.params.follow === true).length;
      const looks = ofPod.filter((request) => request.params.tailLines === 1).length;
      console.log(`${pod}: ${before.length} lines, ${rotations.size} rotations seen, ${follows} follows opened, ${looks} looks`);
    } finally {
      subscription.unsubscribe();
    }
  }, 300_000);

  it('kube-provision logs -f prints a line the container writes, until interrupted', async () => {
    const interrupt = new AbortController();
    const out: string[] = [];
    const exited = runCli(['logs', '-f', '--tail', '1', '--kubeconfig', clusterEnv().kubeconfigs.admin, providerId], {
      stdout: (line) => out.push(line),
      stderr: (line) => out.push(`stderr: ${line}`),
      signal: interrupt.signal,
    });
    // Two lines: the tail, then one written after the follow began.
    for (const end = Date.now() + 20_000; out.length < 2 && Date.now() < end;) await sleep(50);
    interrupt.abort();
    expect(await exited).toBe(130);
    expect(out.length).toBeGreaterThanOrEqual(2);
    expect(out.slice(0, 2).every((line) => /^n=\d+ x+$/.test(line))).toBe(true);
  }, 60_000);

  it("a system container's console reads clean: no carriage return, no escape codes", async () => {
    const spec = realSpec({
      namespace,
      image: REAL_NODE_IMAGES.systemBookworm,
      entrypoint: '/sbin/init',
      cpus: 1,
      memoryMb: 256,
      ports: [{ port: 22 }],
      runtimeClass: realNodeEnv().systemContainerRuntimeClass,
    });
    const created = await provision(api, spec, { timeoutMs: 120_000 });
    try {
      const raw = kubectl(['logs', '-n', namespace, `deployment/${created.providerId.split('/')[1]}`]);
      // The console as the kubelet keeps it: a tty's line ends.
      expect(raw).toContain('\r');
      const lines: LogLine[] = [];
      await new Promise<void>((resolve, reject) =>
        logs$(api, created.providerId).subscribe({ next: (line) => lines.push(line), error: reject, complete: resolve }),
      );
      expect(lines.length).toBeGreaterThan(10);
      expect(lines.some((line) => /systemd|Reached target|Started/.test(line.text))).toBe(true);
      // Any control character but a tab: a carriage return, an escape (ANSI), a bell.
      const dirty = lines.filter((line) => [...line.text].some((char) => (char < ' ' && char !== '\t') || char === '\u007f'));
      expect(dirty.map((line) => JSON.stringify(line.text))).toEqual([]);
    } finally {
      await remove(api, created.providerId, { containerId: Number(spec.containerId), timeoutMs: 60_000 });
    }
  }, 200_000);
});
