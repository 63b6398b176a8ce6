// Kubernetes quantities read exactly (BigInt arithmetic, rounded up like the API server),
// including the decimal binary forms client-node's quantityToScalar throws on.
import { describe, expect, it } from 'vitest';
import { cpuMillicores, formatBytes, formatMillicores, quantityUnits, scaledQuantity } from '../../../src/input/parse-quantity.js';

describe('parse-quantity', () => {
  it.each([
    ['250m', 250],
    ['0.5', 500],
    ['2', 2000],
    ['1k', 1_000_000],
    ['0.1', 100],
    ['.25', 250],
    ['1.', 1000],
    ['1e3', 1_000_000],
    ['1E-3', 1],
    ['100u', 1],
    ['1n', 1],
    ['0', 0],
    ['+3', 3000],
  ])('cpu %s -> %d millicores', (text, expected) => expect(cpuMillicores(text)).toBe(expected));

  it.each([
    ['1Gi', 1024 ** 3],
    ['1.5Gi', 1.5 * 1024 ** 3],
    ['256Mi', 256 * 1024 ** 2],
    ['4Ti', 4 * 1024 ** 4],
    ['1G', 1e9],
    ['128974848', 128974848],
    ['129e6', 129e6],
    ['123Mi', 123 * 1024 ** 2],
    ['0.5Ki', 512],
    ['1.0001Ki', 1025],
    ['2k', 2000],
  ])('memory %s -> %d bytes', (text, expected) => expect(quantityUnits(text)).toBe(expected));

  it('rounds up what the unit cannot hold, as the API server does', () => {
    expect(cpuMillicores('0.0001')).toBe(1);
    expect(quantityUnits('1m')).toBe(1);
    expect(scaledQuantity('-1m', 0)).toBe(-1);
  });

  it.each(['', 'abc', '1Gb', '1 Gi', '1.2.3', 'Gi', '--1', '1e', '1Ki2'])('rejects %j', (text) => {
    expect(cpuMillicores(text)).toBeUndefined();
  });

  it('refuses values beyond exact numbers instead of rounding them', () => {
    expect(quantityUnits('16Ei')).toBeUndefined();
    expect(cpuMillicores('1e30')).toBeUndefined();
  });

  it('formats millicores and bytes back into short quantities', () => {
    expect([formatMillicores(250), formatMillicores(2000), formatMillicores(0), formatMillicores(1500)]).toEqual([
      '250m',
      '2',
      '0',
      '1500m',
    ]);
    expect([formatBytes(256 * 1024 ** 2), formatBytes(4 * 1024 ** 4), formatBytes(1000), formatBytes(0), formatBytes(1536)]).toEqual([
      '256Mi',
      '4Ti',
      '1000',
      '0',
      '1536',
    ]);
  });
});
