// Real traffic: a container serving HTTP on the real node answers from this machine at its
// Pod IP (the bridge network) and at a Service's ClusterIP (through kube-proxy's rules),
// and the Service's address answers again after a stop and a start, when the Pod (and its
// IP) is new, and after a restart and a reconfigure (each answer names the Pod that gave
// it: the new one). The Service here is made with kubectl, so this shows the node's
// network, not the library's Service (the network issue's test goes through its own).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { provision, start, stop } from '../../src/index.js';
import { apiFor, kubectl, kubectlJson } from '../support/kube.js';
import {
  HTTPD_INDEX,
  HTTPD_PORT,
  createRealNodeNamespace,
  eventuallyServes,
  getFromMachine,
  podsOf,
  serviceClusterIp,
  servingSpec,
  startCountingSpec,
  startLines,
  startLinesAt,
  throughLifecycle,
} from '../support/real-node.js';

let namespace: string;
beforeAll(() => {
  namespace = createRealNodeNamespace('rn-traffic');
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

/**
 * A Service made by kubectl for the Deployment, on port 80. Not named like the workload and
 * without its labels (`expose` copies the Deployment's, the library's managed ones): else
 * the library takes it for the workload's own Service and waits for it to route.
 */
function exposeWithKubectl(deployment: string): string {
  const name = `${deployment}-kubectl`;
  kubectl([
    'expose',
    'deployment',
    deployment,
    '-n',
    namespace,
    '--name',
    name,
    '--labels',
    'made-by=kubectl',
    '--port',
    '80',
    '--target-port',
    String(HTTPD_PORT),
  ]);
  return name;
}

describe('traffic to a container on the real node', () => {
  it('answers at its Pod IP and at a ClusterIP through kube-proxy, and at the same ClusterIP after stop and start', async () => {
    const spec = servingSpec({ dir: '/www' });
    const { providerId } = await provision(apiFor(), { namespace, ...spec }, { timeoutMs: 60_000 });
    const [pod] = podsOf(namespace, Number(spec.containerId));
    expect(await eventuallyServes(`http://${pod?.status.podIP}:${HTTPD_PORT}/`)).toBe(HTTPD_INDEX);

    const name = exposeWithKubectl(String(spec.hostname));
    const clusterIp = kubectlJson<{ spec: { clusterIP: string } }>(['get', 'service', name, '-n', namespace]).spec.clusterIP;
    expect(clusterIp).toMatch(/^10\.0\.0\.\d+$/);
    expect(await eventuallyServes(`http://${clusterIp}/`)).toBe(HTTPD_INDEX);

    await stop(apiFor(), providerId, { timeoutMs: 60_000 });
    expect(podsOf(namespace, Number(spec.containerId))).toEqual([]);
    // No endpoint: kube-proxy rejects the connection at once.
    await expect(getFromMachine(`http://${clusterIp}/`)).rejects.toThrow(/ECONNREFUSED|no answer/);

    await start(apiFor(), providerId, { timeoutMs: 60_000 });
    const [restarted] = podsOf(namespace, Number(spec.containerId));
    expect(restarted?.metadata.name).not.toBe(pod?.metadata.name);
    expect(await eventuallyServes(`http://${clusterIp}/`)).toBe(HTTPD_INDEX);
  });

  it('reaches the new Pod at the same ClusterIP after stop and start, restart and reconfigure', async () => {
    // Each Pod writes its own start line (no volume: a new Pod starts with a new file), so
    // the answer says which start of the container kube-proxy sent the request to.
    const spec = startCountingSpec({ dir: '/www' });
    const containerId = Number(spec.containerId);
    const { providerId } = await provision(apiFor(), { namespace, ...spec }, { timeoutMs: 60_000 });
    const name = exposeWithKubectl(String(spec.hostname));
    const url = `http://${serviceClusterIp(namespace, name)}/starts.txt`;
    const first = await startLinesAt(url);
    expect(first).toHaveLength(1);

    const seen = new Set(first);
    const pods = new Set([podsOf(namespace, containerId)[0]?.metadata.name]);
    await throughLifecycle(apiFor(), providerId, containerId, async (step, pod) => {
      expect(pods.has(pod), `${step}: a new Pod`).toBe(false);
      pods.add(pod);
      // The old Pod may answer for a moment after a restart: until the new start's line comes.
      const served = startLines(await eventuallyServes(url, (body) => startLines(body).some((line) => !seen.has(line))));
      expect(served, `${step}: one start, the new Pod's, at the same address`).toHaveLength(1);
      seen.add(served[0]!);
    });
  });
});
