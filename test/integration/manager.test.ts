// kube-provisioner/manager as Manager runs it, on the real control plane: the job script
// examples/manager-create-container.cjs run as written (a child process, the built package)
// against Sequelize models shaped like Manager's on SQLite (test/support/manager/models/, their
// tables made by sequelize-cli from Manager-shaped migrations and the kit's),
// and the adapter in-process where a test needs an option the script does not set. kubectl,
// the API proxy's request counts and the SQLite rows are the independent witnesses.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Deployment, V1Pod } from '../../src/kube/objects.js';
import { KubeConfig } from '@kubernetes/client-node';
import { firstValueFrom } from 'rxjs';
import type { Model, ModelStatic, Sequelize } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError } from '../../src/errors/api.js';
import { RolloutFailedError } from '../../src/errors/rollout.js';
import { InformerRegistry } from '../../src/informers/registry.js';
import { KubernetesApi } from '../../src/kube/kubernetes-api.js';
import { createContainer, type CreateFlowEvent } from '../../src/manager/create-flow.js';
import { containerLifecycle } from '../../src/manager/lifecycle.js';
import { createKubernetesProvider } from '../../src/manager/providers/kubernetes.js';
import { ProviderRegistry } from '../../src/manager/providers/registry.js';
import type { ContainerRecord } from '../../src/manager/providers/types.js';
import { MemoryContainerStore } from '../../src/manager/store/memory-store.js';
import { SequelizeContainerStore } from '../../src/manager/store/sequelize-store.js';
import { managedSelector } from '../../src/input/labels.js';
import { podSnapshots } from '../../src/members/deployment/member.js';
import { faultImage } from '../../scripts/control-plane/stages.js';
import { ApiProxy } from '../support/api-proxy.js';
import { clusterEnv } from '../support/cluster-env.js';
import { kubernetesRecord } from '../support/manager-record.js';
import { EXAMPLES, runExample, type ExampleRun } from '../support/examples.js';
import { MANAGER_MODELS, createManagerDatabase } from '../support/manager-database.js';
import { apiFor, createNamespace, kubectl, kubectlJson, uniqueName } from '../support/kube.js';

interface ManagerModels {
  readonly sequelize: Sequelize;
  readonly Container: ModelStatic<Model>;
  readonly Node: ModelStatic<Model>;
  readonly ResourceRequest: ModelStatic<Model>;
  readonly Setting: ModelStatic<Model>;
  readonly Site: ModelStatic<Model>;
}

const MODELS_PATH = MANAGER_MODELS;
const NGINX = 'docker.io/library/nginx:1.27';
const CONTAINER_ID_LABEL = 'org.mieweb.opensource-server.container-id';

let namespace: string;
let dir: string;
let dbPath: string;
let models: ManagerModels;
let siteId: number;
let kubeNodeId: number;

beforeAll(async () => {
  namespace = createNamespace('it-manager');
  dir = mkdtempSync(join(tmpdir(), 'kp-manager-'));
  dbPath = createManagerDatabase(dir).dbPath;
  // The models file reads MANAGER_DB when loaded, here and in each job's process.
  process.env.MANAGER_DB = dbPath;
  models = createRequire(import.meta.url)(MODELS_PATH) as ManagerModels;
  siteId = (await models.Site.create({ name: 'Main', internalDomain: 'main.internal' })).get('id') as number;
  kubeNodeId = await createNode({ name: 'k8s-local', kubeconfigPath: clusterEnv().kubeconfigPath, kubeNamespace: namespace });
  await models.Setting.create({
    key: 'default_container_env_vars',
    value: JSON.stringify([
      { key: 'TZ', value: 'UTC', description: 'site time zone' },
      { key: 'APP_MODE', value: 'default', description: '' },
    ]),
  });
});

