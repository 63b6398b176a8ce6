// Unit tests for the read commands (`get`, `status`): flags, usage errors (exit 2 before
// any kubeconfig is read), the table and line formats. runCli runs in-process with
// captured output; the paths that reach a cluster are in test/integration/status-cli.test.ts.
import { describe, expect, it } from 'vitest';
import { workloadAddress } from '../../../src/cli/commands/workload-address.js';
import { EXIT } from '../../../src/cli/exit-codes.js';
import { runCli } from '../../../src/cli/run.js';
import { formatStatusLine, formatStatusTable } from '../../../src/cli/status-format.js';
import { InvalidSpecError, UsageError } from '../../../src/errors/input.js';
import { unknownStatus } from '../../../src/rollout/unknown-status.js';
import { workloadStatus } from '../../../src/rollout/workload-status.js';
import type { WorkloadSnapshot } from '../../../src/workload/reads/list.js';
import { CONTAINER_ID_LABEL, MANAGED_LABEL, NODE_ID_LABEL } from '../../../src/input/labels.js';
import { deployment, readyPod } from '../../support/fixtures.js';

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { stdout: (l) => out.push(l), stderr: (l) => err.push(l) });
  return { code, out, err };
}

const missingKubeconfig = ['--kubeconfig', '/nonexistent/kubeconfig'];

