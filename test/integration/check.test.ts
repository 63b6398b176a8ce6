// check(), nodes(), nodes$(), fits() and the Manager node check on the real control plane
// (kube-apiserver with RBAC, controllers, scheduler; KWOK node), with the admin, viewer and
// restricted users. kubectl is the independent witness: `kubectl auth can-i` for every
// permission, `kubectl get` for nodes and Pods, `kubectl cordon` to change a node. Every
// report, error and CLI output is searched for the users' tokens.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check } from '../../src/cluster/check.js';
import type { CheckItem, CheckReport } from '../../src/cluster/check-report.js';
import { fits } from '../../src/cluster/fits.js';
import type { NodeInfo } from '../../src/cluster/node-info.js';
import { nodes, nodes$ } from '../../src/cluster/nodes.js';
import {
  CLUSTER_PERMISSIONS,
  OPERATION_PERMISSIONS,
  permissionLabel,
  roleFor,
  type OperationName,
  type Permission,
} from '../../src/cluster/permissions.js';
import { ForbiddenError } from '../../src/errors/api.js';
import { RolloutFailedError } from '../../src/errors/rollout.js';
import { InformerRegistry } from '../../src/informers/registry.js';
import { checkKubernetesNode } from '../../src/manager/node-check.js';
import { provision } from '../../src/workload/operations/provision.js';
import { ApiProxy } from '../support/api-proxy.js';
import { clusterEnv, type ClusterUserName } from '../support/cluster-env.js';
import { apiFor, createNamespace, kubectl, kubectlJson, sampleSpec, uniqueName } from '../support/kube.js';
import { runNode, type ProcessRun } from '../support/run-process.js';
import { defaultClassNames, localStorage } from '../support/storage.js';

const USERS: readonly ClusterUserName[] = ['admin', 'viewer', 'restricted'];
const spec = { cpus: 0.5, memoryMb: 256 };

let namespace: string;
let scratch: string;
const secrets: string[] = [];
const namespaces: string[] = [];

beforeAll(() => {
  namespace = createNamespace('it-check');
  namespaces.push(namespace);
  scratch = mkdtempSync(join(tmpdir(), 'kp-check-it-'));
  for (const user of USERS) secrets.push(tokenOf(clusterEnv().kubeconfigs[user]));
});
afterAll(() => {
  for (const name of namespaces) kubectl(['delete', 'namespace', name, '--wait=false']);
});

function tokenOf(kubeconfigPath: string): string {
  const config = new KubeConfig();
  config.loadFromFile(kubeconfigPath);
  const token = config.users[0]?.token;
  if (!token) throw new Error(`no token in ${kubeconfigPath}`);
  return token;
}

/** No token of any test user in any form of `value` (JSON, String, inspect with causes). */
function expectNoToken(value: unknown): void {
  const texts = [typeof value === 'string' ? value : JSON.stringify(value), String(value), inspect(value, { depth: 12 })];
  if (value instanceof Error) texts.push(value.stack ?? '');
  for (const secret of secrets) {
    for (const text of texts) expect(text.includes(secret), 'a token was found in the output').toBe(false);
  }
}

function item(report: CheckReport, id: CheckItem['id']): CheckItem {
  const found = report.items.find((candidate) => candidate.id === id);
  if (!found) throw new Error(`no item ${id}`);
  return found;
}

const statuses = (report: CheckReport) => Object.fromEntries(report.items.map((entry) => [entry.id, entry.status]));

