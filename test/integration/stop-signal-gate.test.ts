// A control plane of its own with the ContainerStopSignals feature gate on (the suite's has
// it off, as Kubernetes 1.36 by default): the API server keeps a Pod's lifecycle.stopSignal,
// so `check` says kept and a system container's Pod names systemd's stop signal, as
// written, and a second create adopts it without drift.
import { lastValueFrom, takeWhile, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startCluster, type LocalCluster } from '../../scripts/control-plane/cluster.js';
import { check } from '../../src/cluster/check.js';
import { KubernetesApi } from '../../src/kube/kubernetes-api.js';
import { probeStopSignal } from '../../src/kube/stop-signal-probe.js';
import { provision$ } from '../../src/workload/operations/provision.js';
import { clusterEnv } from '../support/cluster-env.js';
import { sampleSpec } from '../support/kube.js';

let cluster: LocalCluster;
let api: KubernetesApi;

beforeAll(async () => {
  cluster = await startCluster({
    binDir: clusterEnv().binDir,
    apiserverFeatureGates: 'ContainerStopSignals=true',
    handleSignals: false,
    log: () => {},
  });
  api = KubernetesApi.fromConfig({ kubeconfigPath: cluster.kubeconfigPath, namespace: 'default' });
}, 300_000);
afterAll(async () => {
  await cluster?.stop();
});

describe('an API server with ContainerStopSignals on', () => {
  it('check says the stop signal is kept', async () => {
    await expect(probeStopSignal(api, 'default', new AbortController().signal)).resolves.toBe('kept');
    const report = await check(api);
    expect(report.items.find((item) => item.id === 'stop-signal')).toMatchObject({ status: 'pass', stopSignal: 'kept' });
  });

  it("a system container's Pod names SIGRTMIN+3 and its OS, as written; a second create adopts it without drift", async () => {
    const input = sampleSpec({ hostname: 'sys-signal', entrypoint: '/sbin/init', ports: [{ port: 22 }], namespace: 'default' });
    const untilCreated = () =>
      lastValueFrom(
        provision$(api, input, { timeoutMs: 60_000 }).pipe(
          takeWhile((event) => event.type !== 'created' && event.type !== 'adopted', true),
          toArray(),
        ),
      );
    expect((await untilCreated()).map((event) => event.type)).toEqual(['created']);
    const pod = (await api.read('deployments', 'default', 'sys-signal')).spec!.template.spec!;
    expect(pod.containers[0]!.lifecycle).toEqual({ stopSignal: 'SIGRTMIN+3' });
    expect(pod.os).toEqual({ name: 'linux' });
    const again = await untilCreated();
    expect(again).toEqual([expect.objectContaining({ type: 'adopted' })]);
    expect(again[0]).not.toHaveProperty('reconfigured');
  });
});
