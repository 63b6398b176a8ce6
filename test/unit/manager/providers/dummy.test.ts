// Unit tests of the simulated provider, run in virtual time (VirtualTimeScheduler as the
// clock), so its delays are exact and the test takes no real time.
import { VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createDummyProvider, dummyNetworkIdentity } from '../../../../src/manager/providers/dummy.js';
import type { ContainerRecord, ProviderEvent } from '../../../../src/manager/providers/types.js';
import { containerRecord } from './fixtures.js';

function runVirtually(record: ContainerRecord, stepDelayMs: number): { events: ProviderEvent[]; completed: boolean } {
  const clock = new VirtualTimeScheduler();
  const events: ProviderEvent[] = [];
  let completed = false;
  createDummyProvider({ stepDelayMs })
    .provision$(record, { clock })
    .subscribe({ next: (event) => events.push(event), complete: () => (completed = true) });
  clock.flush();
  return { events, completed };
}

describe('dummy provider', () => {
  it('takes one clock delay per step, then reports a provider ID, MAC and IP', () => {
    const { events, completed } = runVirtually(containerRecord({ node: { nodeType: 'dummy' } }), 100);
    expect(completed).toBe(true);
    expect(events.map((event) => (event.type === 'step' ? event.step : event.type))).toEqual([
      'allocate',
      'create',
      'configure',
      'start',
      'provisioned',
    ]);
    expect(events.map((event) => Date.parse(event.at))).toEqual([100, 200, 300, 400, 400]);
    const identity = dummyNetworkIdentity(42);
    expect(events.at(-1)).toEqual({
      type: 'provisioned',
      at: new Date(400).toISOString(),
      provider: 'dummy',
      providerId: 'dummy-42',
      macAddress: identity.macAddress,
      ipAddress: identity.ipAddress,
    });
  });

  it('is deterministic: the same record yields the same events', () => {
    const record = containerRecord({ id: 1234 });
    expect(runVirtually(record, 50).events).toEqual(runVirtually(record, 50).events);
  });

  it('derives a locally administered unicast MAC and a 10.x IP that differ between containers', () => {
    const identities = [1, 2, 3, 100, 'abc'].map((id) => dummyNetworkIdentity(id));
    for (const { macAddress, ipAddress } of identities) {
      expect(macAddress).toMatch(/^02:00:00(:[0-9A-F]{2}){3}$/);
      expect(ipAddress).toMatch(/^10\.\d{1,3}\.\d{1,3}\.\d{1,3}$/);
      const lastOctet = Number(ipAddress.split('.')[3]);
      expect(lastOctet).toBeGreaterThanOrEqual(1);
      expect(lastOctet).toBeLessThanOrEqual(254);
    }
    expect(new Set(identities.map((identity) => identity.macAddress)).size).toBe(identities.length);
    expect(new Set(identities.map((identity) => identity.ipAddress)).size).toBe(identities.length);
  });

  it('stops when unsubscribed: no later step runs', () => {
    const clock = new VirtualTimeScheduler();
    const events: ProviderEvent[] = [];
    const subscription = createDummyProvider({ stepDelayMs: 100 })
      .provision$(containerRecord(), { clock })
      .subscribe((event) => events.push(event));
    clock.schedule(() => subscription.unsubscribe(), 150);
    clock.flush();
    expect(events).toHaveLength(1);
  });
});
