// check() against the fake client (test/support/fake-kube.ts) in virtual time: how the
// answers become items, which item carries a root cause, and the time bound (a silent
// server costs exactly timeoutMs of virtual time, and its requests are aborted). The
// integration suite runs the same checks against the real control plane.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Node, V1ResourceAttributes } from '../../../src/kube/objects.js';
import { VirtualAction, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { check, type CheckOptions } from '../../../src/cluster/check.js';
import type { CheckItem, CheckReport } from '../../../src/cluster/check-report.js';
import { ApiUnreachableError, ForbiddenError, NotFoundError, TlsError, UnauthorizedError } from '../../../src/errors/api.js';
import { InvalidOptionError, InvalidSpecError } from '../../../src/errors/input.js';
import { OperationAbortedError } from '../../../src/errors/operation.js';
import { FakeKubernetes } from '../../support/fake-kube.js';

const SERVER = 'https://fake.invalid:6443';
const VIEWER_VERBS = new Set(['get', 'list', 'watch']);

/** Runs check() on a virtual clock: answers settle first, then the clock runs out. */
async function runCheck(fake: FakeKubernetes, options: CheckOptions = {}): Promise<CheckReport> {
  const scheduler = new VirtualTimeScheduler(VirtualAction, Infinity);
  const report = check(fake, { ...options, scheduler });
  await new Promise((resolve) => setImmediate(resolve));
  scheduler.flush();
  return report;
}

function item(report: CheckReport, id: CheckItem['id']): CheckItem {
  const found = report.items.find((candidate) => candidate.id === id);
  if (!found) throw new Error(`no item ${id}`);
  return found;
}

const statuses = (report: CheckReport) => Object.fromEntries(report.items.map((entry) => [entry.id, entry.status]));

/** Every request the fake serves fails with `error` (as when the connection itself fails). */
function failEverything(fake: FakeKubernetes, error: Error): void {
  for (const method of [
    'version',
    'selfSubjectReview',
    'readNamespace',
    'listLimitRanges',
    'listResourceQuotas',
    'watch',
    'create',
  ] as const) {
    fake.failNext(method, error);
  }
  // Cluster-wide lists: the nodes (gpus) and the StorageClasses (storage), with room for one more.
  for (let index = 0; index < 3; index += 1) fake.failNext('list', error);
  for (let index = 0; index < 20; index += 1) fake.failNext('selfSubjectAccessReview', error);
}

/** The cluster's default class, as the local control plane's test storage makes one. */
async function withDefaultClass(fake: FakeKubernetes, allowVolumeExpansion = true): Promise<FakeKubernetes> {
  await fake.create('storageclasses', '', {
    metadata: { name: 'standard', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    provisioner: 'example.com/csi',
    volumeBindingMode: 'WaitForFirstConsumer',
    reclaimPolicy: 'Delete',
    allowVolumeExpansion,
  });
  return fake;
}

function withConnection(fake: FakeKubernetes, tlsVerify = true): FakeKubernetes {
  fake.connection = { kubeconfigPath: '/etc/kp/config', context: 'prod', server: SERVER, tlsVerify, customCa: true };
  return fake;
}

describe('check() with every answer good', () => {
  it('passes every item it can check, in report order, as plain JSON', async () => {
    const fake = withConnection(await withDefaultClass(new FakeKubernetes()));
    await fake.create('runtimeclasses', '', { metadata: { name: 'cgroup-writable' }, handler: 'cgroup-writable' });
    const report = await runCheck(fake, { spec: { cpus: 0.5, memoryMb: 256, runtimeClass: 'cgroup-writable' } });
    expect(report.items.map((entry) => entry.id)).toEqual([
      'kubeconfig',
      'tls',
      'api',
      'identity',
      'watch-list',
      'namespace',
      'permissions:create',
      'permissions:lifecycle',
      'resources',
      'gpus',
      'storage',
      'runtime-class',
      'stop-signal',
    ]);
    expect(report.items.every((entry) => entry.status === 'pass')).toBe(true);
    expect(report).toMatchObject({
      ok: true,
      namespace: 'default',
      server: SERVER,
      context: 'prod',
      kubeconfigPath: '/etc/kp/config',
      tlsVerify: true,
    });
    expect(item(report, 'api')).toMatchObject({ serverVersion: 'v1.36.3', message: `Kubernetes v1.36.3 answers at ${SERVER}` });
    expect(item(report, 'identity').user).toEqual({ username: 'fake-admin', groups: ['system:masters', 'system:authenticated'] });
    expect(item(report, 'permissions:lifecycle').permissions).toHaveLength(29);
    expect(item(report, 'resources').message).toBe('500m CPU and 256Mi memory: no LimitRange or ResourceQuota in namespace default');
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
  });

  it('asks each permission once, in the namespace checked, as kubectl auth can-i does; the probe watch is closed', async () => {
    const fake = new FakeKubernetes();
    fake.namespaces.add('team-a');
    const asked: V1ResourceAttributes[] = [];
    fake.authorize = (attributes) => (asked.push(attributes), true);
    const report = await runCheck(fake, { namespace: 'team-a' });
    expect(report.ok).toBe(true);
    expect(asked).toHaveLength(31);
    expect(
      new Set(asked.map((attributes) => `${attributes.verb} ${attributes.group}/${attributes.resource}/${attributes.subresource ?? ''}`))
        .size,
    ).toBe(31);
    // StorageClasses are cluster-scoped: asked without a namespace; everything else in the one checked.
    const clusterWide = asked.filter((attributes) => attributes.resource === 'storageclasses');
    expect(clusterWide.map((attributes) => `${attributes.verb} ${attributes.group}`).sort()).toEqual([
      'get storage.k8s.io',
      'list storage.k8s.io',
    ]);
    expect(clusterWide.every((attributes) => attributes.namespace === undefined)).toBe(true);
    expect(
      asked.filter((attributes) => attributes.resource !== 'storageclasses').every((attributes) => attributes.namespace === 'team-a'),
    ).toBe(true);
    expect(fake.calls.filter((call) => call.method === 'watch')).toEqual([
      { method: 'watch', kind: 'deployments', namespace: 'team-a', streamingList: true },
    ]);
    expect(fake.activeWatches).toBe(0);
  });

  it('a client without kubeconfig facts skips the kubeconfig and TLS items rather than guessing', async () => {
    const report = await runCheck(new FakeKubernetes());
    expect(item(report, 'kubeconfig')).toMatchObject({ status: 'skip', message: 'a client was passed in: no kubeconfig loaded here' });
    expect(item(report, 'tls').status).toBe('skip');
    expect(item(report, 'resources')).toMatchObject({ status: 'skip' });
    expect(report.ok).toBe(true);
  });
});

describe('check() reports what is wrong', () => {
  it('a viewer-like user: the missing verbs per operation, as failures', async () => {
    const fake = new FakeKubernetes();
    fake.authorize = (attributes) => VIEWER_VERBS.has(attributes.verb ?? '');
    const report = await runCheck(fake);
    expect(report.ok).toBe(false);
    expect(item(report, 'permissions:create')).toMatchObject({
      status: 'fail',
      needed: true,
      missing: ['create persistentvolumeclaims', 'create deployments.apps', 'create services'],
    });
    const missing = [
      'create persistentvolumeclaims',
      'create deployments.apps',
      'create services',
      'patch persistentvolumeclaims',
      'delete persistentvolumeclaims',
      'patch deployments.apps',
      'update deployments.apps',
      'delete deployments.apps',
      'create pods/exec',
      'patch services',
      'delete services',
    ];
    expect(item(report, 'permissions:lifecycle')).toMatchObject({
      status: 'fail',
      missing,
      message: `lifecycle: missing 11 of 29 in namespace default: ${missing.join(', ')}`,
    });
  });

  it('needs: create makes the lifecycle verbs a warning; the authorizer reason is kept', async () => {
    const fake = new FakeKubernetes();
    fake.authorize = (attributes) =>
      attributes.verb === 'delete' ? { allowed: false, reason: 'no RBAC policy\nmatched' } : { allowed: true };
    const report = await runCheck(fake, { needs: 'create' });
    expect(report.ok).toBe(true);
    expect(report.needs).toBe('create');
    expect(item(report, 'permissions:create').status).toBe('pass');
    const lifecycle = item(report, 'permissions:lifecycle');
    expect(lifecycle).toMatchObject({
      status: 'warn',
      needed: false,
      missing: ['delete persistentvolumeclaims', 'delete deployments.apps', 'delete services'],
    });
    expect(lifecycle.permissions?.find((answer) => !answer.allowed)).toEqual({
      permission: 'delete persistentvolumeclaims',
      allowed: false,
      reason: 'no RBAC policy matched',
    });
  });

  it('a missing namespace fails its own item, and the quota item says why it was not checked', async () => {
    const fake = new FakeKubernetes();
    fake.namespaces.clear();
    const report = await runCheck(fake, { spec: { cpus: 1, memoryMb: 128 } });
    expect(statuses(report)).toMatchObject({ namespace: 'fail', api: 'pass', 'permissions:create': 'pass', resources: 'skip' });
    expect(item(report, 'namespace')).toMatchObject({
      message: 'namespace default does not exist (create it, or choose another)',
      error: 'NotFoundError',
    });
    expect(item(report, 'resources').message).toBe('not checked: namespace default does not exist');
  });

  it('may not read namespaces, LimitRanges or quotas: warnings that say so, not failures', async () => {
    const fake = new FakeKubernetes();
    fake.failNext('readNamespace', new ForbiddenError({ verb: 'get', resource: 'namespaces', name: 'default' }));
    fake.failNext('listLimitRanges', new ForbiddenError({ verb: 'list', resource: 'limitranges', namespace: 'default' }));
    fake.failNext('watch', new ForbiddenError({ verb: 'watch', resource: 'deployments', namespace: 'default' }));
    const report = await runCheck(fake, { spec: { cpus: 1, memoryMb: 128 } });
    expect(report.ok).toBe(true);
    expect(item(report, 'namespace')).toMatchObject({
      status: 'warn',
      message: 'cannot tell whether namespace default exists: may not get namespaces',
    });
    expect(item(report, 'resources')).toMatchObject({
      status: 'warn',
      message: 'cannot tell: may not list limitranges in namespace default',
    });
    expect(item(report, 'watch-list')).toMatchObject({
      status: 'warn',
      message: 'cannot tell: may not watch deployments in namespace default',
    });
  });

  it('a LimitRange and a quota that refuse the spec fail the resources item, each refusal listed', async () => {
    const fake = new FakeKubernetes();
    fake.limitRanges.push({
      metadata: { name: 'caps', namespace: 'default' },
      spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] },
    });
    fake.resourceQuotas.push({
      metadata: { name: 'mem', namespace: 'default' },
      spec: { hard: { 'requests.memory': '1Gi' } },
      status: { hard: { 'requests.memory': '1Gi' }, used: { 'requests.memory': '900Mi' } },
    });
    fake.resourceQuotas.push({
      metadata: { name: 'elsewhere', namespace: 'other' },
      spec: { hard: { pods: '0' } },
      status: { hard: { pods: '0' } },
    });
    const report = await runCheck(fake, { spec: { cpus: 2, memoryMb: 256 } });
    expect(report.ok).toBe(false);
    expect(item(report, 'resources')).toMatchObject({
      status: 'fail',
      refusals: [
        'LimitRange caps: cpu 2 per Container is above the maximum 1',
        'ResourceQuota mem: requests.memory would be 1156Mi, above its hard limit 1Gi (900Mi used)',
      ],
    });
  });

  it('TLS verification turned off is a warning that says so', async () => {
    const report = await runCheck(withConnection(new FakeKubernetes(), false));
    expect(report.ok).toBe(true);
    expect(report.tlsVerify).toBe(false);
    expect(item(report, 'tls')).toMatchObject({
      status: 'warn',
      message: "OFF: TLS verification was turned off explicitly; the API server's identity is not verified",
    });
  });

  it('streaming lists not served, SelfSubjectReview not served: warned and skipped, still ok', async () => {
    const fake = new FakeKubernetes();
    fake.supportsStreamingLists = false;
    fake.failNext('selfSubjectReview', new NotFoundError('the server could not find the requested resource'));
    const report = await runCheck(fake);
    expect(report.ok).toBe(true);
    expect(item(report, 'watch-list')).toMatchObject({ status: 'warn', message: expect.stringMatching(/^streaming lists are not served/) });
    expect(item(report, 'identity')).toMatchObject({ status: 'skip', message: expect.stringContaining('not served') });
  });
});

