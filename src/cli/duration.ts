// kubectl-style durations: "300s", "5m", "1m30s", "1h", "250ms"; a bare number is seconds.
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;

export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  let total = 0;
  let consumed = 0;
  PART.lastIndex = 0;
  for (let match = PART.exec(trimmed); match; match = PART.exec(trimmed)) {
    total += Number(match[1]) * UNIT_MS[match[2]!]!;
    consumed = PART.lastIndex;
  }
  return consumed > 0 && consumed === trimmed.length && total > 0 ? Math.round(total) : undefined;
}
