// Reading Kubernetes resource quantities ("250m", "1.5Gi", "2", "1e3", "128974848") as
// exact integers in a chosen unit, rounded up as the API server rounds requests.
// client-node's quantityToScalar throws on decimal binary quantities such as "1.5Gi".

// <sign><digits>[.<digits>]<suffix>, suffix a binary SI (Ki..Ei), a decimal SI (n..E) or an exponent (e3, E-2).
const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;

const BINARY_EXPONENT: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_EXPONENT: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/**
 * The quantity times 10^`unitExponent`, rounded up to a whole number: `scaledQuantity("250m", 3)`
 * is 250 (millicores), `scaledQuantity("1.5Gi", 0)` is 1610612736 (bytes). Undefined when the
 * text is not a quantity or the result is beyond Number's exact integers.
 */
export function scaledQuantity(text: string, unitExponent: number): number | undefined {
  const match = QUANTITY.exec(text.trim());
  if (!match) return undefined;
  const [, sign = '', number = '', suffix = ''] = match;
  const [whole = '', fraction = ''] = number.split('.');
  let numerator = BigInt(`${whole || '0'}${fraction}`);
  let power10 = unitExponent - fraction.length;
  const binary = BINARY_EXPONENT[suffix];
  if (binary !== undefined) numerator <<= BigInt(binary);
  else power10 += DECIMAL_EXPONENT[suffix] ?? Number(suffix.slice(1));
  let denominator = 1n;
  if (power10 >= 0) numerator *= 10n ** BigInt(power10);
  else denominator = 10n ** BigInt(-power10);
  // Rounded away from zero, as the API server rounds a quantity it cannot represent.
  let value = (numerator + denominator - 1n) / denominator;
  if (sign === '-') value = -value;
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return Number(value);
}

/** CPU as whole millicores ("0.5" -> 500, "2" -> 2000, "100m" -> 100). */
export function cpuMillicores(text: string): number | undefined {
  return scaledQuantity(text, 3);
}

/** Memory (or any count) as whole units: bytes for memory ("1Gi" -> 1073741824). */
export function quantityUnits(text: string): number | undefined {
  return scaledQuantity(text, 0);
}

/** Millicores as a short quantity: 250 -> "250m", 2000 -> "2". */
export function formatMillicores(millicores: number): string {
  return millicores % 1000 === 0 ? String(millicores / 1000) : `${millicores}m`;
}

const BINARY_UNITS = ['Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'] as const;

/** Bytes in the largest binary unit that divides them exactly: 268435456 -> "256Mi". */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = '';
  for (const next of BINARY_UNITS) {
    if (value === 0 || value % 1024 !== 0) break;
    value /= 1024;
    unit = next;
  }
  return `${value}${unit}`;
}

// The API server stores quantities in a canonical form ("1000m" comes back as "1", "1024Mi"
// as "1Gi"), so a live value is compared with a requested one as a number, never as text.

/** CPU cores of a quantity, in whole millicores ("1500m" -> 1.5); undefined when not a quantity. */
export function coresOf(quantity: string | number | undefined): number | undefined {
  if (typeof quantity === 'number') return Number.isFinite(quantity) ? Math.round(quantity * 1000) / 1000 : undefined;
  const millicores = quantity === undefined ? undefined : cpuMillicores(quantity);
  return millicores === undefined ? undefined : millicores / 1000;
}

/** MiB of a memory quantity ("1Gi" -> 1024); not rounded, so "1G" shows as 953.67... */
export function mebibytesOf(quantity: string | number | undefined): number | undefined {
  if (typeof quantity === 'number') return Number.isFinite(quantity) ? quantity / 2 ** 20 : undefined;
  const bytes = quantity === undefined ? undefined : quantityUnits(quantity);
  return bytes === undefined ? undefined : bytes / 2 ** 20;
}