describe('check() names one root cause when nothing gets through', () => {
  it('a TLS failure fails the tls item; everything else is skipped with a pointer to it', async () => {
    const fake = withConnection(new FakeKubernetes());
    failEverything(fake, new TlsError(SERVER, 'the certificate chain ends in a CA the kubeconfig does not trust'));
    const report = await runCheck(fake);
    expect(statuses(report)).toEqual({
      kubeconfig: 'pass',
      tls: 'fail',
      api: 'skip',
      identity: 'skip',
      'watch-list': 'skip',
      namespace: 'skip',
      'permissions:create': 'skip',
      'permissions:lifecycle': 'skip',
      resources: 'skip',
      gpus: 'skip',
      storage: 'skip',
      'runtime-class': 'skip',
      'stop-signal': 'skip',
    });
    expect(item(report, 'tls')).toMatchObject({ error: 'TlsError', message: expect.stringContaining('does not trust') });
    expect(item(report, 'namespace').message).toBe('not checked: TLS verification failed (see tls)');
  });

  it('an unreachable server fails the api item; TLS was never tried', async () => {
    const fake = withConnection(new FakeKubernetes());
    failEverything(fake, new ApiUnreachableError(SERVER, 'ECONNREFUSED during get version (cluster scope)'));
    const report = await runCheck(fake, { spec: { cpus: 1, memoryMb: 64 } });
    expect(statuses(report)).toMatchObject({ tls: 'skip', api: 'fail', identity: 'skip', 'permissions:create': 'skip', resources: 'skip' });
    expect(item(report, 'api')).toMatchObject({ error: 'ApiUnreachableError', message: expect.stringContaining('ECONNREFUSED') });
    expect(item(report, 'tls').message).toBe('on, not tried: the API server is unreachable');
  });

  it('rejected credentials fail the identity item; the server did answer', async () => {
    const fake = withConnection(new FakeKubernetes());
    failEverything(fake, new UnauthorizedError(SERVER));
    const report = await runCheck(fake);
    expect(statuses(report)).toMatchObject({
      tls: 'pass',
      api: 'pass',
      identity: 'fail',
      namespace: 'skip',
      'permissions:lifecycle': 'skip',
    });
    expect(item(report, 'identity').error).toBe('UnauthorizedError');
    expect(item(report, 'permissions:create').message).toBe('not checked: the credentials were rejected (see identity)');
  });
});