describe('kube-provision get / status: flags', () => {
  it('the top usage lists the read commands', async () => {
    const { code, out } = await run(['--help']);
    expect(code).toBe(EXIT.ok);
    expect(out.join('\n')).toMatch(/get +list the Manager workloads/);
    expect(out.join('\n')).toMatch(/status +show one workload's status/);
  });

  it.each([['get'], ['status']])('%s --help prints its usage and exits 0', async (command) => {
    const { code, out } = await run([command, '--help']);
    expect(code).toBe(EXIT.ok);
    expect(out[0]).toMatch(new RegExp(`^Usage: kube-provision ${command}`));
    expect(out.join('\n')).toContain('--request-timeout');
  });

  it.each([
    [['get', '--bogus'], /Unknown option '--bogus'/],
    [['get', 'a/b', 'c/d'], /at most one PROVIDER_ID/],
    [['get', '-o', 'yaml'], /--output must be "text", "wide" or "json"/],
    [['status'], /exactly one PROVIDER_ID/],
    [['status', 'a/b', '-o', 'wide'], /--output must be "text" or "json"/],
    [['status', 'a/b', '--watch', '--timeout', '5s'], /--timeout bounds a single read/],
    [['status', 'a/b', '--timeout', 'soon'], /--timeout must be a duration/],
    [['get', '--request-timeout', 'x'], /--request-timeout must be a duration/],
  ])('%j is a usage error: exit 2, nothing read', async (argv, message) => {
    const { code, err } = await run([...argv, ...missingKubeconfig]);
    expect(code).toBe(EXIT.invalidInput);
    expect(err[0]).toMatch(message);
    expect(err[0]).toMatch(/^error: UsageError: /);
  });

  it('an invalid --container-id is invalid input (exit 2) naming the option, before any kubeconfig is read', async () => {
    const { code, err } = await run(['status', 'apps/web', '--container-id', 'a b', ...missingKubeconfig]);
    expect(code).toBe(EXIT.invalidInput);
    expect(err[0]).toMatch(/^error: InvalidOptionError: containerId must be a Kubernetes label value/);
  });

  it('-o json: errors are a JSON line on stdout too', async () => {
    const { code, out } = await run(['status', '-o', 'json', ...missingKubeconfig]);
    expect(code).toBe(EXIT.invalidInput);
    expect(JSON.parse(out[0]!)).toMatchObject({ type: 'error', name: 'UsageError' });
  });

  it('a missing kubeconfig is exit 5 (before any request)', async () => {
    const { code, err } = await run(['get', ...missingKubeconfig]);
    expect(code).toBe(EXIT.apiError);
    expect(err[0]).toMatch(/^error: KubeconfigNotFoundError: /);
  });

  it('a provider ID that is not namespace/name is invalid input (exit 2), before any kubeconfig is read', async () => {
    const { code, err } = await run(['status', 'a/b/c', ...missingKubeconfig]);
    expect(code).toBe(EXIT.invalidInput);
    expect(err[0]).toMatch(/^error: InvalidSpecError: .*providerId: must be "namespace\/deployment-name"/);
    const get = await run(['get', 'Apps/web', ...missingKubeconfig]);
    expect(get.code).toBe(EXIT.invalidInput);
  });
});

describe('workloadAddress', () => {
  it('a provider ID stands as is; a bare name takes the -n namespace, else the default', () => {
    expect(workloadAddress('apps/web', undefined, 'default')).toBe('apps/web');
    expect(workloadAddress('apps/web', 'apps', 'default')).toBe('apps/web');
    expect(workloadAddress('web', 'apps', 'default')).toBe('apps/web');
    expect(workloadAddress('web', undefined, 'team')).toBe('team/web');
  });

  it('a provider ID contradicting -n is a usage error, not a silent choice', () => {
    expect(() => workloadAddress('apps/web', 'other', 'default')).toThrow(UsageError);
    expect(() => workloadAddress('web_1', undefined, 'default')).toThrow(InvalidSpecError);
  });
});

describe('formats', () => {
  const labels = { [MANAGED_LABEL]: 'true', [NODE_ID_LABEL]: '7', [CONTAINER_ID_LABEL]: '42' };
  const running = workloadStatus(deployment({ labels }), [readyPod({ nodeName: 'kwok-node-0' })]);
  const snapshot = (name: string, detail = running): WorkloadSnapshot => ({
    vmid: `apps/${name}`,
    name,
    type: 'deployment',
    status: detail.state,
    providerId: `apps/${name}`,
    namespace: 'apps',
    containerId: '42',
    nodeId: '7',
    detail,
  });

  it('get: a padded table, header first; wide adds the detail columns, <none> for what is absent', () => {
    const rows = formatStatusTable([snapshot('web'), snapshot('db', unknownStatus('ApiUnreachable', 'down'))], false);
    expect(rows).toEqual([
      'PROVIDER-ID   CONTAINER-ID   NODE-ID   STATUS    ADDRESS   REASON',
      'apps/web      42             7         running   <none>    NewReplicaSetAvailable',
      'apps/db       42             7         unknown   <none>    ApiUnreachable',
    ]);
    expect(formatStatusTable([snapshot('web')], true)).toEqual([
      'PROVIDER-ID   CONTAINER-ID   NODE-ID   STATUS    ADDRESS   REASON                   PORTS    ROUTED   RESTARTS   POD-IP        NODE          IMAGE                                CPU      MEMORY   MESSAGE',
      'apps/web      42             7         running   <none>    NewReplicaSetAvailable   <none>   <none>   0          10.244.1.17   kwok-node-0   registry.example.com/manager:1.4.2   <none>   <none>   1/1 ready',
    ]);
  });

  it("get: a workload with ports shows its Service's address; wide adds its ports (node port first) and whether it routes", () => {
    const exposed = snapshot('ssh', {
      ...running,
      address: '172.18.0.2',
      service: {
        type: 'NodePort',
        address: '172.18.0.2',
        clusterIp: '10.96.0.12',
        ports: [
          { port: 22, protocol: 'tcp', name: 'tcp-22', nodePort: 30022 },
          { port: 53, protocol: 'udp', name: 'udp-53', nodePort: 30053 },
        ],
        routed: false,
        reason: 'EndpointNotReady',
        message: 'the Service does not route to the Pod yet',
      },
    });
    const [header, row] = formatStatusTable([exposed], true);
    const cells = (line: string | undefined): string[] => (line ?? '').split(/ {3,}/);
    const cell = (title: string): string | undefined => cells(row)[cells(header).indexOf(title)];
    expect(cell('ADDRESS')).toBe('172.18.0.2');
    expect(cell('PORTS')).toBe('30022:22/tcp,30053:53/udp');
    expect(cell('ROUTED')).toBe('no');
    expect(formatStatusTable([exposed], false)[1]).toContain('   172.18.0.2   ');
  });

  it('status: one line like create progress lines, with the address and the Pod IP when there are', () => {
    const event = {
      type: 'status' as const,
      at: '2025-01-15T10:00:01.234Z',
      namespace: 'apps',
      name: 'web',
      providerId: 'apps/web',
      containerId: '42',
      nodeId: '7',
      resourceVersion: '5',
      status: running,
    };
    expect(formatStatusLine(event)).toBe('10:00:01.234 apps/web running: 1/1 ready (pod IP 10.244.1.17 on kwok-node-0)');
    expect(formatStatusLine({ ...event, status: unknownStatus('Timeout', 'no answer') })).toBe('10:00:01.234 apps/web unknown: no answer');
    expect(formatStatusLine({ ...event, status: { ...running, address: '10.96.0.12' } })).toBe(
      '10:00:01.234 apps/web running: 1/1 ready (address 10.96.0.12, pod IP 10.244.1.17 on kwok-node-0)',
    );
  });
});
