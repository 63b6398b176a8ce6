// A container's Service on the real control plane: the ClusterIP allocated by the real
// kube-apiserver, the EndpointSlices written by the real controller manager from KWOK's
// Pod readiness. kubectl, an independent client, cross-checks every step; the CLI runs as
// a child process for the flags Manager's operators type.
import type { V1Deployment, V1EndpointSlice, V1Service } from '../../src/kube/objects.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError } from '../../src/errors/api.js';
import { CONTAINER_ID_LABEL } from '../../src/input/labels.js';
import { RolloutFailedError } from '../../src/errors/rollout.js';
import type { WorkloadDriftError } from '../../src/members/drift.js';
import type { KubernetesApi } from '../../src/kube/kubernetes-api.js';
import { provision } from '../../src/workload/operations/provision.js';
import { reconfigure } from '../../src/workload/operations/reconfigure.js';
import { remove } from '../../src/workload/operations/remove.js';
import { restart } from '../../src/workload/operations/restart.js';
import { setPorts } from '../../src/workload/operations/set-ports.js';
import { start } from '../../src/workload/operations/start.js';
import { status } from '../../src/workload/reads/status.js';
import { list } from '../../src/workload/reads/list.js';
import { stop } from '../../src/workload/operations/stop.js';
import { WorkloadOwnershipError } from '../../src/workload/toolkit/ownership.js';
import { clusterEnv } from '../support/cluster-env.js';
import { apiFor, createNamespace, kubectl, kubectlJson, sampleSpec } from '../support/kube.js';
import { runNode, type ProcessRun } from '../support/run-process.js';

const TIMEOUT = { timeoutMs: 60_000 };
const TWO_PORTS = [{ port: 22 }, { port: 8080, protocol: 'tcp', name: 'web' }];

