// One rule per field: the container id, the node id, the installation and the namespace
// are accepted or refused alike by the spec schema, an operation's options, a read's
// options and the CLI's flags, whatever the error each reports. FakeKubernetes where an
// operation runs (unit test): a refused value never reaches it.
import { describe, expect, it } from 'vitest';
import { InvalidOptionError, InvalidSpecError, UsageError } from '../../src/errors/input.js';
import { parseCreateArgs } from '../../src/cli/args.js';
import { apiOptionsFrom } from '../../src/cli/commands/cluster-flags.js';
import { FIELD_RULES } from '../../src/input/fields.js';
import { parseWorkloadSpec } from '../../src/input/workload-spec.js';
import { KubernetesApi } from '../../src/kube/kubernetes-api.js';
import { status } from '../../src/workload/reads/status.js';
import { start } from '../../src/workload/operations/start.js';
import { FakeKubernetes } from '../support/fake-kube.js';

const base = { containerId: 42, nodeId: 7, hostname: 'web', image: 'nginx:1.27', cpus: 0.5, memoryMb: 256 };

function specAccepts(field: string, value: unknown): boolean {
  try {
    parseWorkloadSpec({ ...base, [field]: value });
    return true;
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidSpecError);
    return false;
  }
}

async function accepts(run: () => Promise<unknown>, refusal: new (...args: never[]) => Error): Promise<boolean> {
  try {
    await run();
    return true;
  } catch (error) {
    if (error instanceof refusal) return false;
    return true; // refused later, for another reason: the value itself passed
  }
}

const ids: unknown[] = [1, 42, '42', 'web-7', 0, -1, 1.5, 2 ** 53, '', 'no spaces', 'a'.repeat(64), null, true];
const labels: unknown[] = ['m1', 'manager.east-1', '', 'no spaces', '-edge', 'a'.repeat(64), 42];
const namespaces: unknown[] = ['default', 'team-a', '', 'Team', 'a_b', 'a'.repeat(64), 7];

describe('one rule per field', () => {
  it.each(ids)('containerId %j: the spec and the operations agree', async (value) => {
    const rule = FIELD_RULES.containerId(value) === undefined;
    expect(specAccepts('containerId', value)).toBe(rule);
    expect(specAccepts('nodeId', value)).toBe(rule);
    const fake = new FakeKubernetes();
    expect(await accepts(() => start(fake, 'default/web', { containerId: value as never, timeoutMs: 1 }), InvalidSpecError)).toBe(rule);
    expect(await accepts(() => status(fake, 'default/web', { containerId: value as never, timeoutMs: 1 }), InvalidOptionError)).toBe(rule);
  });

  it.each(labels)('instance %j: the spec, the operations and the reads agree (the lifecycle checks it too)', async (value) => {
    const rule = FIELD_RULES.instance(value) === undefined;
    expect(specAccepts('instance', value)).toBe(rule);
    const fake = new FakeKubernetes();
    expect(await accepts(() => start(fake, 'default/web', { instance: value as never, timeoutMs: 1 }), InvalidOptionError)).toBe(rule);
    expect(await accepts(() => status(fake, 'default/web', { instance: value as never, timeoutMs: 1 }), InvalidOptionError)).toBe(rule);
  });

  it.each(namespaces)('namespace %j: the spec, the client, the reads and every -n flag agree', async (value) => {
    const rule = FIELD_RULES.namespace(value) === undefined;
    expect(specAccepts('namespace', value)).toBe(rule);
    const client = () => KubernetesApi.fromServer({ server: 'https://10.0.0.1:6443', token: 't', namespace: value as never });
    expect(await accepts(async () => client(), InvalidOptionError)).toBe(rule);
    expect(await accepts(() => status(new FakeKubernetes(), 'default/web', { namespace: value } as never), InvalidOptionError)).toBe(rule);
    if (typeof value !== 'string') return;
    expect(await accepts(async () => apiOptionsFrom({ namespace: value }), UsageError)).toBe(rule);
    expect(await accepts(async () => parseCreateArgs(['-n', value]), UsageError)).toBe(rule);
  });
});
