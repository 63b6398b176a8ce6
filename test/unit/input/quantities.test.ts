import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../../src/errors/input.js';
import { cpuQuantity, memoryQuantity } from '../../../src/input/quantities.js';

describe('cpuQuantity', () => {
  it.each([
    [1, '1000m'],
    [2, '2000m'],
    [0.5, '500m'],
    [0.001, '1m'],
    [1.25, '1250m'],
    [64, '64000m'],
  ])('maps %s CPU to %s', (cpus, quantity) => {
    expect(cpuQuantity(cpus)).toBe(quantity);
  });

  it('rounds away float noise to whole millicores', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(cpuQuantity(0.1 + 0.2)).toBe('300m');
    expect(cpuQuantity(0.7 + 0.1)).toBe('800m');
  });

  it.each([0, -1, 0.0004, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])('throws InvalidOptionError for %s', (cpus) => {
    expect(() => cpuQuantity(cpus)).toThrow(InvalidOptionError);
  });
});

describe('memoryQuantity', () => {
  it.each([
    [1024, '1024Mi'],
    [4096, '4096Mi'],
    [1, '1Mi'],
  ])('maps %s MB to %s', (mb, quantity) => {
    expect(memoryQuantity(mb)).toBe(quantity);
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('throws InvalidOptionError for %s', (mb) => {
    expect(() => memoryQuantity(mb)).toThrow(InvalidOptionError);
  });
});
