// The library's Service on the real node (issue 23): the address provision returns is the
// Service's ClusterIP, and a GET from this machine (through kube-proxy, as Manager's nginx
// would connect) answers the moment provision resolves, with no retry: ready means
// reachable. The same address answers after stop and start and after restart, from a new
// Pod (a new Pod IP); a ports change keeps the Pod; after delete the address is dead.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { provision, remove, restart, setPorts, start, status, stop } from '../../src/index.js';
import { apiFor, kubectl } from '../support/kube.js';
import {
  HTTPD_PORT,
  createRealNodeNamespace,
  eventuallyServes,
  getFromMachine,
  podsOf,
  serviceClusterIp,
  startCountingSpec,
  startLines,
} from '../support/real-node.js';

let namespace: string;
beforeAll(() => {
  namespace = createRealNodeNamespace('rn-svc');
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

const timeoutMs = 60_000;

/** The one Pod of the workload that runs now: its UID and IP. */
function runningPod(containerId: number): { uid: string; ip: string } {
  const pods = podsOf(namespace, containerId);
  expect(pods).toHaveLength(1);
  return { uid: pods[0]!.metadata.uid, ip: pods[0]!.status.podIP ?? '' };
}

/** The address's answer at once (no retry): 200, and the start lines it served. */
async function answersAtOnce(url: string, step: string): Promise<string[]> {
  const response = await getFromMachine(url);
  expect(response.status, `${step}: HTTP status at once`).toBe(200);
  return startLines(response.body);
}

/**
 * Until the address no longer reaches the container: refused, or no answer, or an answer
 * that is not the container's (an address without kube-proxy's rules leaves the machine,
 * and this machine's network answers any such HTTP request with a 404).
 */
async function eventuallyNotServing(url: string, withinMs = 15_000): Promise<string> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    let last: string;
    try {
      const response = await getFromMachine(url, 1_000);
      if (response.status !== 200 || startLines(response.body).length === 0) return `HTTP ${response.status}`;
      last = `HTTP ${response.status}: ${response.body.slice(0, 200)}`;
    } catch (error) {
      return (error as Error).message;
    }
    if (Date.now() >= deadline) throw new Error(`${url} still serves the container ${withinMs} ms after delete (last: ${last})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('a container’s Service on the real node', () => {
  it('answers at the address provision returned as soon as it resolves, through its whole life, and not after delete', async () => {
    const spec = startCountingSpec({ dir: '/www' }, { ports: [{ port: HTTPD_PORT }] });
    const containerId = Number(spec.containerId);
    const created = await provision(apiFor(), { namespace, ...spec }, { timeoutMs });
    const { providerId } = created;
    const address = created.address ?? '';
    expect(address).toBe(serviceClusterIp(namespace, created.name));
    expect(address).toMatch(/^10\.0\.0\.\d+$/);
    const url = `http://${address}:${HTTPD_PORT}/starts.txt`;

    // Ready means reachable: the first GET after provision resolves answers.
    const first = await answersAtOnce(url, 'provision');
    expect(first).toHaveLength(1);
    const seen = new Set(first);
    const pods = [runningPod(containerId)];
    expect(pods[0]!.ip).not.toBe(address);

    await stop(apiFor(), providerId, { timeoutMs });
    expect(podsOf(namespace, containerId)).toEqual([]);
    await start(apiFor(), providerId, { timeoutMs });
    // After a stop no old Pod is left to answer: the one start line is the new Pod's.
    const afterStart = await answersAtOnce(url, 'stop+start');
    expect(afterStart).toHaveLength(1);
    expect(seen.has(afterStart[0]!), 'stop+start: the new Pod answers').toBe(false);
    seen.add(afterStart[0]!);
    pods.push(runningPod(containerId));

    await restart(apiFor(), providerId, { timeoutMs });
    // The address answers at once; the old Pod may still answer for a moment while it stops.
    expect(await answersAtOnce(url, 'restart')).toHaveLength(1);
    const afterRestart = startLines(await eventuallyServes(url, (body) => startLines(body).some((line) => !seen.has(line)), 5_000));
    expect(afterRestart).toHaveLength(1);
    pods.push(runningPod(containerId));

    // A new Pod, a new Pod IP each time; one address throughout.
    expect(new Set(pods.map((pod) => pod.uid)).size).toBe(3);
    expect(pods[1]!.ip).not.toBe(pods[0]!.ip);
    expect(pods[2]!.ip).not.toBe(pods[1]!.ip);
    expect((await status(apiFor(), providerId)).address).toBe(address);

    // A ports change rewrites the Service only: the same Pod, not restarted, still answers.
    const ported = await setPorts(apiFor(), providerId, [{ port: HTTPD_PORT }, { port: 9090 }], { timeoutMs });
    expect(ported.address).toBe(address);
    expect(runningPod(containerId)).toEqual(pods[2]);
    expect(podsOf(namespace, containerId)[0]!.status.containerStatuses?.[0]?.restartCount).toBe(0);
    expect(await answersAtOnce(url, 'setPorts')).toEqual(afterRestart);

    await remove(apiFor(), providerId, { containerId, timeoutMs });
    expect(kubectl(['get', 'services', '-n', namespace, '-o', 'name']).trim()).toBe('');
    expect(podsOf(namespace, containerId)).toEqual([]);
    expect(await eventuallyNotServing(url)).toMatch(/ECONNREFUSED|EHOSTUNREACH|no answer|HTTP 404/);
  });
});
