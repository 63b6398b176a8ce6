// Unit tests for `kube-provision start|stop|restart|reconfigure|delete`: flag parsing, the
// exit code of each new failure class, and the human lines. Runs runCli in-process with
// captured output and no cluster (input errors never reach one); the commands against the
// real control plane are in test/integration/cli-lifecycle.test.ts.
import { describe, expect, it } from 'vitest';
import { describeLifecycleEvent } from '../../../src/workload/toolkit/lifecycle-words.js';
import { parseLifecycleArgs } from '../../../src/cli/commands/lifecycle-args.js';
import { EXIT, exitCodeFor } from '../../../src/cli/exit-codes.js';
import { errorRecord } from '../../../src/cli/format.js';
import { runCli } from '../../../src/cli/run.js';
import { OperationAbortedError } from '../../../src/errors/operation.js';
import { OperationTimeoutError } from '../../../src/workload/toolkit/operation.js';
import { ReconfigureFailedError } from '../../../src/workload/operations/reconfigure.js';
import { RolloutFailedError } from '../../../src/errors/rollout.js';
import { UsageError } from '../../../src/errors/input.js';
import { WorkloadDriftError } from '../../../src/members/drift.js';
import { WorkloadNotFoundError, WorkloadOwnershipError } from '../../../src/workload/toolkit/ownership.js';
import { WorkloadSupersededError } from '../../../src/workload/toolkit/guard-generation.js';
import type { LifecycleEvent } from '../../../src/workload/toolkit/lifecycle-events.js';

const where = { namespace: 'team-a', name: 'web' };

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { stdout: (l) => out.push(l), stderr: (l) => err.push(l) });
  return { code, out, err };
}

