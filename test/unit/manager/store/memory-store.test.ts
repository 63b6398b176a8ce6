import { describe, expect, it } from 'vitest';
import { MemoryContainerStore } from '../../../../src/manager/store/memory-store.js';
import { containerRecord } from '../providers/fixtures.js';

describe('MemoryContainerStore', () => {
  it('loads by numeric or string ID and hands out copies', async () => {
    const store = new MemoryContainerStore([containerRecord()]);
    const loaded = await store.load('42');
    expect(loaded).toEqual(containerRecord());
    (loaded as { hostname: string }).hostname = 'changed';
    expect((await store.load(42))?.hostname).toBe('web-42');
    expect(await store.load(7)).toBeUndefined();
  });

  it('saves provider ID, MAC, IP (null kept) and template defaults once, compare-and-set', async () => {
    const store = new MemoryContainerStore([containerRecord()]);
    const saved = await store.saveProvisioned(42, {
      providerId: 'team-a/web-42',
      macAddress: null,
      ipAddress: null,
      templateDefaults: { environment: { LANG: 'C' }, entrypoint: '/init' },
    });
    expect(saved).toBe(true);
    expect(await store.load(42)).toMatchObject({
      providerId: 'team-a/web-42',
      macAddress: null,
      ipAddress: null,
      environment: { LANG: 'C' },
      entrypoint: '/init',
    });
    expect(await store.saveProvisioned(42, { providerId: 'other', macAddress: null, ipAddress: null })).toBe(false);
    expect((await store.load(42))?.providerId).toBe('team-a/web-42');
    expect(await store.saveProvisioned(99, { providerId: 'x', macAddress: null, ipAddress: null })).toBe(false);
  });
});