afterAll(async () => {
  await models?.sequelize.close();
  delete process.env.MANAGER_DB;
  rmSync(dir, { recursive: true, force: true });
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

async function createNode(fields: Record<string, unknown>): Promise<number> {
  const node = await models.Node.create({ nodeType: 'kubernetes', siteId, kubePersistence: 'off', ...fields });
  return node.get('id') as number;
}

async function createContainerRow(fields: Record<string, unknown> = {}): Promise<{ id: number; hostname: string }> {
  const hostname = uniqueName('mgr');
  const row = await models.Container.create({ hostname, username: 'alice', template: NGINX, nodeId: kubeNodeId, siteId, ...fields });
  return { id: row.get('id') as number, hostname };
}

async function rowOf(id: number): Promise<Record<string, unknown>> {
  return (await models.Container.findByPk(id))!.get({ plain: true }) as Record<string, unknown>;
}

/** The job as Manager's runner starts it: `node bin/create-container.js --container-id=N`. */
function runJob(id: number, env: Record<string, string> = {}): Promise<ExampleRun> {
  return runExample('manager-create-container.cjs', { MANAGER_MODELS: MODELS_PATH, MANAGER_DB: dbPath, ...env }, 90_000, [
    `--container-id=${id}`,
  ]);
}

function deploymentsOf(containerId: number): V1Deployment[] {
  return kubectlJson<{ items: V1Deployment[] }>(['get', 'deployments', '-n', namespace, '-l', `${CONTAINER_ID_LABEL}=${containerId}`])
    .items;
}

function podsOf(containerId: number): V1Pod[] {
  return kubectlJson<{ items: V1Pod[] }>(['get', 'pods', '-n', namespace, '-l', `${CONTAINER_ID_LABEL}=${containerId}`]).items;
}

const JOB_LINE = /^\d\d:\d\d:\d\d\.\d{3} \S/;

describe("the README's job script, run as written against Manager-shaped models", () => {
  it('is the example the docs list as needing Manager models', () => {
    expect(EXAMPLES['manager-create-container.cjs']).toBe('manager');
  });

  it("creates the Deployment with exactly the approved resources and the admin's default variables, stores namespace/name, and logs one line per event", async () => {
    const { id, hostname } = await createContainerRow({ environmentVars: JSON.stringify({ APP_MODE: 'production' }) });
    const request = (resourceType: string, value: number, status: string, reviewedAt: string | null) =>
      models.ResourceRequest.create({ siteId, hostname, username: 'alice', resourceType, value, status, reviewedAt });
    await request('cpus', 2, 'approved', '2026-01-01T00:00:00Z');
    await request('cpus', 1, 'approved', '2026-02-01T00:00:00Z'); // the latest approval wins
    await request('memory', 512, 'approved', '2026-02-01T00:00:00Z');
    await request('memory', 8192, 'pending', null); // not approved: never used

    const job = await runJob(id);

    expect(job.stderr).toBe('');
    expect(job.code, 'exit code (null: killed because it did not exit on its own)').toBe(0);
    const lines = job.stdout.trimEnd().split('\n');
    for (const line of lines) expect(line).toMatch(JOB_LINE);
    expect(lines[0]).toMatch(new RegExp(`^\\S+ ${namespace}/${hostname} created Deployment$`));
    expect(lines.some((line) => line.endsWith(`${namespace}/${hostname} 1/1 ready: rollout complete`))).toBe(true);
    expect(lines.at(-1)).toMatch(new RegExp(`^\\S+ ${namespace}/${hostname} stored as container ${id}'s provider ID$`));

    const [deployment] = deploymentsOf(id);
    const container = deployment?.spec?.template.spec?.containers[0];
    expect(container?.resources).toEqual({ requests: { cpu: '1', memory: '512Mi' }, limits: { cpu: '1', memory: '512Mi' } });
    expect(container?.env).toEqual([
      { name: 'APP_MODE', value: 'production' },
      { name: 'TZ', value: 'UTC' },
    ]);
    expect(deployment?.metadata?.labels).not.toHaveProperty('org.mieweb.opensource-server.instance');
    // A container without services has no Service, so no address (Manager's agent routes to
    // services only; manager-lifecycle.test.ts has the Service's address); never the Pod IP.
    const [pod] = podsOf(id);
    expect(pod?.status?.podIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(await rowOf(id)).toMatchObject({ containerId: `${namespace}/${hostname}`, macAddress: null, ipv4Address: null });
    expect(lines.some((line) => line.endsWith('provisioned on kubernetes (MAC none, IP none)'))).toBe(true);
  });

  it('a node without a kubeconfig or token fails typed, naming the node and the column, with no request, even with $KUBECONFIG and ~/.kube/config set', async () => {
    const proxy = await ApiProxy.start(clusterEnv().kubeconfigPath);
    try {
      // The shell's ambient cluster, as on a Manager host: both point at the counting proxy.
      const ambient = proxy.writeKubeconfig(clusterEnv().kubeconfigPath);
      const home = join(dir, 'home');
      mkdirSync(join(home, '.kube'), { recursive: true });
      copyFileSync(ambient, join(home, '.kube', 'config'));
      const bareNode = await createNode({ name: 'k8s-bare', kubeNamespace: namespace });
      const { id, hostname } = await createContainerRow({ nodeId: bareNode });

      const job = await runJob(id, { KUBECONFIG: ambient, HOME: home });

      expect(job.code).toBe(1);
      expect(job.stdout).toBe('');
      expect(job.stderr).toBe(
        `error: KubernetesNodeConfigError: Kubernetes node k8s-bare (id ${bareNode}): kubeconfigPath is missing: set kubeconfigPath ` +
          "(with kubeContext and kubeNamespace), or apiUrl and secret; a node never uses the process's $KUBECONFIG or ~/.kube/config\n",
      );
      expect(proxy.counts.requests).toBe(0);
      expect((await rowOf(id))['containerId']).toBeNull();
      expect(
        kubectlJson<{ items: unknown[] }>(['get', 'deployments', '-n', namespace, '--field-selector', `metadata.name=${hostname}`]).items,
      ).toEqual([]);
      // The ambient kubeconfig works: a client that did fall back would have been counted.
      await KubernetesApi.fromConfig({ kubeconfigPath: ambient }).list('deployments', namespace, undefined);
      expect(proxy.counts.requests).toBeGreaterThan(0);
    } finally {
      await proxy.close();
    }
  });

  it("a node with Manager's apiUrl, secret and tlsVerify columns: the API server, a bearer token, TLS verified against a trusted CA", async () => {
    const config = new KubeConfig();
    config.loadFromFile(clusterEnv().kubeconfigPath);
    const token = config.getCurrentUser()?.token ?? '';
    const caFile = join(dir, 'cluster-ca.pem');
    writeFileSync(caFile, Buffer.from(config.getCurrentCluster()?.caData ?? '', 'base64'));
    const tokenNode = await createNode({ name: 'k8s-token', apiUrl: clusterEnv().server, secret: token, kubeNamespace: namespace });

    // Verification is on: a CA Node does not trust fails, and nothing is created.
    const untrusted = await createContainerRow({ nodeId: tokenNode });
    const refused = await runJob(untrusted.id);
    expect(refused.code).toBe(1);
    // Named by the node's column to change (issue 42, item 4), the library's words inside.
    expect(refused.stderr).toMatch(
      /^error: NodeSettingError: Kubernetes node k8s-token \(id \d+\): tlsVerify is on, and the API server's certificate is not trusted \(TLS verification failed for https:\/\/127\.0\.0\.1:\d+.*\): give Manager the cluster's CA \(NODE_EXTRA_CA_CERTS\), or set tlsVerify to false/,
    );
    expect(refused.stderr).not.toContain(token);
    expect(deploymentsOf(untrusted.id)).toEqual([]);

    // The cluster's CA made trusted the Node way (NODE_EXTRA_CA_CERTS): it provisions.
    const trusted = await createContainerRow({ nodeId: tokenNode });
    const job = await runJob(trusted.id, { NODE_EXTRA_CA_CERTS: caFile });
    expect(job.stderr).toBe('');
    expect(job.code).toBe(0);
    expect(deploymentsOf(trusted.id)).toHaveLength(1);
    expect((await rowOf(trusted.id))['containerId']).toBe(`${namespace}/${trusted.hostname}`);
  });

  it('a failed create leaves no Deployment and no Pod, says so, and a retry with a good image starts clean and succeeds', async () => {
    const { id, hostname } = await createContainerRow({ template: faultImage('image-not-found') });

    const failed = await runJob(id);

    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(
      new RegExp(
        `^error: RolloutFailedError: Rollout of ${namespace}/${hostname} failed: ErrImagePull .*; the Deployment ${namespace}/${hostname} this run created was deleted with its pods\\n$`,
      ),
    );
    for (const line of failed.stdout.trimEnd().split('\n')) expect(line).toMatch(JOB_LINE);
    expect(deploymentsOf(id)).toEqual([]);
    expect(podsOf(id)).toEqual([]);
    expect((await rowOf(id))['containerId']).toBeNull();

    await models.Container.update({ template: NGINX }, { where: { id } });
    const retry = await runJob(id);
    expect(retry.stderr).toBe('');
    expect(retry.code).toBe(0);
    expect(retry.stdout).toMatch(new RegExp(`${namespace}/${hostname} created Deployment\\n`));
    const [deployment] = deploymentsOf(id);
    expect(deployment?.spec?.template.spec?.containers[0]?.image).toBe(NGINX);
    expect(deployment?.status?.availableReplicas).toBe(1);
  });

  it('with keepOnFailure the failed Deployment stays for debugging, and the error says so', async () => {
    const { id, hostname } = await createContainerRow({ template: faultImage('image-not-found') });
    const store = new SequelizeContainerStore({
      Container: models.Container,
      findOptions: { include: [{ model: models.Node, as: 'node', include: [{ model: models.Site, as: 'site' }] }] },
      approvedResources: () => ({ cpus: 1, memory: 256 }),
      resourceDefaults: { swap: 0, rootfs: 8 },
      defaultEnvironment: () => ({}),
    });
    const providers = new ProviderRegistry([createKubernetesProvider({ keepOnFailure: true })]);

    const error = await createContainer(id, { providers, store }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(RolloutFailedError);
    expect(error).toMatchObject({ reason: 'ErrImagePull', cleanup: { outcome: 'kept', providerId: `${namespace}/${hostname}` } });
    expect((error as Error).message).toMatch(/was kept for debugging, as asked; delete it before a retry$/);
    expect(deploymentsOf(id)).toHaveLength(1);
    expect(podsOf(id)).toHaveLength(1);
    expect((await rowOf(id))['containerId']).toBeNull();
  });
});

describe('two Manager installations in one namespace, the same container id', () => {
  // Both databases' container 9001 (the job tests above, a Manager without an instance, use low ids).
  const ID = 9001;
  const record = (hostname: string, template: string): ContainerRecord =>
    kubernetesRecord(
      { id: ID, hostname, template, resources: { cpus: 0.25, memoryMb: 128, swapMb: 0, rootfsGb: 8 } },
      { namespace, name: 'k8s-local' },
    );

  it("create two workloads that never see each other's Pods, status or Deployment", async () => {
    const devHost = uniqueName('dev');
    const testHost = uniqueName('test');
    const manager = (instance: string) => new ProviderRegistry([createKubernetesProvider({ instance, keepOnFailure: true })]);
    const testStore = new MemoryContainerStore([record(testHost, faultImage('image-not-found'))]);
    const devStore = new MemoryContainerStore([record(devHost, NGINX)]);

    // The test database's container 1 fails and is kept: its failing Pod stays in the namespace.
    const testError = await createContainer(ID, { providers: manager('test'), store: testStore }).catch((e: unknown) => e);
    expect(testError).toMatchObject({ name: 'RolloutFailedError', reason: 'ErrImagePull' });
    // The dev database's container 1 rolls out beside it, its status never touched by that Pod.
    const devEvents: CreateFlowEvent[] = [];
    const dev = await createContainer(ID, { providers: manager('dev'), store: devStore, onEvent: (event) => devEvents.push(event) });
    expect(dev.providerId).toBe(`${namespace}/${devHost}`);
    const devSaw = JSON.stringify(devEvents);
    expect(devSaw).not.toContain(testHost);
    expect(devSaw).not.toContain('ErrImagePull');

    // Both Pods carry the same container-id; each Deployment's selector (with its instance) picks its own.
    expect(podsOf(ID).map((pod) => pod.metadata?.name?.startsWith(devHost) || pod.metadata?.name?.startsWith(testHost))).toEqual([
      true,
      true,
    ]);
    for (const [host, other] of [
      [devHost, testHost],
      [testHost, devHost],
    ] as const) {
      const deployment = kubectlJson<V1Deployment>(['get', 'deployment', host, '-n', namespace]);
      const selector = Object.entries(deployment.spec?.selector.matchLabels ?? {})
        .map(([label, value]) => `${label}=${value}`)
        .join(',');
      const selected = kubectlJson<{ items: V1Pod[] }>(['get', 'pods', '-n', namespace, '-l', selector]).items.map(
        (pod) => pod.metadata?.name ?? '',
      );
      expect(selected).toHaveLength(1);
      expect(selected[0]?.startsWith(host)).toBe(true);
      expect(selected[0]?.startsWith(other)).toBe(false);
    }

    // What each installation's informers (and the lifecycle's lists) select.
    const api = apiFor();
    const names = async (instance: string | undefined) =>
      (await api.list('pods', namespace, managedSelector(instance))).items.map((pod) => pod.metadata?.name?.split('-')[0]);
    expect(await names('dev')).toEqual(['dev']);
    expect(await names('test')).toEqual(['test']);
    expect(await names(undefined)).not.toContain('dev');
    expect(await names(undefined)).not.toContain('test');
    const registry = new InformerRegistry();
    const cached = await firstValueFrom(podSnapshots(registry, api, namespace, String(ID), 'dev'));
    expect(cached.map((pod) => pod.metadata?.name?.startsWith(devHost))).toEqual([true]);

    // Each installation's lifecycle reads and writes its own container: dev sees its
    // workload running and stops it; test's failed one is untouched.
    const devRecord = { ...record(devHost, NGINX), providerId: dev.providerId };
    const devLifecycle = containerLifecycle(manager('dev'));
    expect(await devLifecycle.status(devRecord)).toMatchObject({ state: 'running' });
    expect(await devLifecycle.stop(devRecord)).toMatchObject({ operation: 'stop', changed: true });
    expect(kubectlJson<V1Deployment>(['get', 'deployment', devHost, '-n', namespace]).spec?.replicas).toBe(0);
    expect(kubectlJson<V1Deployment>(['get', 'deployment', testHost, '-n', namespace]).spec?.replicas).toBe(1);
    // The other installation's lifecycle finds no container of its own there.
    expect(await containerLifecycle(manager('test')).status(devRecord)).toMatchObject({ state: 'missing' });

    // Neither touches the other's Deployment, even by name.
    const before = kubectlJson<V1Deployment>(['get', 'deployment', testHost, '-n', namespace]).metadata?.resourceVersion;
    const intruder = new MemoryContainerStore([record(testHost, NGINX)]);
    const conflict = await createContainer(ID, { providers: manager('dev'), store: intruder }).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(ConflictError);
    expect((conflict as Error).message).toContain(`belongs to container-id ${ID} of instance test, not container-id ${ID} of instance dev`);
    expect(kubectlJson<V1Deployment>(['get', 'deployment', testHost, '-n', namespace]).metadata?.resourceVersion).toBe(before);
  });
});
