// A container's effective environment, merged the way Manager merges it:
//   system defaults < NVIDIA defaults < the template's own values < the user's values
// Every source is normalised first, so no key or value can corrupt an encoding later.

import { isEnvVarName } from '../../index.js';
import type { ContainerRecord } from './types.js';

export type Environment = Readonly<Record<string, string>>;

/** What GPU passthrough needs inside the container when the user asked for it. */
export const NVIDIA_DEFAULT_ENVIRONMENT: Environment = Object.freeze({
  NVIDIA_VISIBLE_DEVICES: 'all',
  NVIDIA_DRIVER_CAPABILITIES: 'utility compute',
});

/**
 * Keeps only valid `NAME: "value"` pairs: names are trimmed and must be conventional,
 * primitive values become strings, null/objects and values containing NUL are dropped.
 */
export function normalizeEnvironment(input: unknown): Record<string, string> {
  const normalized: Record<string, string> = {};
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return normalized;
  for (const [rawName, rawValue] of Object.entries(input)) {
    const name = rawName.trim();
    if (!isEnvVarName(name)) continue;
    if (rawValue === null || rawValue === undefined || typeof rawValue === 'object') continue;
    const value = String(rawValue);
    if (value.includes('\0')) continue;
    normalized[name] = value;
  }
  return normalized;
}

export function effectiveEnvironment(record: ContainerRecord, templateEnvironment: Environment = {}): Environment {
  return {
    ...normalizeEnvironment(record.defaultEnvironment),
    ...(record.nvidiaRequested ? NVIDIA_DEFAULT_ENVIRONMENT : {}),
    ...normalizeEnvironment(templateEnvironment),
    ...normalizeEnvironment(record.environment),
  };
}

/** The user's entrypoint when set (blank counts as unset), else the template's. */
export function effectiveEntrypoint(userEntrypoint: string | null, templateEntrypoint: string | null): string | null {
  return nonBlank(userEntrypoint) ?? nonBlank(templateEntrypoint);
}

function nonBlank(value: string | null | undefined): string | null {
  const trimmed = typeof value === 'string' ? value.trim() : '';
  return trimmed === '' ? null : trimmed;
}