let namespace: string;
let api: KubernetesApi;
beforeAll(() => {
  namespace = createNamespace('it-network');
  api = apiFor();
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

function cli(args: string[]): Promise<ProcessRun> {
  return runNode(['dist/cli/main.js', ...args], { env: { ...process.env, KUBECONFIG: clusterEnv().kubeconfigPath } });
}

function liveService(name: string): V1Service {
  return kubectlJson<V1Service>(['get', 'service', name, '-n', namespace]);
}

function liveDeployment(name: string): V1Deployment {
  return kubectlJson<V1Deployment>(['get', 'deployment', name, '-n', namespace]);
}

function slicesOf(name: string): V1EndpointSlice[] {
  return kubectlJson<{ items: V1EndpointSlice[] }>(['get', 'endpointslices', '-n', namespace, '-l', `kubernetes.io/service-name=${name}`])
    .items;
}

/** The addresses the real EndpointSlice controller lists as ready. */
function readyEndpoints(name: string): string[] {
  return slicesOf(name).flatMap((slice) =>
    (slice.endpoints ?? []).filter((endpoint) => endpoint.conditions?.ready === true).flatMap((endpoint) => endpoint.addresses ?? []),
  );
}

function readyPodIps(name: string): string[] {
  const deployment = liveDeployment(name);
  const selector = Object.entries(deployment.spec?.selector?.matchLabels ?? {})
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
  const pods = kubectlJson<{
    items: { metadata?: { deletionTimestamp?: string }; status?: { podIP?: string; conditions?: { type: string; status: string }[] } }[];
  }>(['get', 'pods', '-n', namespace, '-l', selector]).items;
  return pods
    .filter((pod) => !pod.metadata?.deletionTimestamp && pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
    .map((pod) => pod.status?.podIP ?? '');
}

describe('a Service per container (real control plane)', () => {
  it('create with two ports: a Service with those ports and the selector, a ready endpoint, the ClusterIP returned; the whole life keeps it', async () => {
    const spec = sampleSpec({ namespace, ports: TWO_PORTS });
    const created = await provision(api, spec, TIMEOUT);
    const { providerId: id, name } = created;

    const service = liveService(name);
    const clusterIp = service.spec?.clusterIP;
    expect(clusterIp).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(created.address).toBe(clusterIp);
    expect(service.spec?.type).toBe('ClusterIP');
    expect(service.spec?.ports?.map((port) => [port.port, port.protocol])).toEqual([
      [22, 'TCP'],
      [8080, 'TCP'],
    ]);
    expect(service.spec?.selector).toEqual(liveDeployment(name).spec?.selector?.matchLabels);
    // Ready means reachable: when provision resolved, the controller had listed the Pod.
    const podIps = readyPodIps(name);
    expect(podIps).toHaveLength(1);
    expect(readyEndpoints(name)).toEqual(podIps);
    expect(await status(api, id)).toMatchObject({ state: 'running', address: clusterIp, podIp: podIps[0], service: { routed: true } });

    // stop: the same ClusterIP, no ready endpoint, offline.
    await stop(api, id, TIMEOUT);
    expect(liveService(name).spec?.clusterIP).toBe(clusterIp);
    await expect.poll(() => readyEndpoints(name), { timeout: 30_000 }).toEqual([]);
    expect(await status(api, id)).toMatchObject({ state: 'offline', address: clusterIp, service: { routed: false } });

    // start: the endpoint again, the same address.
    const started = await start(api, id, TIMEOUT);
    expect(started).toMatchObject({ changed: true });
    expect(readyEndpoints(name)).toEqual(readyPodIps(name));
    expect(liveService(name).spec?.clusterIP).toBe(clusterIp);

    // restart and reconfigure: a new Pod each time, the same address.
    await restart(api, id, TIMEOUT);
    expect(liveService(name).spec?.clusterIP).toBe(clusterIp);
    expect(readyEndpoints(name)).toEqual(readyPodIps(name));
    await reconfigure(api, id, { env: { MODE: 'two' } }, TIMEOUT);
    expect(liveService(name).spec?.clusterIP).toBe(clusterIp);
    expect(readyEndpoints(name)).toEqual(readyPodIps(name));
    expect((await status(api, id)).address).toBe(clusterIp);

    // delete: the Service and its EndpointSlices gone with the Deployment.
    await remove(api, id, { ...TIMEOUT, containerId: String(spec.containerId) });
    expect(kubectl(['get', 'service', name, '-n', namespace, '--ignore-not-found', '-o', 'name']).trim()).toBe('');
    await expect.poll(() => slicesOf(name).length, { timeout: 30_000 }).toBe(0);
  });

  it('changing the ports patches the Service only: the Deployment keeps its generation and its Pod', async () => {
    const spec = sampleSpec({ namespace, ports: [{ port: 22 }] });
    const { providerId: id, name, address } = await provision(api, spec, TIMEOUT);
    const before = liveDeployment(name);
    const podsBefore = readyPodIps(name);

    const changed = await setPorts(api, id, [{ port: 22 }, { port: 53, protocol: 'udp' }], TIMEOUT);
    expect(changed).toMatchObject({ changed: true, address });
    expect(liveService(name).spec?.ports?.map((port) => `${port.port}/${port.protocol}`)).toEqual(['22/TCP', '53/UDP']);
    expect(liveDeployment(name).metadata?.generation).toBe(before.metadata?.generation);
    expect(readyPodIps(name)).toEqual(podsBefore);
    // The same ports again write nothing.
    await expect(setPorts(api, id, [{ port: 22 }, { port: 53, protocol: 'udp' }], TIMEOUT)).resolves.toMatchObject({ changed: false });
  });

  it('kube-provision reconfigure --port and --no-ports (CLI): the Service follows the flags, the Deployment untouched', async () => {
    const spec = sampleSpec({ namespace, ports: [{ port: 22 }] });
    const { providerId: id, name } = await provision(api, spec, TIMEOUT);
    const generation = liveDeployment(name).metadata?.generation;

    const ported = await cli(['reconfigure', id, '--container-id', String(spec.containerId), '--port', '22', '--port', '8080/tcp']);
    expect(ported.stderr).toBe('');
    expect(ported.code).toBe(0);
    expect(liveService(name).spec?.ports?.map((port) => port.port)).toEqual([22, 8080]);
    expect(liveDeployment(name).metadata?.generation).toBe(generation);

    const none = await cli(['reconfigure', id, '--container-id', String(spec.containerId), '--no-ports']);
    expect(none.code).toBe(0);
    expect(kubectl(['get', 'service', name, '-n', namespace, '--ignore-not-found', '-o', 'name']).trim()).toBe('');
    expect(await status(api, id)).toMatchObject({ state: 'running', address: null, service: null });
  });

  it('a foreign Service of the name: ConflictError, and it is left untouched', async () => {
    const spec = sampleSpec({ namespace, ports: [{ port: 22 }] });
    const name = String(spec.hostname);
    kubectl(['create', 'service', 'clusterip', name, '-n', namespace, '--tcp=9999:9999']);
    const before = liveService(name);
    await expect(provision(api, spec, TIMEOUT)).rejects.toBeInstanceOf(ConflictError);
    const after = liveService(name);
    expect(after.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
    expect(after.spec?.ports?.map((port) => port.port)).toEqual([9999]);
  });

  it('a LoadBalancer with no controller: LoadBalancerPending after the grace window, well before the timeout', async () => {
    const spec = sampleSpec({ namespace, ports: [{ port: 80 }], serviceType: 'LoadBalancer' });
    const began = Date.now();
    const failure = await provision(api, spec, { timeoutMs: 120_000, failurePolicy: { loadBalancer: { graceMs: 3_000 } } }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(RolloutFailedError);
    expect(failure).toMatchObject({ reason: 'LoadBalancerPending', kind: 'Service' });
    expect(Date.now() - began).toBeLessThan(60_000);
    // kubectl: the failed create removed the Service and the Deployment it made.
    const name = String(spec.hostname);
    await expect
      .poll(() => kubectl(['get', 'service,deployment', name, '-n', namespace, '--ignore-not-found', '-o', 'name']).trim(), {
        timeout: 30_000,
      })
      .toBe('');
  });

  it("two Manager instances in one namespace never see each other's Services", async () => {
    // Two Manager databases: both have a container with the same id.
    const containerId = Number(sampleSpec().containerId);
    const a = sampleSpec({ namespace, containerId, ports: [{ port: 22 }], instance: 'site-a' });
    const b = sampleSpec({ namespace, containerId, ports: [{ port: 22 }], instance: 'site-b' });
    const [made, other] = await Promise.all([provision(api, a, TIMEOUT), provision(api, b, TIMEOUT)]);
    expect(made.address).not.toBe(other.address);
    // kubectl: each Service carries its instance, and selects only its instance's Pods.
    for (const [spec, result] of [
      [a, made],
      [b, other],
    ] as const) {
      const live = liveService(result.name);
      expect(live.metadata?.labels?.['org.mieweb.opensource-server.instance']).toBe(spec.instance);
      expect(live.spec?.selector).toMatchObject({ 'org.mieweb.opensource-server.instance': spec.instance });
      expect(live.spec?.clusterIP).toBe(result.address);
      expect(readyEndpoints(result.name)).toEqual(readyPodIps(result.name));
    }
    const listed = await list(api, { namespace, instance: 'site-a' });
    const ids = listed.map((snapshot) => snapshot.vmid);
    expect(ids).toContain(made.providerId);
    expect(ids).not.toContain(other.providerId);
    expect(listed.find((snapshot) => snapshot.vmid === made.providerId)?.detail).toMatchObject({ address: made.address });
    // Another instance's workload is not this one's, its Service included.
    expect(await status(api, other.providerId, { instance: 'site-a' })).toMatchObject({ state: 'missing', address: null });
    // Nor can this instance change its ports: refused, the other's Service untouched.
    const before = liveService(other.name).metadata?.resourceVersion;
    await expect(setPorts(api, other.providerId, [{ port: 8080 }], { ...TIMEOUT, instance: 'site-a' })).rejects.toMatchObject({
      name: expect.stringMatching(/^(WorkloadNotFoundError|WorkloadOwnershipError)$/),
    });
    expect(liveService(other.name).metadata?.resourceVersion).toBe(before);
    // Removing one instance's container leaves the other's Service and address.
    await remove(api, made.providerId, { ...TIMEOUT, containerId: String(containerId), instance: 'site-a' });
    expect(kubectl(['get', 'service', made.name, '-n', namespace, '--ignore-not-found', '-o', 'name']).trim()).toBe('');
    expect(liveService(other.name).spec?.clusterIP).toBe(other.address);
    expect(await status(api, other.providerId, { instance: 'site-b' })).toMatchObject({ state: 'running', address: other.address });
  });
});

describe('a Service that can never route to the Pods is named within seconds, never waited out (real control plane)', () => {
  const LONG = { timeoutMs: 120_000 };

  it('ours edited to another selector: restart fails with ServiceMismatch naming the selector, well before the timeout', async () => {
    const spec = sampleSpec({ namespace, ports: [{ port: 22 }] });
    const { providerId: id, name } = await provision(api, spec, TIMEOUT);
    kubectl(['patch', 'service', name, '-n', namespace, '--type=merge', '-p', '{"spec":{"selector":{"app":"someone-else"}}}']);
    // kubectl: the real controller lists no endpoint for it any more.
    await expect.poll(() => readyEndpoints(name), { timeout: 30_000 }).toEqual([]);
    const began = Date.now();
    const failure = await restart(api, id, LONG).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RolloutFailedError);
    expect(failure).toMatchObject({ reason: 'ServiceMismatch', kind: 'Service', object: name });
    // A merge patch adds the label: the selector asks for one the Pods lack, and selects none.
    expect((failure as Error).message).toMatch(/selector \(live app=someone-else,\S*container-id=\d+, needed \S*container-id=\d+\)/);
    expect(Date.now() - began).toBeLessThan(60_000);
    expect(await status(api, id)).toMatchObject({ state: 'failed', reason: 'ServiceMismatch' });
    // Nothing was rewritten behind the user's back.
    expect(liveService(name).spec?.selector).toMatchObject({ app: 'someone-else' });
  });

  it('a foreign Service with our name and labels aimed at another port: restart names its ports; provision with ports reports the drift', async () => {
    const spec = sampleSpec({ namespace });
    const { providerId: id, name } = await provision(api, spec, TIMEOUT);
    const deployment = liveDeployment(name);
    const foreign: V1Service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace, labels: deployment.metadata?.labels ?? {} },
      spec: {
        selector: deployment.spec?.selector?.matchLabels ?? {},
        ports: [{ name: 'tcp-22', port: 22, protocol: 'TCP', targetPort: 2222 }],
      },
    };
    kubectl(['apply', '-f', '-'], { input: JSON.stringify(foreign) });
    // kubectl: the real controller lists the Pod, on port 2222, not 22.
    await expect
      .poll(() => slicesOf(name).flatMap((slice) => (slice.ports ?? []).map((port) => port.port)), { timeout: 30_000 })
      .toEqual([2222]);
    const began = Date.now();
    const failure = await restart(api, id, LONG).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'RolloutFailedError', reason: 'ServiceMismatch', kind: 'Service' });
    expect((failure as Error).message).toContain('ports (live 22/tcp → 2222, needed 22/tcp → 22)');
    expect(Date.now() - began).toBeLessThan(60_000);

    const before = liveService(name).metadata?.resourceVersion;
    const drift = await provision(api, { ...spec, ports: [{ port: 22 }] }, LONG).catch((error: unknown) => error);
    expect(drift).toMatchObject({ name: 'WorkloadDriftError' });
    expect((drift as WorkloadDriftError).fields).toContainEqual({ field: 'ports', live: '22/tcp tcp-22 → 2222', desired: '22/tcp tcp-22' });
    expect(liveService(name).metadata?.resourceVersion).toBe(before);
  });
});

