// Provisioning against the real control plane (kube-apiserver, controller manager,
// scheduler built from Go modules; KWOK kubelets). kubectl cross-checks what we created,
// and an independent watch (client-node's own Watch) records when the rollout completed.
import { KubeConfig, Watch, type V1Deployment, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, ForbiddenError } from '../../src/errors/api.js';
import { RolloutFailedError, RolloutTimeoutError } from '../../src/errors/rollout.js';
import { buildDeployment } from '../../src/members/deployment/manifest.js';
import { provision, provision$ } from '../../src/workload/operations/provision.js';
import { parseWorkloadSpec } from '../../src/input/workload-spec.js';
import type { ProgressEvent, ProvisionEvent } from '../../src/rollout/events.js';
import { faultImage } from '../../scripts/control-plane/stages.js';
import { clusterEnv } from '../support/cluster-env.js';
import { apiFor, createNamespace, kubectl, kubectlJson, sampleSpec } from '../support/kube.js';

let namespace: string;
beforeAll(() => {
  namespace = createNamespace('it-provision');
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

/** kubectl rollout status's own predicate, written independently of rolloutStatus(). */
function kubectlComplete(d: V1Deployment): boolean {
  const s = d.status ?? {};
  return (
    (s.observedGeneration ?? 0) >= (d.metadata?.generation ?? 1) &&
    (s.updatedReplicas ?? 0) >= (d.spec?.replicas ?? 1) &&
    (s.replicas ?? 0) <= (s.updatedReplicas ?? 0) &&
    (s.availableReplicas ?? 0) >= (s.updatedReplicas ?? 0)
  );
}

const QUANTITY_SUFFIX: Record<string, number> = { m: 1e-3, '': 1, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };

/** The numeric value of a Kubernetes quantity of the forms we produce ("250m", "1024Mi", "64", "256Gi"). */
function quantityValue(quantity: string | undefined): number {
  const match = /^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi|Ti|)$/.exec(quantity ?? '');
  if (!match) throw new Error(`unexpected quantity ${quantity}`);
  return Number(match[1]) * QUANTITY_SUFFIX[match[2]!]!;
}

interface Observation {
  readonly at: number;
  readonly resourceVersion: number;
  readonly complete: boolean;
}

/** An independent observer: client-node's Watch on one Deployment, recording each event. */
async function observe(name: string): Promise<{ seen: Observation[]; stop: () => void }> {
  const config = new KubeConfig();
  config.loadFromFile(clusterEnv().kubeconfigPath);
  const seen: Observation[] = [];
  const controller = await new Watch(config).watch(
    `/apis/apps/v1/namespaces/${namespace}/deployments`,
    { fieldSelector: `metadata.name=${name}` },
    (_type, object: V1Deployment) =>
      seen.push({ at: Date.now(), resourceVersion: Number(object.metadata?.resourceVersion), complete: kubectlComplete(object) }),
    () => {},
  );
  return { seen, stop: () => controller.abort() };
}

describe('provisioning on the real control plane', () => {
  it('resolves to namespace/name; the Deployment and its Pod carry exactly what was built (cross-checked with kubectl)', async () => {
    const input = sampleSpec({ namespace, env: { B_VAR: 'two', A_VAR: 'one', EMPTY: '' }, args: ['-T'] });
    const events: ProvisionEvent[] = [];
    const result = await new Promise<ProvisionEvent>((resolve, reject) =>
      provision$(apiFor(), input, { timeoutMs: 60_000 }).subscribe({
        next: (e) => events.push(e),
        error: reject,
        complete: () => resolve(events.at(-1)!),
      }),
    );
    const name = String(input.hostname);
    expect(result).toMatchObject({ type: 'ready', providerId: `${namespace}/${name}`, adopted: false });
    expect(events[0]?.type).toBe('created');

    const expected = buildDeployment(parseWorkloadSpec(input));
    const live = kubectlJson<V1Deployment>(['get', 'deployment', name, '-n', namespace]);
    expect(live.metadata?.labels).toEqual(expected.metadata?.labels);
    expect(live.spec?.replicas).toBe(1);
    expect(live.spec?.selector).toEqual(expected.spec?.selector);
    expect(live.spec?.strategy?.type).toBe('Recreate');
    expect(live.spec?.template.metadata?.labels).toEqual(expected.spec?.template.metadata?.labels);
    const container = live.spec?.template.spec?.containers[0];
    expect(container?.image).toBe('docker.io/library/nginx:1.27');
    expect(container?.command).toEqual(['nginx', '-g', 'daemon off;']);
    expect(container?.args).toEqual(['-T']);
    expect(container?.env).toEqual([
      { name: 'A_VAR', value: 'one' },
      { name: 'B_VAR', value: 'two' },
      { name: 'EMPTY' }, // the API server omits an empty value: same meaning
    ]);
    expect(container?.resources).toEqual({ limits: { cpu: '250m', memory: '256Mi' }, requests: { cpu: '250m', memory: '256Mi' } });

    const pods = kubectlJson<{ items: V1Pod[] }>([
      'get',
      'pods',
      '-n',
      namespace,
      '-l',
      `org.mieweb.opensource-server.container-id=${String(input.containerId)}`,
    ]);
    expect(pods.items).toHaveLength(1);
    const pod = pods.items[0]!;
    expect(pod.metadata?.labels).toMatchObject({
      'org.mieweb.opensource-server.managed': 'true',
      'org.mieweb.opensource-server.node-id': '3',
      'org.mieweb.opensource-server.container-id': String(input.containerId),
    });
    expect(pod.spec?.hostname).toBe(name);
    expect(pod.spec?.containers[0]?.resources).toEqual(container?.resources);
    expect(pod.status?.phase).toBe('Running');
    expect((result as { providerId: string }).providerId).not.toContain(pod.metadata?.name ?? '(none)');
  });

  it('never resolves before the rollout is complete: the completing event is the one an independent watch first sees complete', async () => {
    const input = sampleSpec({ namespace });
    const name = String(input.hostname);
    const observer = await observe(name);
    const progress: ProgressEvent[] = [];
    let resolvedAt = 0;
    await new Promise<void>((resolve, reject) =>
      provision$(apiFor(), input, { timeoutMs: 60_000 }).subscribe({
        next: (event) => {
          if (event.type === 'progress') progress.push(event);
          if (event.type === 'ready') resolvedAt = Date.now();
        },
        error: reject,
        complete: resolve,
      }),
    );
    await expect.poll(() => observer.seen.some((o) => o.complete), { timeout: 5000 }).toBe(true);
    observer.stop();
    const firstComplete = observer.seen.find((o) => o.complete)!;
    const completing = progress.at(-1)!;
    expect(completing.status.state).toBe('Complete');
    const completingVersion = Number(completing.resourceVersion);
    // The object we completed on is complete by kubectl's predicate too...
    expect(observer.seen.find((o) => o.resourceVersion === completingVersion)?.complete).toBe(true);
    // ...and it is not older than the first complete object the observer saw.
    expect(completingVersion).toBeGreaterThanOrEqual(firstComplete.resourceVersion);
    // Every status we reported before was not complete.
    expect(progress.slice(0, -1).every((event) => event.status.state === 'InProgress')).toBe(true);
    process.stderr.write(
      `[integration] detection: resolved ${resolvedAt - firstComplete.at} ms after the observer saw the completing event\n`,
    );
  });

  it('409 with our container-id adopts; 409 owned by another container is a ConflictError and nothing changes', async () => {
    const input = sampleSpec({ namespace });
    const first = await provision(apiFor(), input, { timeoutMs: 60_000 });
    const again = await provision(apiFor(), input, { timeoutMs: 60_000 });
    expect(again).toMatchObject({ providerId: first.providerId, adopted: true });

    const before = kubectlJson<V1Deployment>(['get', 'deployment', String(input.hostname), '-n', namespace]);
    const intruder = { ...input, containerId: Number(input.containerId) + 1 };
    const error = await provision(apiFor(), intruder, { timeoutMs: 60_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    const after = kubectlJson<V1Deployment>(['get', 'deployment', String(input.hostname), '-n', namespace]);
    expect(after.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
  });

  it('times out on a Deployment that never becomes available, carrying the last status', async () => {
    const input = sampleSpec({ namespace, image: faultImage('never-ready') });
    const started = Date.now();
    const error = await provision(apiFor(), input, { timeoutMs: 6000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RolloutTimeoutError);
    expect((error as RolloutTimeoutError).lastStatus).toMatchObject({ state: 'InProgress' });
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('fails with ProgressDeadlineExceeded when the Deployment has a short progress deadline', async () => {
    const input = sampleSpec({ namespace, image: faultImage('never-ready') });
    const error = await provision(apiFor(), input, { timeoutMs: 60_000, progressDeadlineSeconds: 3 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RolloutFailedError);
    expect(error).toMatchObject({ reason: 'ProgressDeadlineExceeded' });
    expect((error as Error).message).toMatch(/has timed out progressing/);
  });

  it('a user whose RBAC lacks "watch" on deployments gets a clear Forbidden error, not a timeout', async () => {
    const role = `no-watch-${namespace}`;
    kubectl(['create', 'role', role, '-n', namespace, '--verb=create,get,list', '--resource=deployments', '--resource=pods']);
    kubectl(['create', 'rolebinding', role, '-n', namespace, `--role=${role}`, '--user=restricted']);
    const started = Date.now();
    const error = await provision(apiFor('restricted'), sampleSpec({ namespace }), { timeoutMs: 60_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenError);
    expect((error as Error).message).toMatch(/may not watch (deployments|pods) in namespace/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('every manifest the unit tests build is accepted by the real apiserver (server-side dry run)', async () => {
    const api = apiFor();
    const variants = [
      sampleSpec(),
      sampleSpec({ entrypoint: null, env: {} }),
      sampleSpec({ entrypoint: ['/bin/sh', '-c', 'echo "$GREETING"'], args: ['a', 'b c'] }),
      sampleSpec({ image: `ghcr.io/org/app:1.0@sha256:${'a'.repeat(64)}`, cpus: 0.001, memoryMb: 1 }),
      sampleSpec({ image: 'registry.example.com:5000/team/sub/app:v1.2.3', cpus: 64, memoryMb: 262144 }),
      sampleSpec({ hostname: `h${'a'.repeat(61)}z`, containerId: 'Abc_1.2-x', nodeId: 'node.7' }),
      sampleSpec({ env: { _UNDERSCORE: 'x', lower_case: 'y', WITH_SPACES: 'a b\tc', UNICODE: 'héllo ✓' } }),
    ];
    for (const input of variants) {
      const manifest = buildDeployment(parseWorkloadSpec(input), { namespace });
      const accepted = await api.create('deployments', namespace, manifest, { dryRun: true });
      expect(accepted.metadata?.name).toBe(manifest.metadata?.name);
      // The API server canonicalises quantities ("64000m" -> "64"): compare their values.
      const sent = manifest.spec?.template.spec?.containers[0]?.resources;
      const stored = accepted.spec?.template.spec?.containers[0]?.resources;
      for (const kind of ['limits', 'requests'] as const) {
        expect(quantityValue(stored?.[kind]?.cpu)).toBe(quantityValue(sent?.[kind]?.cpu));
        expect(quantityValue(stored?.[kind]?.memory)).toBe(quantityValue(sent?.[kind]?.memory));
      }
    }
    const listed = kubectlJson<{ items: unknown[] }>([
      'get',
      'deployments',
      '-n',
      namespace,
      '-l',
      'org.mieweb.opensource-server.node-id=node.7',
    ]);
    expect(listed.items).toHaveLength(0); // dry run created nothing
  });
});