describe('check() reports the storage a container meets (the storage item)', () => {
  it('the default class, its binding mode and expansion, and the cluster-wide storageclasses verbs: pass', async () => {
    const fake = await withDefaultClass(new FakeKubernetes());
    await fake.create('storageclasses', '', { metadata: { name: 'fixed' }, provisioner: 'kubernetes.io/no-provisioner' });
    const storage = item(await runCheck(fake), 'storage');
    expect(storage).toMatchObject({
      status: 'pass',
      needed: false,
      storageClasses: ['standard', 'fixed'],
      defaultStorageClass: {
        name: 'standard',
        provisioner: 'example.com/csi',
        bindingMode: 'WaitForFirstConsumer',
        allowsExpansion: true,
        reclaimPolicy: 'Delete',
        isDefault: true,
      },
      permissions: [
        { permission: 'get storageclasses.storage.k8s.io', allowed: true },
        { permission: 'list storageclasses.storage.k8s.io', allowed: true },
      ],
      missing: [],
    });
    expect(storage.message).toBe(
      'default StorageClass standard: provisioner example.com/csi, binds when the Pod is scheduled (WaitForFirstConsumer), ' +
        'allows expansion, reclaim Delete; may get and list storageclasses cluster-wide',
    );
  });

  it('no default class: a warning naming the option and the classes there are; the report stays ok', async () => {
    const fake = new FakeKubernetes();
    await fake.create('storageclasses', '', { metadata: { name: 'fixed' }, provisioner: 'kubernetes.io/no-provisioner' });
    const report = await runCheck(fake);
    expect(report.ok).toBe(true);
    expect(item(report, 'storage')).toMatchObject({
      status: 'warn',
      defaultStorageClass: null,
      message: expect.stringMatching(
        /^no default StorageClass: a container with storage must name one \(storage.storageClass, --storage-class\); the cluster has fixed;/,
      ),
    });
  });

  it('a default class without expansion, or without the cluster-wide verbs: warnings that say which', async () => {
    const fake = await withDefaultClass(new FakeKubernetes(), false);
    fake.authorize = (attributes) => attributes.resource !== 'storageclasses' || attributes.verb === 'get';
    const storage = item(await runCheck(fake), 'storage');
    expect(storage).toMatchObject({ status: 'warn', missing: ['list storageclasses.storage.k8s.io'] });
    expect(storage.message).toMatch(/does not allow expansion, reclaim Delete \(reconfigure cannot grow its volumes\)/);
    expect(storage.message).toMatch(
      /missing cluster-wide: list storageclasses.storage.k8s.io \(a ClusterRole grants them: docs\/rbac.md\)$/,
    );
  });

  it('may not list StorageClasses: cannot tell the default, a warning naming the verb', async () => {
    const fake = new FakeKubernetes();
    fake.forbiddenKinds.add('storageclasses');
    fake.authorize = (attributes) => attributes.resource !== 'storageclasses';
    const storage = item(await runCheck(fake), 'storage');
    expect(storage).toMatchObject({
      status: 'warn',
      error: 'ForbiddenError',
      missing: ['get storageclasses.storage.k8s.io', 'list storageclasses.storage.k8s.io'],
      message: expect.stringMatching(/^cannot tell which StorageClass is the default: may not list storageclasses; missing cluster-wide/),
    });
  });
});

