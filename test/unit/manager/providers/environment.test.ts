import { describe, expect, it } from 'vitest';
import { effectiveEntrypoint, effectiveEnvironment, normalizeEnvironment } from '../../../../src/manager/providers/environment.js';
import { lxcEnvironmentConfig, parseLxcEnvironment } from '../../../../src/manager/providers/lxc-environment.js';
import { containerRecord } from './fixtures.js';

describe('environment', () => {
  it('drops invalid names, non-primitive values and values with NUL; trims names', () => {
    expect(
      normalizeEnvironment({ ' GOOD ': 'x', '1BAD': 'x', 'A-B': 'x', NUM: 3, FLAG: true, OBJ: {}, NUL: 'a\0b', NIL: null, EMPTY: '' }),
    ).toEqual({ GOOD: 'x', NUM: '3', FLAG: 'true', EMPTY: '' });
    expect(normalizeEnvironment(['A=1'])).toEqual({});
    expect(normalizeEnvironment(null)).toEqual({});
  });

  it('merges system defaults < NVIDIA defaults < template < user', () => {
    const record = containerRecord({
      nvidiaRequested: true,
      defaultEnvironment: { A: 'system', B: 'system', NVIDIA_VISIBLE_DEVICES: 'none' },
      environment: { D: 'user' },
    });
    expect(effectiveEnvironment(record, { B: 'template', D: 'template', E: 'template' })).toEqual({
      A: 'system',
      B: 'template',
      NVIDIA_VISIBLE_DEVICES: 'all',
      NVIDIA_DRIVER_CAPABILITIES: 'utility compute',
      D: 'user',
      E: 'template',
    });
    expect(effectiveEnvironment({ ...record, nvidiaRequested: false })).not.toHaveProperty('NVIDIA_DRIVER_CAPABILITIES');
  });

  it("prefers the user's entrypoint, treating blank as unset", () => {
    expect(effectiveEntrypoint(' /bin/app ', '/template')).toBe('/bin/app');
    expect(effectiveEntrypoint('  ', '/template')).toBe('/template');
    expect(effectiveEntrypoint(null, null)).toBeNull();
  });

  it('round-trips the NUL-separated LXC encoding and omits empty parts', () => {
    const config = lxcEnvironmentConfig({ A: '1', B: 'x=y' }, '/init');
    expect(config).toEqual({ env: 'A=1\0B=x=y', entrypoint: '/init' });
    expect(parseLxcEnvironment(config.env)).toEqual({ A: '1', B: 'x=y' });
    expect(lxcEnvironmentConfig({}, null)).toEqual({});
    expect(parseLxcEnvironment(undefined)).toEqual({});
  });
});