describe("a rollout the deployment controller completes under the replaced ReplicaSet's name (real control plane)", () => {
  it('started again on a template rolled out before: the Pod that runs is the rollout; status says routed, start returns at once', async () => {
    const spec = sampleSpec({ namespace, ports: [{ port: 22 }] });
    const { providerId: id, name } = await provision(api, spec, TIMEOUT);
    const first = liveDeployment(name).spec?.template;
    // Whether the controller leaves the complete condition naming the replaced ReplicaSet depends
    // on whether one of its syncs sees the Pod not yet ready; a few bounded attempts reach it.
    const ATTEMPTS = 6;
    let reached: { message?: string; owner: string } | undefined;
    for (let attempt = 1; attempt <= ATTEMPTS && !reached; attempt += 1) {
      await reconfigure(api, id, { env: { MODE: `other-${String(attempt)}` } }, TIMEOUT);
      await stop(api, id, TIMEOUT);
      // kubectl, in one write: the first template and one replica. The controller scales that
      // template's ReplicaSet up again, through zero replicas, and may keep its complete
      // condition naming the reconfiguration's ReplicaSet.
      const patch = [
        { op: 'replace', path: '/spec/template', value: first },
        { op: 'replace', path: '/spec/replicas', value: 1 },
      ];
      kubectl(['patch', 'deployment', name, '-n', namespace, '--type=json', '-p', JSON.stringify(patch)]);
      kubectl(['rollout', 'status', `deployment/${name}`, '-n', namespace, '--timeout=60s']);
      await expect.poll(() => readyEndpoints(name), { timeout: 30_000 }).toHaveLength(1);
      expect(readyEndpoints(name)).toEqual(readyPodIps(name));

      // What the scenario needs, read with kubectl: the condition names another ReplicaSet than the Pod's.
      const progressing = liveDeployment(name).status?.conditions?.find((condition) => condition.type === 'Progressing');
      const owners = kubectlJson<{ items: { metadata?: { ownerReferences?: { name: string }[] } }[] }>([
        'get',
        'pods',
        '-n',
        namespace,
        '-l',
        `${CONTAINER_ID_LABEL}=${String(spec.containerId)}`,
      ]).items.map((pod) => pod.metadata?.ownerReferences?.[0]?.name ?? '');
      expect(owners).toHaveLength(1);
      expect(progressing?.reason).toBe('NewReplicaSetAvailable');
      const owner = owners[0] ?? '';
      if (!(progressing?.message ?? '').includes(`"${owner}"`)) reached = { message: progressing?.message, owner };
    }
    expect(reached, `in ${String(ATTEMPTS)} attempts the controller always named the Pod's ReplicaSet`).toBeDefined();
    expect(reached?.message).not.toContain(`"${reached?.owner ?? ''}"`);

    expect(await status(api, id)).toMatchObject({ state: 'running', podIp: readyPodIps(name)[0], service: { routed: true } });
    const began = Date.now();
    await expect(start(api, id, TIMEOUT)).resolves.toMatchObject({ changed: false });
    expect(Date.now() - began).toBeLessThan(10_000);
  }, 300_000);
});