describe('check() is bounded in time (virtual clock)', () => {
  it('a silent server: the api item fails at exactly timeoutMs and every request is aborted', async () => {
    const fake = new FakeKubernetes();
    for (const method of [
      'version',
      'selfSubjectReview',
      'readNamespace',
      'selfSubjectAccessReview',
      'listLimitRanges',
      'listResourceQuotas',
      'list',
    ] as const) {
      fake.hang(method);
    }
    fake.failNext('watch', new ApiUnreachableError(SERVER, 'no answer'));
    const report = await runCheck(fake, { timeoutMs: 2_500, spec: { cpus: 1, memoryMb: 64 } });
    expect(report.durationMs).toBe(2_500);
    expect(item(report, 'api')).toMatchObject({ status: 'fail', durationMs: 2_500, message: `${SERVER} gave no answer within 2500 ms` });
    expect(report.items.filter((entry) => entry.status === 'fail').map((entry) => entry.id)).toEqual(['api']);
  });

  it('one slow answer: only its item waits out the bound; the others keep their own time', async () => {
    const fake = new FakeKubernetes();
    fake.hang('readNamespace');
    const report = await runCheck(fake);
    expect(report.durationMs).toBe(10_000);
    expect(item(report, 'namespace')).toMatchObject({ status: 'fail', durationMs: 10_000, message: 'no answer within 10000 ms' });
    expect(item(report, 'api')).toMatchObject({ status: 'pass', durationMs: 0 });
    expect(item(report, 'permissions:create').status).toBe('pass');
  });

  it('slow access reviews: the permission items say they could not be reviewed', async () => {
    const fake = new FakeKubernetes();
    fake.hang('selfSubjectAccessReview');
    const report = await runCheck(fake, { timeoutMs: 1_000, needs: 'create' });
    expect(item(report, 'permissions:create')).toMatchObject({
      status: 'fail',
      message: 'could not review the permissions: no answer within 1000 ms',
    });
    expect(item(report, 'permissions:lifecycle').status).toBe('warn');
  });

  it('an abort mid-check rejects with OperationAbortedError and leaves nothing open', async () => {
    const fake = new FakeKubernetes();
    fake.hang('version');
    const controller = new AbortController();
    const report = check(fake, { signal: controller.signal });
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new Error('user left'));
    await expect(report).rejects.toBeInstanceOf(OperationAbortedError);
    expect(fake.activeWatches).toBe(0);
  });

  it('an already-aborted signal rejects at once, before any request', async () => {
    const fake = new FakeKubernetes();
    const controller = new AbortController();
    controller.abort();
    await expect(check(fake, { signal: controller.signal })).rejects.toBeInstanceOf(OperationAbortedError);
    expect(fake.calls).toEqual([]);
  });
});

