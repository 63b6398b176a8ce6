import { describe, expect, it } from 'vitest';
import { InvalidContainerRecordError } from '../../../../src/manager/errors.js';
import {
  checkEnvironment,
  effectiveEntrypoint,
  effectiveEnvironment,
  normalizeEnvironment,
} from '../../../../src/manager/providers/environment.js';
import { lxcEnvironmentConfig, parseLxcEnvironment } from '../../../../src/manager/providers/lxc-environment.js';
import { containerRecord } from './fixtures.js';

describe('environment', () => {
  it("checks a row's variables by Manager's rule, naming each it refuses, and writes numbers and booleans as text", () => {
    expect(checkEnvironment('environmentVars', { ' GOOD ': 'x', NUM: 8080, FLAG: false, EMPTY: '' })).toEqual({
      environment: { GOOD: 'x', NUM: '8080', FLAG: 'false', EMPTY: '' },
      problems: [],
    });
    expect(
      checkEnvironment('environmentVars', { '1BAD': 'x', 'A-B': 'x', NIL: null, NUL: 'a\0b', NAN: Number.NaN, ' GOOD': 'x', GOOD: 'y' })
        .problems,
    ).toEqual([
      'environmentVars."1BAD" is not a variable name (letters, digits and _, not starting with a digit)',
      'environmentVars."A-B" is not a variable name (letters, digits and _, not starting with a digit)',
      'environmentVars.NIL must be a string, number or boolean, not null',
      'environmentVars.NUL must not contain NUL',
      'environmentVars.NAN must be a string, number or boolean, not NaN',
      'environmentVars.GOOD names GOOD a second time',
    ]);
    expect(checkEnvironment('environmentVars', 'A=1').problems).toEqual([
      'environmentVars must be an object of NAME: value pairs, not a string',
    ]);
    expect(checkEnvironment('environmentVars', null)).toEqual({ environment: {}, problems: [] });
    // A name is quoted escaped, so a line break in it cannot forge a log line.
    expect(checkEnvironment('environmentVars', { 'A\nB': 'x' }).problems[0]).toBe(
      'environmentVars."A\\nB" is not a variable name (letters, digits and _, not starting with a digit)',
    );
  });

  it('effectiveEnvironment refuses a record whose variables break the rule, naming the source, instead of dropping them', () => {
    const record = containerRecord({ environment: { 'BAD KEY': 'x' }, defaultEnvironment: { OK: '1' } });
    expect(() => effectiveEnvironment(record)).toThrow(InvalidContainerRecordError);
    expect(() => effectiveEnvironment(record)).toThrow(
      'Container 42 cannot be used as it is: environmentVars."BAD KEY" is not a variable name',
    );
  });

  it('normalises what a template itself carries: invalid names, non-primitive values and values with NUL are left out; names trimmed', () => {
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
