// Main's lifecycle, read and cluster operations under the hardening rules (issue 17): every
// duration option by the one rule of src/input/duration.ts, unknown option keys refused,
// all before any request.
import { lastValueFrom } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors/input.js';
import { MAX_DURATION_MS } from '../../src/input/duration.js';
import { nodes } from '../../src/cluster/nodes.js';
import { provision } from '../../src/workload/operations/provision.js';
import { reconfigure$ } from '../../src/workload/operations/reconfigure.js';
import { start$ } from '../../src/workload/operations/start.js';
import { status } from '../../src/workload/reads/status.js';
import { stop$ } from '../../src/workload/operations/stop.js';
import { FakeKubernetes } from '../support/fake-kube.js';

describe('lifecycle operations follow the provision option rules', () => {
  it.each([
    [{ timeoutMs: -1 }, /timeoutMs must not be negative/],
    [{ timeoutMs: 1.5 }, /timeoutMs must be a whole number/],
    [{ timeoutMs: MAX_DURATION_MS + 1 }, /timeoutMs must be at most/],
    [{ timeout: 5000 }, /timeout is not a start option/],
    [{ signal: 'x' }, /signal must be an AbortSignal/],
  ])('start$ refuses %j before any request', async (options, message) => {
    const fake = new FakeKubernetes();
    const run = lastValueFrom(start$(fake, 'default/app', options as never));
    await expect(run).rejects.toThrow(InvalidOptionError);
    await expect(lastValueFrom(start$(fake, 'default/app', options as never))).rejects.toThrow(message);
    expect(fake.calls).toEqual([]);
  });

  it('rollbackOnFailure is a reconfigure option, not a stop option', async () => {
    const fake = new FakeKubernetes();
    await expect(lastValueFrom(stop$(fake, 'default/app', { rollbackOnFailure: true } as never))).rejects.toThrow(
      /rollbackOnFailure is not a stop option/,
    );
    const reconfigured = lastValueFrom(reconfigure$(fake, 'default/app', { cpus: 1 }, { rollbackOnFailure: true, timeoutMs: 1 }));
    await expect(reconfigured).rejects.not.toThrow(/not a reconfigure option/);
  });

  it('onDrift is a provision option, checked with the others', async () => {
    const fake = new FakeKubernetes();
    await expect(provision(fake, {}, { onDrift: 'sometimes' as never })).rejects.toThrow(/onDrift must be "fail" or "reconfigure"/);
    expect(fake.calls).toEqual([]);
  });
});

describe('reads follow the duration rule', () => {
  it('status() and nodes() refuse a timeoutMs over 365 days, and Infinity', async () => {
    const fake = new FakeKubernetes();
    await expect(status(fake, 'default/app', { timeoutMs: MAX_DURATION_MS + 1 })).rejects.toThrow(/timeoutMs must be at most/);
    await expect(nodes(fake, { timeoutMs: Infinity })).rejects.toThrow(/timeoutMs must be finite/);
    expect(fake.calls).toEqual([]);
  });
});
