// Kubernetes resource quantities back into numbers. The API server stores quantities in
// a canonical form ("1000m" comes back as "1", "1024Mi" as "1Gi"), so a live value is
// compared with a requested one as a number, never as text.

const SUFFIX_FACTORS: Readonly<Record<string, number>> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(n|u|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?)$/;

/** A quantity's value in base units (cores, bytes); undefined when it is not a quantity. */
export function parseQuantity(text: string | number | undefined): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) ? text : undefined;
  if (text === undefined) return undefined;
  const match = QUANTITY.exec(text.trim());
  if (!match) return undefined;
  const [, digits, exponent, suffix] = match;
  const value = Number(`${digits}${exponent ?? ''}`);
  return value * (SUFFIX_FACTORS[suffix ?? ''] ?? 1);
}

/** CPU cores of a quantity, rounded to whole millicores ("1500m" -> 1.5). */
export function coresOf(quantity: string | number | undefined): number | undefined {
  const value = parseQuantity(quantity);
  return value === undefined ? undefined : Math.round(value * 1000) / 1000;
}

/** MiB of a memory quantity ("1Gi" -> 1024); not rounded, so "1G" shows as 953.67... */
export function mebibytesOf(quantity: string | number | undefined): number | undefined {
  const value = parseQuantity(quantity);
  return value === undefined ? undefined : value / 2 ** 20;
}