describe('check() input', () => {
  it.each([
    [{ spec: { cpus: 0, memoryMb: 64 } }, InvalidSpecError, /cpus: must be greater than 0/],
    [{ spec: { cpus: 1 } }, InvalidSpecError, /memoryMb: is required/],
    [{ needs: 'everything' as never }, InvalidOptionError, /needs must be one of create, lifecycle/],
    [{ timeoutMs: 0 }, InvalidOptionError, /timeoutMs/],
    // The duration rule (input/duration.ts): at most 365 days; longer timers are chained, so 2 ** 31 is accepted.
    [{ timeoutMs: 365 * 24 * 60 * 60 * 1000 + 1 }, InvalidOptionError, /timeoutMs/],
    [{ timeoutMs: Infinity }, InvalidOptionError, /timeoutMs/],
    [{ namespace: 'Team_A' }, InvalidOptionError, /namespace must be a DNS-1123 label/],
  ])('rejects %j before any request', async (options, ErrorClass, message) => {
    const fake = new FakeKubernetes();
    const rejection = check(fake, options);
    await expect(rejection).rejects.toBeInstanceOf(ErrorClass);
    await expect(rejection).rejects.toThrow(message);
    expect(fake.calls).toEqual([]);
  });

  it('a kubeconfig that does not load fails the kubeconfig item; nothing else is asked', async () => {
    const report = await check({ kubeconfigPath: '/nonexistent/kube/config' }, { namespace: 'team-a' });
    expect(report).toMatchObject({ ok: false, server: null, namespace: 'team-a', kubeconfigPath: '/nonexistent/kube/config' });
    expect(item(report, 'kubeconfig')).toMatchObject({
      status: 'fail',
      error: 'KubeconfigNotFoundError',
      message: 'Kubeconfig not found at /nonexistent/kube/config',
    });
    expect(
      report.items
        .slice(1)
        .every((entry) => entry.status === 'skip' && entry.message === 'not checked: the kubeconfig did not load (see kubeconfig)'),
    ).toBe(true);
    expect(item(report, 'watch-list').needed).toBe(false);
  });

  it('an unknown context names the contexts there are and never the token of the file', async () => {
    const token = `kp-check-secret-${Math.random().toString(36).slice(2)}`;
    const path = join(mkdtempSync(join(tmpdir(), 'kp-check-')), 'config');
    writeFileSync(
      path,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]',
        `users: [{name: u, user: {token: ${token}}}]`,
        'contexts: [{name: real, context: {cluster: c, user: u}}]',
        'current-context: real',
      ].join('\n'),
    );
    const report = await check({ kubeconfigPath: path, context: 'typo' });
    expect(item(report, 'kubeconfig')).toMatchObject({
      status: 'fail',
      error: 'UnknownContextError',
      message: 'Context "typo" is not in the kubeconfig (available: real)',
    });
    expect(report).toMatchObject({ context: 'typo', kubeconfigPath: path });
    expect(JSON.stringify(report)).not.toContain(token);
  });
});