describe('a Service of our name that is not ours (real control plane)', () => {
  it("another container's Service: --no-ports and setPorts without --container-id, and with it, are refused; it is left as it was", async () => {
    const spec = sampleSpec({ namespace });
    const { providerId: id, name } = await provision(api, spec, TIMEOUT);
    const labels = { ...liveDeployment(name).metadata?.labels, [CONTAINER_ID_LABEL]: String(Number(spec.containerId) + 1) };
    const theirs: V1Service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace, labels },
      spec: { selector: { app: 'someone-else' }, ports: [{ port: 80, protocol: 'TCP' }] },
    };
    kubectl(['apply', '-f', '-'], { input: JSON.stringify(theirs) });
    const before = liveService(name);

    const none = await cli(['reconfigure', id, '--no-ports']);
    expect(none.code).toBe(6);
    expect(none.stderr).toContain(`belongs to container-id ${labels[CONTAINER_ID_LABEL]}, not container-id ${String(spec.containerId)}`);
    await expect(setPorts(api, id, [], TIMEOUT)).rejects.toBeInstanceOf(WorkloadOwnershipError);
    await expect(setPorts(api, id, [], { ...TIMEOUT, containerId: String(spec.containerId) })).rejects.toBeInstanceOf(
      WorkloadOwnershipError,
    );
    await expect(setPorts(api, id, [{ port: 80 }], TIMEOUT)).rejects.toBeInstanceOf(WorkloadOwnershipError);

    const after = liveService(name);
    expect(after.metadata?.uid).toBe(before.metadata?.uid);
    expect(after.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
    kubectl(['delete', 'service', name, '-n', namespace]);
    await remove(api, id, { ...TIMEOUT, containerId: String(spec.containerId) });
  });

  it("a team's plain Service of the name: remove deletes our Deployment, leaves the Service and names it", async () => {
    const spec = sampleSpec({ namespace });
    const { providerId: id, name } = await provision(api, spec, TIMEOUT);
    kubectl(['create', 'service', 'clusterip', name, '-n', namespace, '--tcp=80:80']);
    const before = liveService(name);

    const removed = await remove(api, id, { ...TIMEOUT, containerId: String(spec.containerId) });
    expect(removed).toMatchObject({
      changed: true,
      left: [
        { kind: 'Service', object: name, uid: before.metadata?.uid, message: expect.stringContaining('something other than Manager') },
      ],
    });
    expect(kubectl(['get', 'deployment', name, '-n', namespace, '--ignore-not-found', '-o', 'name']).trim()).toBe('');
    const after = liveService(name);
    expect(after.metadata?.uid).toBe(before.metadata?.uid);
    expect(after.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
  });
});