/** `kubectl auth can-i` for one permission: the independent answer. */
function canI(user: ClusterUserName, permission: Permission, inNamespace: string): boolean {
  const resource = permission.group ? `${permission.resource}.${permission.group}` : permission.resource;
  const child = spawnSync(
    'kubectl',
    [
      '--kubeconfig',
      clusterEnv().kubeconfigs[user],
      'auth',
      'can-i',
      permission.verb,
      resource,
      ...(permission.subresource ? ['--subresource', permission.subresource] : []),
      '-n',
      inNamespace,
    ],
    {
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  const answer = child.stdout.trim();
  if (answer !== 'yes' && answer !== 'no') throw new Error(`kubectl auth can-i answered ${JSON.stringify(answer)}: ${child.stderr}`);
  return answer === 'yes';
}

/** `kubectl auth can-i --all-namespaces`: a cluster-wide answer, for cluster-scoped resources (StorageClasses). */
function canIClusterWide(user: ClusterUserName, permission: Permission): boolean {
  const resource = permission.group ? `${permission.resource}.${permission.group}` : permission.resource;
  const child = spawnSync(
    'kubectl',
    ['--kubeconfig', clusterEnv().kubeconfigs[user], 'auth', 'can-i', permission.verb, resource, '--all-namespaces'],
    {
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  const answer = child.stdout.trim();
  if (answer !== 'yes' && answer !== 'no') throw new Error(`kubectl auth can-i answered ${JSON.stringify(answer)}: ${child.stderr}`);
  return answer === 'yes';
}

/** What the viewer (get, list, watch everywhere) lacks of an operation's table, in table order. */
// The view ClusterRole reads everything but a Pod's exec (a read verb that runs a command).
const VIEWER_MISSING = (operation: OperationName): string[] =>
  OPERATION_PERMISSIONS[operation]
    .filter((permission) => !['get', 'list', 'watch'].includes(permission.verb) || permission.subresource === 'exec')
    .map(permissionLabel);

function missingByKubectl(user: ClusterUserName, operation: OperationName, inNamespace: string): string[] {
  return OPERATION_PERMISSIONS[operation].filter((permission) => !canI(user, permission, inNamespace)).map(permissionLabel);
}

/** A copy of a user's kubeconfig with one change to its YAML text. */
function variant(user: ClusterUserName, name: string, change: (text: string) => string): string {
  const path = join(scratch, `${name}.kubeconfig`);
  writeFileSync(path, change(readFileSync(clusterEnv().kubeconfigs[user], 'utf8')), { mode: 0o600 });
  return path;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The report's failures come from answers, not from the time bound running out. */
function expectNoDeadlineHit(report: CheckReport): void {
  expect(report.items.filter((entry) => /no answer within/.test(entry.message))).toEqual([]);
}

describe('check() with the three users', () => {
  it('the admin passes every item, the spec included; the version is the one kubectl sees', async () => {
    const report = await check(apiFor('admin', { namespace }), { spec });
    expectNoToken(report);
    // The local cluster has no default StorageClass (kubectl agrees): the storage item warns, never fails.
    expect(defaultClassNames()).toEqual([]);
    expect(report.items.filter((entry) => entry.status !== 'pass').map((entry) => `${entry.id} ${entry.status}`)).toEqual([
      'storage warn',
      'runtime-class skip',
    ]);
    expect(item(report, 'storage')).toMatchObject({ needed: false, defaultStorageClass: null, missing: [] });
    expect(report.ok).toBe(true);
    const version = kubectlJson<{ serverVersion: { gitVersion: string } }>(['version']).serverVersion.gitVersion;
    expect(item(report, 'api').serverVersion).toBe(version);
    expect(item(report, 'identity').user).toEqual({ username: 'admin', groups: expect.arrayContaining(['system:masters']) });
    expect(item(report, 'watch-list').message).toMatch(/^streaming lists are served/);
    // Kubernetes 1.36 with the ContainerStopSignals feature gate off, as here by default.
    expect(item(report, 'stop-signal')).toMatchObject({ status: 'pass', stopSignal: 'dropped' });
  });

  it('the viewer: the missing create/patch/update/delete verbs, exactly as kubectl auth can-i answers', async () => {
    const report = await check(apiFor('viewer', { namespace }), { spec });
    expectNoToken(report);
    expect(report.ok).toBe(false);
    expect(item(report, 'permissions:create')).toMatchObject({ status: 'fail', missing: VIEWER_MISSING('create') });
    expect(item(report, 'permissions:lifecycle')).toMatchObject({
      status: 'fail',
      missing: VIEWER_MISSING('lifecycle'),
    });
    for (const operation of ['create', 'lifecycle'] as const) {
      expect(item(report, `permissions:${operation}`).missing).toEqual(missingByKubectl('viewer', operation, namespace));
    }
    expect(statuses(report)).toMatchObject({ identity: 'pass', namespace: 'pass', resources: 'pass', 'watch-list': 'pass' });
    expect(item(report, 'stop-signal')).toMatchObject({
      status: 'warn',
      error: 'ForbiddenError',
      message: `cannot tell: may not create deployments.apps in namespace ${namespace} (asked with a dry run, which stores nothing); a system container's Pod goes without lifecycle.stopSignal, with a warning`,
    });
  });

  it('the restricted user: every permission missing, and what it may not even look at', async () => {
    const report = await check(apiFor('restricted', { namespace }), { spec });
    expectNoToken(report);
    expect(item(report, 'permissions:create').missing).toEqual(OPERATION_PERMISSIONS.create.map(permissionLabel));
    expect(item(report, 'permissions:lifecycle').missing).toEqual(OPERATION_PERMISSIONS.lifecycle.map(permissionLabel));
    expect(item(report, 'permissions:lifecycle').missing).toEqual(missingByKubectl('restricted', 'lifecycle', namespace));
    expect(item(report, 'identity').user?.username).toBe('restricted');
    expect(item(report, 'namespace')).toMatchObject({
      status: 'warn',
      message: `cannot tell whether namespace ${namespace} exists: may not get namespaces`,
    });
    expect(item(report, 'resources')).toMatchObject({ status: 'warn', error: 'ForbiddenError' });
    expect(item(report, 'watch-list').status).toBe('warn');
  });

  it('the storage item: the default class with its binding mode and expansion, as kubectl shows it; the cluster-wide verbs, as kubectl auth can-i answers', async () => {
    const storage = localStorage({
      isDefault: true,
      allowVolumeExpansion: true,
      bindingMode: 'WaitForFirstConsumer',
      prefix: 'it-check-default',
    });
    try {
      const live = kubectlJson<{ volumeBindingMode: string; allowVolumeExpansion?: boolean; provisioner: string }>([
        'get',
        'storageclass',
        storage.className,
      ]);
      const admin = item(await check(apiFor('admin', { namespace })), 'storage');
      expect(admin).toMatchObject({
        status: 'pass',
        defaultStorageClass: {
          name: storage.className,
          bindingMode: live.volumeBindingMode,
          allowsExpansion: live.allowVolumeExpansion === true,
          provisioner: live.provisioner,
          isDefault: true,
        },
        missing: [],
      });
      expect(admin.storageClasses).toContain(storage.className);
      for (const user of USERS) {
        const report = await check(apiFor(user, { namespace }));
        expectNoToken(report);
        const byKubectl = CLUSTER_PERMISSIONS.filter((permission) => !canIClusterWide(user, permission)).map(permissionLabel);
        expect(item(report, 'storage').missing, user).toEqual(byKubectl);
        expect(item(report, 'storage').needed).toBe(false);
      }
      // The restricted user may not list classes at all: it cannot tell, and says which verb it lacks.
      expect(item(await check(apiFor('restricted', { namespace })), 'storage')).toMatchObject({
        status: 'warn',
        error: 'ForbiddenError',
        message: expect.stringMatching(/^cannot tell which StorageClass is the default: may not list storageclasses/),
      });
    } finally {
      storage.remove();
    }
    expect(defaultClassNames()).toEqual([]);
  });

  it('a Role rendered from the permission table is enough: the restricted user passes and provisions with it', async () => {
    const granted = createNamespace('it-check-role');
    namespaces.push(granted);
    kubectl(['apply', '-f', '-'], { input: JSON.stringify(roleFor('create', { name: 'kube-provisioner-create', namespace: granted })) });
    kubectl(['create', 'rolebinding', 'restricted-create', '-n', granted, '--role', 'kube-provisioner-create', '--user', 'restricted']);
    const api = apiFor('restricted', { namespace: granted });

    const report = await check(api, { needs: 'create' });
    expect(report.ok).toBe(true);
    expect(item(report, 'permissions:create')).toMatchObject({ status: 'pass', missing: [] });
    expect(item(report, 'permissions:lifecycle')).toMatchObject({
      status: 'warn',
      needed: false,
      missing: expect.arrayContaining(['delete deployments.apps']),
    });

    const input = sampleSpec({ namespace: granted });
    const result = await provision(api, input, { timeoutMs: 60_000, informers: new InformerRegistry() });
    expect(result.providerId).toBe(`${granted}/${String(input.hostname)}`);
  });
});

describe('check() names each failure in its own item, without waiting out the time bound', () => {
  it('a missing namespace', async () => {
    const missing = uniqueName('it-check-missing');
    const report = await check(apiFor('admin', { namespace: missing }), { spec });
    expect(statuses(report)).toEqual({
      kubeconfig: 'pass',
      tls: 'pass',
      api: 'pass',
      identity: 'pass',
      'watch-list': 'pass',
      namespace: 'fail',
      'permissions:create': 'pass',
      'permissions:lifecycle': 'pass',
      resources: 'skip',
      gpus: 'pass',
      storage: 'warn',
      'runtime-class': 'skip',
      'stop-signal': 'skip',
    });
    expect(item(report, 'namespace')).toMatchObject({
      error: 'NotFoundError',
      message: `namespace ${missing} does not exist (create it, or choose another)`,
    });
    expectNoDeadlineHit(report);
  });

  it('an unknown context: the kubeconfig item, and not one request sent', async () => {
    const proxy = await ApiProxy.start(clusterEnv().kubeconfigPath);
    try {
      const report = await check({ kubeconfigPath: proxy.writeKubeconfig(clusterEnv().kubeconfigPath), context: 'no-such-context' });
      expect(item(report, 'kubeconfig')).toMatchObject({ status: 'fail', error: 'UnknownContextError' });
      expect(item(report, 'kubeconfig').message).toMatch(
        /^Context "no-such-context" is not in the kubeconfig \(available: kube-provisioner-local\)$/,
      );
      expect(report.items.slice(1).every((entry) => entry.status === 'skip')).toBe(true);
      expect(proxy.counts.requests).toBe(0);
      expectNoToken(report);
    } finally {
      await proxy.close();
    }
  });

  it('a closed port: the api item (ApiUnreachableError)', async () => {
    const port = await closedPort();
    const path = variant('admin', 'closed-port', (text) =>
      text.replace(/server: "?https:\/\/127\.0\.0\.1:\d+"?/, `server: https://127.0.0.1:${port}`),
    );
    const report = await check({ kubeconfigPath: path }, { spec });
    expect(report.server).toBe(`https://127.0.0.1:${port}`);
    expect(statuses(report)).toMatchObject({
      kubeconfig: 'pass',
      tls: 'skip',
      api: 'fail',
      identity: 'skip',
      namespace: 'skip',
      'permissions:create': 'skip',
      resources: 'skip',
    });
    expect(item(report, 'api')).toMatchObject({ error: 'ApiUnreachableError', message: expect.stringContaining('ECONNREFUSED') });
    expectNoDeadlineHit(report);
    expectNoToken(report);
  });

  it('a wrong CA: the tls item (TlsError)', async () => {
    const proxy = await ApiProxy.start(clusterEnv().kubeconfigPath);
    await proxy.close(); // only its certificate is needed: one the API server does not present
    const path = variant('admin', 'wrong-ca', (text) =>
      text.replace(/certificate-authority-data: \S+/, `certificate-authority-data: ${Buffer.from(proxy.caPem).toString('base64')}`),
    );
    const report = await check({ kubeconfigPath: path });
    expect(statuses(report)).toMatchObject({ tls: 'fail', api: 'skip', identity: 'skip', 'permissions:lifecycle': 'skip' });
    expect(item(report, 'tls')).toMatchObject({ error: 'TlsError', message: expect.stringContaining('certificate') });
    expectNoDeadlineHit(report);
    expectNoToken(report);
  });

  it('a bad token: the identity item (401); the server itself answered', async () => {
    const badToken = `not-a-token-${uniqueName('x')}`;
    secrets.push(badToken);
    const path = variant('admin', 'bad-token', (text) => text.replace(/token: \S+/, `token: ${badToken}`));
    const report = await check({ kubeconfigPath: path });
    expect(statuses(report)).toMatchObject({ tls: 'pass', api: 'pass', identity: 'fail', namespace: 'skip', 'permissions:create': 'skip' });
    expect(item(report, 'identity')).toMatchObject({ error: 'UnauthorizedError', message: expect.stringContaining('401') });
    expectNoDeadlineHit(report);
    expectNoToken(report);
  });

  it('TLS verification turned off is reported, and everything else still passes', async () => {
    const report = await check(apiFor('admin', { namespace, tlsVerify: false }));
    expect(report.tlsVerify).toBe(false);
    expect(item(report, 'tls')).toMatchObject({
      status: 'warn',
      message: expect.stringMatching(/^OFF: TLS verification was turned off explicitly/),
    });
    expect(report.ok).toBe(true);
  });
});

describe('check() and the namespace limits', () => {
  it('a LimitRange and a ResourceQuota that refuse the spec are each reported, and the API server does refuse it', async () => {
    const limited = createNamespace('it-check-limits');
    namespaces.push(limited);
    kubectl(['apply', '-n', limited, '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'LimitRange',
        metadata: { name: 'caps' },
        spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] },
      }),
    });
    kubectl(['create', 'quota', 'mem', '-n', limited, '--hard=requests.memory=512Mi,limits.memory=512Mi']);
    const deadline = Date.now() + 30_000;
    while (!kubectl(['get', 'resourcequota', 'mem', '-n', limited, '-o', 'jsonpath={.status.hard}']).trim()) {
      if (Date.now() > deadline) throw new Error('the quota controller never wrote the status of the quota');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const api = apiFor('admin', { namespace: limited });

    const refused = await check(api, { spec: { cpus: 2, memoryMb: 768 } });
    expect(item(refused, 'resources')).toMatchObject({
      status: 'fail',
      refusals: [
        'LimitRange caps: cpu 2 per Container is above the maximum 1',
        'ResourceQuota mem: requests.memory would be 768Mi, above its hard limit 512Mi (0 used)',
        'ResourceQuota mem: limits.memory would be 768Mi, above its hard limit 512Mi (0 used)',
      ],
    });
    expect(refused.ok).toBe(false);
    expect(item(await check(api, { spec: { cpus: 1, memoryMb: 512 } }), 'resources').status).toBe('pass');

    // The API server agrees: each refusal alone stops the Pod at admission.
    for (const input of [
      sampleSpec({ namespace: limited, cpus: 2, memoryMb: 128 }),
      sampleSpec({ namespace: limited, cpus: 0.5, memoryMb: 768 }),
    ]) {
      expect(item(await check(api, { spec: input }), 'resources').status).toBe('fail');
      const error = await provision(api, input, { timeoutMs: 60_000, informers: new InformerRegistry() }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(RolloutFailedError);
      expect((error as RolloutFailedError).detail).toMatch(/forbidden|exceeded quota/);
    }
  });
});

describe('nodes(), nodes$() and fits() on the KWOK node', () => {
  it('nodes(): Ready, schedulable, InternalIP, allocatable, and the requests of the Pods kubectl sees on it', async () => {
    const busy = createNamespace('it-check-nodes');
    namespaces.push(busy);
    kubectl(['create', 'deployment', 'load', '-n', busy, '--image=nginx:1.27', '--replicas=2']);
    kubectl(['set', 'resources', 'deployment', 'load', '-n', busy, '--requests=cpu=300m,memory=200Mi']);
    kubectl(['rollout', 'status', 'deployment', 'load', '-n', busy, '--timeout=60s']);

    const env = clusterEnv();
    const info = (await nodes(apiFor('admin'))).find((candidate) => candidate.name === env.nodeName);
    const live = kubectlJson<{ status: { addresses: { type: string; address: string }[]; allocatable: { pods: string } } }>([
      'get',
      'node',
      env.nodeName,
    ]);
    expect(info).toMatchObject({
      ready: true,
      schedulable: true,
      internalIP: live.status.addresses.find((address) => address.type === 'InternalIP')?.address,
      externalIP: null,
      allocatable: { cpuMillicores: 1_000_000, memoryBytes: 4 * 1024 ** 4, pods: 2000 },
    });
    expect(Date.parse(info!.readySince!)).toBeLessThanOrEqual(Date.now());

    // The same sum from kubectl's own listing of the Pods bound to the node and not finished.
    const pods = kubectlJson<{ items: { spec: { containers: { resources?: { requests?: { cpu?: string; memory?: string } } }[] } }[] }>([
      'get',
      'pods',
      '-A',
      '--field-selector',
      `spec.nodeName=${env.nodeName},status.phase!=Succeeded,status.phase!=Failed`,
    ]);
    const milli = (cpu = '0') => (cpu.endsWith('m') ? Number(cpu.slice(0, -1)) : Number(cpu) * 1000);
    const mebi = (memory = '0') =>
      memory.endsWith('Mi')
        ? Number(memory.slice(0, -2))
        : memory.endsWith('Gi')
          ? Number(memory.slice(0, -2)) * 1024
          : Number(memory) / 1024 ** 2;
    const containers = pods.items.flatMap((pod) => pod.spec.containers);
    expect(info?.requested).toEqual({
      cpuMillicores: containers.reduce((sum, container) => sum + milli(container.resources?.requests?.cpu), 0),
      memoryBytes: containers.reduce((sum, container) => sum + mebi(container.resources?.requests?.memory), 0) * 1024 ** 2,
      pods: pods.items.length,
    });
    expect(info!.requested.cpuMillicores).toBeGreaterThanOrEqual(600);
  });

  it('a user who may not list nodes gets a ForbiddenError naming it, without a token', async () => {
    const error = await nodes(apiFor('viewer')).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ForbiddenError);
    expect((error as ForbiddenError).message).toMatch(/may not list (nodes|pods)/);
    expectNoToken(error);
  });

  it('kubectl cordon shows as unschedulable in nodes$() and fits() says no; uncordon brings both back', async () => {
    const env = clusterEnv();
    const api = apiFor('admin');
    const seen: (readonly NodeInfo[])[] = [];
    const waiters: { predicate: (infos: readonly NodeInfo[]) => boolean; resolve: () => void }[] = [];
    const subscription = nodes$(api, { informers: new InformerRegistry() }).subscribe((infos) => {
      seen.push(infos);
      for (const waiter of [...waiters]) if (waiter.predicate(infos)) waiter.resolve();
    });
    // Uncordoned means both: spec.unschedulable cleared by kubectl, and the node controller's
    // unschedulable taint removed after it (until then the scheduler refuses too).
    const until = (schedulable: boolean) =>
      new Promise<void>((resolve, reject) => {
        const predicate = (infos: readonly NodeInfo[]) => {
          const info = infos.find((candidate) => candidate.name === env.nodeName);
          return schedulable ? info?.schedulable === true && info.taints.length === 0 : info?.schedulable === false;
        };
        if (seen.at(-1) && predicate(seen.at(-1)!)) return resolve();
        const timer = setTimeout(() => reject(new Error(`node never became schedulable=${schedulable}`)), 30_000);
        waiters.push({ predicate, resolve: () => (clearTimeout(timer), resolve()) });
      });
    try {
      await until(true);
      kubectl(['cordon', env.nodeName]);
      await until(false);
      const verdict = await fits(api, spec);
      expect(verdict.fits).toBe(false);
      expect(verdict.nodes.find((fit) => fit.name === env.nodeName)?.reasons).toEqual(['cordoned (unschedulable)']);
    } finally {
      kubectl(['uncordon', env.nodeName]);
    }
    try {
      await until(true);
      expect((await fits(api, spec)).fits).toBe(true);
    } finally {
      subscription.unsubscribe();
    }
  });
});

describe('the CLI, the Manager adapter and the examples, as a user runs them', () => {
  function run(args: readonly string[]): Promise<ProcessRun> {
    return runNode(args, { env: { ...process.env, KUBECONFIG: '' }, killAfterMs: 60_000 });
  }

  it('kube-provision check: exit 0 for the admin, 5 for the viewer with the missing verbs; -o json is one object', async () => {
    const env = clusterEnv();
    const admin = await run([
      'dist/cli/main.js',
      'check',
      '--kubeconfig',
      env.kubeconfigs.admin,
      '-n',
      namespace,
      '--cpus',
      '0.5',
      '--memory-mb',
      '256',
    ]);
    expect(admin.code).toBe(0);
    expect(admin.stdout.split('\n')[0]).toMatch(
      // The one warning: the local cluster has no default StorageClass.
      new RegExp(`^Checked ${env.server}, context kube-provisioner-local, namespace ${namespace} in \\d+ ms: ready \\(1 warning\\)$`),
    );
    expect(admin.stdout.split('\n').filter((line) => / {2}(FAIL|WARN|skip) {2}/.test(line))).toEqual([
      expect.stringMatching(/^storage +WARN +no default StorageClass: a container with storage must name one/),
      expect.stringMatching(/^runtime-class +skip +no RuntimeClass named/),
    ]);

    const viewer = await run(['dist/cli/main.js', 'check', '--kubeconfig', env.kubeconfigs.viewer, '-n', namespace]);
    expect(viewer.code).toBe(5);
    expect(viewer.stdout).toContain(
      `create: missing ${VIEWER_MISSING('create').length} of ${OPERATION_PERMISSIONS.create.length} in namespace ${namespace}: ${VIEWER_MISSING('create').join(', ')}`,
    );
    expect(viewer.stdout).toMatch(
      /permissions:lifecycle +FAIL +.*patch deployments\.apps, update deployments\.apps, delete deployments\.apps/,
    );

    const json = await run(['dist/cli/main.js', 'check', '--kubeconfig', env.kubeconfigs.restricted, '-n', namespace, '-o', 'json']);
    expect(json.code).toBe(5);
    expect(json.stdout.trim().split('\n')).toHaveLength(1);
    expect((JSON.parse(json.stdout) as CheckReport).items.find((entry) => entry.id === 'permissions:create')?.missing).toHaveLength(
      OPERATION_PERMISSIONS.create.length,
    );
    for (const output of [admin, viewer, json]) expectNoToken(`${output.stdout}${output.stderr}`);
  });

  it('kube-provision nodes: the KWOK node in the table and in JSON; the viewer gets exit 5', async () => {
    const env = clusterEnv();
    const table = await run(['dist/cli/main.js', 'nodes', '--kubeconfig', env.kubeconfigs.admin, '--cpus', '1', '--memory-mb', '512']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`^${env.nodeName} +Ready +\\S+ +yes +\\d+\\.\\d+\\.\\d+\\.\\d+ +- `, 'm'));
    expect(table.stdout).toMatch(/^fits: 1 CPU and 512Mi memory fits on 1 of 1 node\(s\)/m);
    const json = await run(['dist/cli/main.js', 'nodes', '--kubeconfig', env.kubeconfigs.admin, '-o', 'json']);
    expect((JSON.parse(json.stdout) as { nodes: NodeInfo[] }).nodes.map((info) => info.name)).toContain(env.nodeName);
    const denied = await run(['dist/cli/main.js', 'nodes', '--kubeconfig', env.kubeconfigs.viewer]);
    expect(denied.code).toBe(5);
    expect(denied.stderr).toMatch(/^error: ForbiddenError: Forbidden \(403\): the user may not list (nodes|pods)/);
    for (const output of [table, json, denied]) expectNoToken(`${output.stdout}${output.stderr}`);
  });

  it('checkKubernetesNode: ok for the admin, the missing verbs for the viewer; the answer holds no kubeconfig content', async () => {
    const env = clusterEnv();
    const admin = await checkKubernetesNode({ id: 7, name: 'k8s-local', kubeconfigPath: env.kubeconfigs.admin, kubeNamespace: namespace });
    expect(admin).toMatchObject({
      ok: true,
      settings: { kubeconfigPath: env.kubeconfigs.admin, kubeContext: undefined, kubeNamespace: namespace, tlsVerify: true },
    });
    const viewer = await checkKubernetesNode(
      { name: 'k8s-local', kubeconfigPath: env.kubeconfigs.viewer, kubeNamespace: namespace },
      { needs: 'create' },
    );
    expect(viewer.ok).toBe(false);
    expect(viewer.report.items.find((entry) => entry.id === 'permissions:create')?.missing).toEqual(VIEWER_MISSING('create'));
    const caData = /certificate-authority-data: (\S+)/.exec(readFileSync(env.kubeconfigs.admin, 'utf8'))?.[1];
    for (const answer of [admin, viewer]) {
      expectNoToken(answer);
      expect(JSON.stringify(answer)).not.toContain(caData!.slice(0, 64));
    }
  });

  it("checkKubernetesNode on a token node (apiUrl and secret, the CA from the node's own data): ok for the admin, 401 for a wrong token", async () => {
    const env = clusterEnv();
    const caData = /certificate-authority-data: (\S+)/.exec(readFileSync(env.kubeconfigs.admin, 'utf8'))?.[1];
    const node = { id: 8, name: 'k8s-token', apiUrl: env.server, secret: tokenOf(env.kubeconfigs.admin), kubeNamespace: namespace };
    // Manager's row has no CA column: a token node trusts Node's CAs, so the test cluster's
    // self-signed one is reached with verification off, as such a node would be configured.
    const admin = await checkKubernetesNode({ ...node, tlsVerify: false });
    expect(admin).toMatchObject({
      ok: true,
      settings: { credentials: 'token', apiUrl: env.server, kubeNamespace: namespace, tlsVerify: false },
    });
    const verified = await checkKubernetesNode(node);
    expect(verified.ok).toBe(false);
    expect(verified.report.items.find((entry) => entry.id === 'tls')?.status).toBe('fail');
    const wrong = await checkKubernetesNode({ ...node, tlsVerify: false, secret: 'not-a-token-of-this-cluster' });
    expect(wrong.ok).toBe(false);
    expect(wrong.report.items.find((entry) => entry.status === 'fail')?.error).toBe('UnauthorizedError');
    for (const answer of [admin, verified, wrong]) {
      expectNoToken(answer);
      expect(JSON.stringify(answer)).not.toContain(caData!.slice(0, 64));
    }
  });

  it('the examples in docs/cluster-check.md run as written', async () => {
    const env = clusterEnv();
    const checked = await run(['examples/check-cluster.mjs', env.kubeconfigs.viewer, namespace]);
    expect(checked.code).toBe(1);
    expect(checked.stdout).toContain(
      `fail permissions:create: create: missing ${VIEWER_MISSING('create').length} of ${OPERATION_PERMISSIONS.create.length}`,
    );
    expect(checked.stdout.trim().split('\n').at(-1)).toBe(`grant these first: ${VIEWER_MISSING('create').join(', ')}`);

    const listed = await run(['examples/nodes-and-fits.mjs', env.kubeconfigs.admin]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(
      new RegExp(
        `^${env.nodeName}: Ready since \\S+, schedulable, InternalIP \\d+\\.\\d+\\.\\d+\\.\\d+, \\d+m of 1000000m CPU requested$`,
        'm',
      ),
    );
    expect(listed.stdout).toMatch(/^fits: 2 CPU and 1Gi memory fits on 1 of 1 node\(s\)/m);

    const saved = await run(['examples/manager-node-check.cjs', env.kubeconfigs.admin, namespace]);
    expect(saved.stdout.trim()).toMatch(
      /^200 \["kubeconfig=pass","tls=pass","api=pass","identity=pass","watch-list=pass","namespace=pass","permissions:create=pass","permissions:lifecycle=pass","resources=skip","gpus=pass","storage=warn","runtime-class=skip","stop-signal=pass"\]$/,
    );
    const refused = await run(['examples/manager-node-check.cjs', 'kubeconfigs/admin', namespace]);
    expect(refused.stdout.trim()).toMatch(/^400 \[\{"field":"kubeconfigPath","message":"must be an absolute path/);
    for (const output of [checked, listed, saved, refused]) {
      expect(output.stderr).toBe('');
      expectNoToken(output.stdout);
    }
  });
});
