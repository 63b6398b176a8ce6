// A container's effective environment, merged the way Manager merges it:
//   system defaults < NVIDIA defaults < the template's own values < the user's values
//
// The row's variables and the admin's defaults are checked by Manager's rule, and a
// variable the rule refuses fails the operation naming it: nothing is dropped or changed
// without a word. What a template carries is the node's own data, read back from it, so
// it is only normalised (a pair that cannot be encoded is left out).

import { InvalidContainerRecordError } from '../errors.js';
import { escapeControlCharacters, isEnvVarName } from '../../index.js';
import type { ContainerId, ContainerRecord } from './types.js';

export type Environment = Readonly<Record<string, string>>;

/** What GPU passthrough needs inside the container when the user asked for it. */
export const NVIDIA_DEFAULT_ENVIRONMENT: Environment = Object.freeze({
  NVIDIA_VISIBLE_DEVICES: 'all',
  NVIDIA_DRIVER_CAPABILITIES: 'utility compute',
});

export interface CheckedEnvironment {
  readonly environment: Record<string, string>;
  /** Each refused variable, with `source` and the name (e.g. `environmentVars."BAD KEY": ...`). */
  readonly problems: readonly string[];
}

const MAX_QUOTED_NAME = 64;

/**
 * Manager's rule, without dropping anything: names are trimmed and must match
 * `^[A-Za-z_][A-Za-z0-9_]*$`; a value is a string, or a number or boolean written as text
 * (`8080` -> "8080", `true` -> "true"); NUL is refused (it separates LXC pairs). `source`
 * names the column or option in the problems. Absent (null, undefined) is no variables.
 */
export function checkEnvironment(source: string, input: unknown): CheckedEnvironment {
  const environment: Record<string, string> = {};
  if (input === null || input === undefined) return { environment, problems: [] };
  if (typeof input !== 'object' || Array.isArray(input)) {
    return { environment, problems: [`${source} must be an object of NAME: value pairs, not ${kindOf(input)}`] };
  }
  const problems: string[] = [];
  for (const [rawName, rawValue] of Object.entries(input)) {
    const name = rawName.trim();
    const where = `${source}.${quoteName(rawName)}`;
    if (!isEnvVarName(name)) {
      problems.push(`${where} is not a variable name (letters, digits and _, not starting with a digit)`);
      continue;
    }
    if (Object.hasOwn(environment, name)) {
      problems.push(`${where} names ${name} a second time`);
      continue;
    }
    const value = valueText(rawValue);
    if (value === undefined) problems.push(`${where} must be a string, number or boolean, not ${kindOf(rawValue)}`);
    else if (value.includes('\0')) problems.push(`${where} must not contain NUL`);
    else environment[name] = value;
  }
  return { environment, problems };
}

/** checkEnvironment(), throwing InvalidContainerRecordError (every problem) when the rule refuses something. */
export function requireEnvironment(containerId: ContainerId, source: string, input: unknown): Record<string, string> {
  const { environment, problems } = checkEnvironment(source, input);
  if (problems.length > 0) throw new InvalidContainerRecordError(containerId, problems);
  return environment;
}

/** Normalised, for what the node itself reports (a template's env): invalid pairs are left out. */
export function normalizeEnvironment(input: unknown): Record<string, string> {
  const normalized: Record<string, string> = {};
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return normalized;
  for (const [rawName, rawValue] of Object.entries(input)) {
    const name = rawName.trim();
    const value = valueText(rawValue);
    if (isEnvVarName(name) && value !== undefined && !value.includes('\0')) normalized[name] = value;
  }
  return normalized;
}

export function effectiveEnvironment(record: ContainerRecord, templateEnvironment: Environment = {}): Environment {
  const defaults = checkEnvironment('defaultEnvironment', record.defaultEnvironment);
  const user = checkEnvironment('environmentVars', record.environment);
  const problems = [...defaults.problems, ...user.problems];
  if (problems.length > 0) throw new InvalidContainerRecordError(record.id, problems);
  return {
    ...defaults.environment,
    ...(record.nvidiaRequested ? NVIDIA_DEFAULT_ENVIRONMENT : {}),
    ...normalizeEnvironment(templateEnvironment),
    ...user.environment,
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

function valueText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') return String(value);
  return undefined;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function quoteName(name: string): string {
  const shown = escapeControlCharacters(name.length > MAX_QUOTED_NAME ? `${name.slice(0, MAX_QUOTED_NAME)}...` : name);
  return isEnvVarName(name) ? shown : `"${shown}"`;
}
