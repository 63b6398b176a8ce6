// Small numeric helpers shared by the benchmarks: percentiles and fixed-width formatting.

/** Nearest-rank percentile of `values` (p in 0..100); NaN for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

export interface Summary {
  readonly count: number;
  readonly min: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

export function summarize(values: readonly number[]): Summary {
  const mean = values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
  return {
    count: values.length,
    min: values.length === 0 ? Number.NaN : Math.min(...values),
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    p99: percentile(values, 99),
    max: values.length === 0 ? Number.NaN : Math.max(...values),
    mean,
  };
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** A number for a table cell: `digits` decimals, "n/a" for NaN/undefined. */
export function fmt(value: number | undefined, digits = 1): string {
  if (value === undefined || !Number.isFinite(value)) return 'n/a';
  return value.toFixed(digits);
}

/** Renders a markdown table from a header row and body rows. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Milliseconds on the machine's monotonic clock: stamps from different processes compare. */
export { monotonicNow as hrNow } from '../../test/support/monotonic-clock.js';
