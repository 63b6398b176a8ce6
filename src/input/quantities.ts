import { InvalidOptionError } from '../errors/input.js';

// Manager's resource numbers as Kubernetes resource quantities.

/**
 * CPU cores as a millicore quantity: 1 -> "1000m", 0.5 -> "500m", 0.001 -> "1m".
 * Millicores are always an integer here: rounding absorbs float noise such as
 * 0.1 + 0.2, which would otherwise print as "300.00000000000006m" (an invalid quantity).
 */
export function cpuQuantity(cpus: number): string {
  if (!Number.isFinite(cpus)) throw new InvalidOptionError('cpus', `CPU count must be a finite number, got ${cpus}`);
  const millicores = Math.round(cpus * 1000);
  if (millicores < 1) throw new InvalidOptionError('cpus', `CPU count must be at least 0.001 (1m), got ${cpus}`);
  return `${millicores}m`;
}

/**
 * Memory in Manager's megabytes as a mebibyte quantity: 1024 -> "1024Mi". Manager's MB
 * are treated as MiB (binary), as the feature request's mapping asks.
 */
export function memoryQuantity(mb: number): string {
  if (!Number.isSafeInteger(mb) || mb <= 0) {
    throw new InvalidOptionError('memoryMb', `Memory must be a positive whole number of MB, got ${mb}`);
  }
  return `${mb}Mi`;
}