describe("check(): the cluster's GPU capacity", () => {
  const gpuNode = (name: string, allocatable: Record<string, string>, ready = true, unschedulable = false): V1Node => ({
    metadata: { name },
    spec: { unschedulable },
    status: {
      allocatable: { cpu: '4', memory: '8Gi', pods: '110', ...allocatable },
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
    },
  });

  it('no node offers it: said plainly, and it passes when nothing asks for a GPU', async () => {
    const fake = new FakeKubernetes();
    fake.addNode(gpuNode('plain-a', {}));
    fake.addNode(gpuNode('plain-b', {}));
    const report = await runCheck(fake);
    expect(item(report, 'gpus')).toMatchObject({
      status: 'pass',
      needed: false,
      message:
        'no node offers nvidia.com/gpu (0 of 2 nodes): a container that requests one stays Pending, Unschedulable: Insufficient nvidia.com/gpu',
      gpus: { resource: 'nvidia.com/gpu', total: 0, nodeCount: 2, nodes: [] },
    });
    expect(report.ok).toBe(true);
    // The resource named (the node's kubeGpuResource, say) and offered nowhere: a warning.
    expect(item(await runCheck(fake, { gpuResource: 'amd.com/gpu' }), 'gpus')).toMatchObject({
      status: 'warn',
      message: expect.stringMatching(/^no node offers amd\.com\/gpu \(0 of 2 nodes\)/),
    });
    // A spec that asks for one: the item is needed, and fails.
    const asked = await runCheck(fake, { spec: { cpus: 1, memoryMb: 64, gpus: 1 } });
    expect(item(asked, 'gpus')).toMatchObject({ status: 'fail', needed: true });
    expect(asked.ok).toBe(false);
  });

  it('the total and each node that offers it (allocatable), its own resource only; a spec is placed on a Ready, schedulable node with enough', async () => {
    const fake = new FakeKubernetes();
    fake.addNode(gpuNode('gpu-b', { 'nvidia.com/gpu': '2' }));
    fake.addNode(gpuNode('gpu-a', { 'nvidia.com/gpu': '4' }, false));
    fake.addNode(gpuNode('amd', { 'amd.com/gpu': '8' }));
    fake.addNode(gpuNode('plain', {}));
    const report = await runCheck(fake);
    expect(item(report, 'gpus')).toMatchObject({
      status: 'pass',
      message: 'nvidia.com/gpu: 6 allocatable on 2 of 4 nodes (gpu-a 4, not Ready; gpu-b 2)',
      gpus: {
        resource: 'nvidia.com/gpu',
        total: 6,
        nodeCount: 4,
        nodes: [
          { name: 'gpu-a', allocatable: 4, ready: false, schedulable: true },
          { name: 'gpu-b', allocatable: 2, ready: true, schedulable: true },
        ],
      },
    });
    expect(item(await runCheck(fake, { gpuResource: 'amd.com/gpu' }), 'gpus').gpus).toMatchObject({ total: 8, nodes: [{ name: 'amd' }] });
    // A spec asking for GPUs without naming the resource counts the option's.
    expect(item(await runCheck(fake, { gpuResource: 'amd.com/gpu', spec: { cpus: 1, memoryMb: 64, gpus: 8 } }), 'gpus')).toMatchObject({
      status: 'pass',
      message: expect.stringMatching(/^amd\.com\/gpu: 8 allocatable .*: 8 fit on amd/),
    });
    expect(item(await runCheck(fake, { spec: { cpus: 1, memoryMb: 64, gpus: 2 } }), 'gpus')).toMatchObject({
      status: 'pass',
      needed: true,
      message: expect.stringMatching(/: 2 fit on gpu-b \(before other Pods' requests\)$/),
    });
    // Four only on a node that is not Ready: fails, naming the scheduler's words.
    expect(item(await runCheck(fake, { spec: { cpus: 1, memoryMb: 64, gpus: 4 } }), 'gpus')).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(
        /no Ready, schedulable node has 4, so such a container stays Pending, Unschedulable: Insufficient nvidia\.com\/gpu$/,
      ),
    });
  });

  it('may not list nodes: cannot tell, a warning; a bad or conflicting gpuResource is refused before any request', async () => {
    const fake = new FakeKubernetes();
    fake.failNext('list', new ForbiddenError({ verb: 'list', resource: 'nodes' }));
    expect(item(await runCheck(fake), 'gpus')).toMatchObject({
      status: 'warn',
      error: 'ForbiddenError',
      message: 'cannot tell: may not list nodes (a cluster-wide permission), so the nvidia.com/gpu capacity is unknown',
    });
    const quiet = new FakeKubernetes();
    await expect(check(quiet, { gpuResource: 'gpu' })).rejects.toThrow(InvalidOptionError);
    await expect(
      check(quiet, { gpuResource: 'amd.com/gpu', spec: { cpus: 1, memoryMb: 64, gpus: 1, gpuResource: 'nvidia.com/gpu' } }),
    ).rejects.toThrow(/gpuResource amd\.com\/gpu differs from the spec's nvidia\.com\/gpu/);
    expect(quiet.calls).toEqual([]);
  });
});

describe('check(): the RuntimeClass the containers run with (the runtime-class item)', () => {
  it('skipped when none is named; passes with its handler when it exists; fails, needed, when it does not', async () => {
    const fake = new FakeKubernetes();
    const none = await runCheck(fake);
    expect(item(none, 'runtime-class')).toMatchObject({ status: 'skip', needed: false });
    expect(none.ok).toBe(true);

    await fake.create('runtimeclasses', '', { metadata: { name: 'cgroup-writable' }, handler: 'cgroup-writable' });
    expect(item(await runCheck(fake, { runtimeClass: 'cgroup-writable' }), 'runtime-class')).toEqual({
      id: 'runtime-class',
      status: 'pass',
      needed: true,
      message: 'RuntimeClass cgroup-writable exists (handler cgroup-writable)',
      runtimeClassHandler: 'cgroup-writable',
      durationMs: 0,
    });
    // The spec's runtimeClass is the one checked when the option names none.
    expect(item(await runCheck(fake, { spec: { cpus: 1, memoryMb: 64, runtimeClass: 'cgroup-writable' } }), 'runtime-class').status).toBe(
      'pass',
    );

    const missing = await runCheck(fake, { runtimeClass: 'sysbox-runc' });
    expect(item(missing, 'runtime-class')).toMatchObject({
      status: 'fail',
      needed: true,
      error: 'NotFoundError',
      message: expect.stringMatching(/^RuntimeClass sysbox-runc does not exist: the API server refuses every Pod that names it/),
    });
    expect(missing.ok).toBe(false);
  });

  it('may not get runtimeclasses: cannot tell, a warning; a bad name is refused before any request', async () => {
    const fake = new FakeKubernetes();
    fake.failNext('read', new ForbiddenError({ verb: 'get', resource: 'runtimeclasses', namespace: '' }));
    expect(item(await runCheck(fake, { runtimeClass: 'cgroup-writable' }), 'runtime-class')).toMatchObject({
      status: 'warn',
      message: 'cannot tell whether RuntimeClass cgroup-writable exists: may not get runtimeclasses.node.k8s.io',
    });
    await expect(check(fake, { runtimeClass: 'Cgroup_Writable' })).rejects.toThrow(InvalidOptionError);
    await expect(check(fake, { spec: { cpus: 1, memoryMb: 64, runtimeClass: 'Cgroup_Writable' } })).rejects.toThrow(
      /spec\.runtimeClass must be a DNS-1123 subdomain/,
    );
  });
});

describe('check(): whether the API server keeps a Pod’s stop signal (the stop-signal item)', () => {
  it('asks with a dry run in the namespace; kept or dropped, it passes saying which, never needed', async () => {
    const keeps = new FakeKubernetes();
    const kept = item(await runCheck(keeps, { namespace: 'team-a' }), 'stop-signal');
    expect(kept).toMatchObject({
      status: 'pass',
      needed: false,
      stopSignal: 'kept',
      message: expect.stringMatching(/^lifecycle\.stopSignal is kept/),
    });
    expect(keeps.calls.filter((call) => call.method === 'create')).toEqual([
      { method: 'create', kind: 'deployments', namespace: 'team-a', name: '' },
    ]);
    expect(keeps.get('deployments', '', 'team-a')).toBeUndefined();
    const drops = new FakeKubernetes();
    drops.dropsStopSignals = true;
    expect(item(await runCheck(drops), 'stop-signal')).toMatchObject({
      status: 'pass',
      stopSignal: 'dropped',
      message:
        "lifecycle.stopSignal is dropped (the ContainerStopSignals feature gate is off): a system container's Pod goes without it, " +
        'so only an image with STOPSIGNAL SIGRTMIN+3 stops in seconds',
    });
  });

  it('a refused dry run (RBAC): cannot tell, a warning naming the permission and what a create then does', async () => {
    const fake = new FakeKubernetes();
    fake.failNext('create', new ForbiddenError({ verb: 'create', resource: 'deployments', namespace: 'default' }));
    const report = await runCheck(fake);
    expect(item(report, 'stop-signal')).toEqual({
      id: 'stop-signal',
      status: 'warn',
      needed: false,
      durationMs: 0,
      error: 'ForbiddenError',
      message:
        'cannot tell: may not create deployments.apps in namespace default (asked with a dry run, which stores nothing); ' +
        "a system container's Pod goes without lifecycle.stopSignal, with a warning",
    });
    expect(report.ok).toBe(true);
  });
});