describe('parseLifecycleArgs', () => {
  it('takes the provider ID and kubectl-style flags', () => {
    expect(
      parseLifecycleArgs('stop', [
        'team-a/web',
        '--kubeconfig',
        '/k',
        '--context',
        'c',
        '--timeout',
        '90s',
        '-o',
        'json',
        '--container-id',
        '42',
      ]),
    ).toEqual({
      command: 'stop',
      providerId: 'team-a/web',
      api: { kubeconfigPath: '/k', context: 'c', namespace: 'team-a' },
      timeoutMs: 90_000,
      containerId: '42',
      output: 'json',
    });
  });

  it('reconfigure turns its flags into changes for the library (validated there, all at once)', () => {
    const parsed = parseLifecycleArgs('reconfigure', [
      'team-a/web',
      '--env',
      'A=1',
      '--env',
      'EMPTY=',
      '--unset-env',
      'OLD',
      '--cpus',
      '1.5',
      '--memory-mb',
      '2048',
      '--entrypoint',
      'sh -c "run it"',
      '--arg=-v',
      '--image',
      'nginx:1.28',
      '--rollback-on-failure',
    ]);
    expect(parsed).toMatchObject({
      changes: {
        env: { A: '1', EMPTY: '' },
        unsetEnv: ['OLD'],
        cpus: 1.5,
        memoryMb: 2048,
        entrypoint: 'sh -c "run it"',
        args: ['-v'],
        image: 'nginx:1.28',
      },
      rollbackOnFailure: true,
    });
  });

  it('reconfigure --port (repeatable) replaces the ports, --no-ports removes them, --service-type sets the type', () => {
    const set = parseLifecycleArgs('reconfigure', ['team-a/web', '--container-id', '42', '--port', '22', '--port', '53/udp']);
    expect(set).toMatchObject({
      containerId: '42',
      changes: {
        ports: [
          { port: 22, protocol: 'tcp' },
          { port: 53, protocol: 'udp' },
        ],
      },
    });
    expect(parseLifecycleArgs('reconfigure', ['team-a/web', '--no-ports'])).toMatchObject({ changes: { ports: [] } });
    expect(parseLifecycleArgs('reconfigure', ['team-a/web', '--port', '80', '--service-type', 'LoadBalancer'])).toMatchObject({
      changes: { ports: [{ port: 80, protocol: 'tcp' }], serviceType: 'LoadBalancer' },
    });
  });

  it.each([
    [['reconfigure', 'a/b', '--port', '22', '--no-ports'], /--no-ports and --port contradict each other/],
    [['reconfigure', 'a/b', '--port', '22/'], /--port must be PORT, PORT\/tcp or PORT\/udp/],
    [['start', 'a/b', '--port', '22'], /Unknown option '--port'/],
    [['stop'], /needs the workload's provider ID/],
    [['stop', 'a/b', 'c/d'], /takes one provider ID, got 2/],
    [['stop', 'a/b', '-n', 'other'], /does not match the provider ID's namespace a/],
    [['delete', 'a/b'], /delete needs --container-id/],
    [['reconfigure', 'a/b'], /needs at least one change/],
    [['reconfigure', 'a/b', '--env', 'NOEQUALS'], /--env must be KEY=VALUE/],
    [['start', 'a/b', '--image', 'x'], /Unknown option '--image'/],
    [['start', 'a/b', '-o', 'yaml'], /--output must be "text" or "json"/],
  ])('%j is a usage error', (argv, message) => {
    const [command, ...rest] = argv as [string, ...string[]];
    expect(() => parseLifecycleArgs(command as never, rest)).toThrow(UsageError);
    expect(() => parseLifecycleArgs(command as never, rest)).toThrow(message);
  });

  it('a bad provider ID names the field', () => {
    expect(() => parseLifecycleArgs('start', ['Not_Valid'])).toThrow(/providerId: must be "namespace\/deployment-name"/);
  });
});

describe('runCli lifecycle commands without a cluster', () => {
  it('exit 2 for invalid changes, before any kubeconfig is read', async () => {
    const result = await run(['reconfigure', 'team-a/web', '--cpus', 'lots', '--env', '9X=1', '--kubeconfig', '/nonexistent']);
    expect(result.code).toBe(EXIT.invalidInput);
    expect(result.err[0]).toMatch(/InvalidSpecError: Invalid workload spec: --env 9X: .*; --cpus: must be a finite number/);
  });

  it('-o json prints the error as one JSON line', async () => {
    const result = await run(['delete', 'team-a/web', '-o', 'json']);
    expect(result.code).toBe(EXIT.invalidInput);
    expect(JSON.parse(result.out[0]!)).toMatchObject({ type: 'error', name: 'UsageError' });
  });

  it('--help prints the command’s flags and exit codes', async () => {
    const result = await run(['reconfigure', '--help']);
    expect(result.code).toBe(0);
    expect(result.out[0]).toMatch(/^Usage: kube-provision reconfigure PROVIDER_ID/);
    expect(result.out[0]).toMatch(/--rollback-on-failure/);
    expect(result.out[0]).toMatch(/7 no such workload, 8 superseded/);
    const top = await run(['--help']);
    expect(top.out[0]).toMatch(/start .*\n.*stop .*\n.*restart .*\n.*reconfigure .*\n.*delete /);
  });
});

describe('exit codes of the lifecycle failures', () => {
  const failure = new RolloutFailedError(where, 'ErrImagePull', 'not found', { pod: 'web-1', container: 'web' });
  it.each([
    [new WorkloadNotFoundError(where), EXIT.notFound],
    [new WorkloadSupersededError('start', where, 3, { by: 'scale', replicas: 0, generation: 4 }), EXIT.superseded],
    [new WorkloadOwnershipError('remove', where, { expectedContainerId: '1', actualContainerId: '2', managed: true }), EXIT.conflict],
    [new WorkloadDriftError(where, [{ field: 'image', live: 'a', desired: 'b' }], 'x'), EXIT.conflict],
    [new OperationTimeoutError('stop', where, 1000), EXIT.timeout],
    [new OperationAbortedError('stop', where, new Error('x')), EXIT.aborted],
    [new ReconfigureFailedError(failure, { generation: 5 }), EXIT.rolloutFailed],
  ])('%s -> %d', (error, code) => expect(exitCodeFor(error)).toBe(code));

  it('JSON error records carry what a UI acts on', () => {
    expect(errorRecord(new ReconfigureFailedError(failure, new Error('refused')))).toMatchObject({
      name: 'ReconfigureFailedError',
      reason: 'ErrImagePull',
      restored: false,
      restoreError: 'refused',
    });
    expect(errorRecord(new WorkloadSupersededError('start', where, 3, { by: 'scale', replicas: 0, generation: 4 }))).toMatchObject({
      expectedGeneration: 3,
      supersededBy: { by: 'scale', replicas: 0, generation: 4 },
    });
    expect(errorRecord(new WorkloadDriftError(where, [{ field: 'image', live: 'a', desired: 'b' }], 'x')).fields).toEqual([
      { field: 'image', live: 'a', desired: 'b' },
    ]);
  });
});

describe('describeLifecycleEvent', () => {
  const base = { at: '2025-01-15T10:00:00.000Z', namespace: 'team-a', name: 'web', providerId: 'team-a/web' };
  it.each<[LifecycleEvent, string]>([
    [{ ...base, type: 'scaled', replicas: 0, previousReplicas: 1, generation: 4 }, 'team-a/web scaled from 1 to 0 (generation 4)'],
    [
      {
        ...base,
        type: 'diagnosed',
        pod: { severity: 'failed', reason: 'CrashLoopBackOff', message: 'back-off 10s', pod: 'web-1', container: 'web' },
      },
      'team-a/web pod web-1 (container web): CrashLoopBackOff: back-off 10s',
    ],
    [
      { ...base, type: 'patched', fields: ['image', 'env.A'], generation: 5, replicas: 0 },
      'team-a/web pod template updated: image, env.A (generation 5); stopped, it stays stopped',
    ],
    [
      { ...base, type: 'rollback', reason: 'ErrImagePull', generation: 6 },
      'team-a/web rollout failed (ErrImagePull): restoring the previous pod template (generation 6)',
    ],
    [{ ...base, type: 'started', changed: false, durationMs: 3 }, 'team-a/web already running: nothing to do'],
    [{ ...base, type: 'stopped', changed: true, durationMs: 1234 }, 'team-a/web stopped in 1.2s'],
    [
      { ...base, type: 'restarted', changed: false, running: false, durationMs: 3 },
      'team-a/web not running (stopped): it stays stopped, nothing was restarted',
    ],
    [{ ...base, type: 'removed', changed: false, durationMs: 3, storage: 'none', left: [] }, 'team-a/web already gone: nothing to delete'],
    [
      { ...base, type: 'removed', changed: true, durationMs: 1500, storage: 'kept', left: [] },
      'team-a/web deleted in 1.5s; its claim is kept',
    ],
    [
      {
        ...base,
        type: 'removed',
        changed: true,
        durationMs: 1500,
        storage: 'none',
        left: [{ kind: 'Service', object: 'web', uid: 'u3', message: 'Service team-a/web belongs to something other than Manager' }],
      },
      'team-a/web deleted in 1.5s; left untouched, not this container’s: Service web',
    ],
    [
      {
        ...base,
        type: 'left',
        kind: 'Service',
        object: 'web',
        uid: 'u3',
        message: 'Service team-a/web belongs to something other than Manager, not container-id 42: left untouched',
      },
      'team-a/web Service team-a/web belongs to something other than Manager, not container-id 42: left untouched',
    ],
    [
      { ...base, type: 'deleted', uid: 'u1', kind: 'PersistentVolumeClaim', object: 'web' },
      'team-a/web PersistentVolumeClaim web deleted (its data goes with it); waiting for it to be gone',
    ],
    [
      { ...base, type: 'deleted', uid: 'u2', kind: 'Deployment', object: 'web' },
      'team-a/web Deployment deleted; waiting for it and its pods to be gone',
    ],
    [
      { ...base, type: 'kept', uid: 'u1', kind: 'PersistentVolumeClaim', object: 'web' },
      'team-a/web PersistentVolumeClaim web kept, with its data: a create for the same container re-attaches it',
    ],
  ])('%j', (event, line) => expect(describeLifecycleEvent(event)).toBe(line));
});
