// How a refusal names the value it refused: every error about input says the field or
// flag, the value given and the rule, so a caller sees what was wrong without guessing.

import { jsonLine } from '../text.js';

/** Long values are cut: the error names the value, it does not carry it. */
const SHOWN_CHARACTERS = 80;

/**
 * Fields whose values the container receives as they are and may hold a credential (a
 * password in a variable, a token in an argument): a refusal names them by path only.
 */
const UNSHOWN_FIELDS: ReadonlySet<string> = new Set(['env', 'entrypoint', 'args']);

/** A value as a refusal shows it: a string quoted (and cut), a number as is, a list or object by its kind. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') {
    return value.length > SHOWN_CHARACTERS
      ? `${jsonLine(value.slice(0, SHOWN_CHARACTERS)).slice(0, -1)}..." (${value.length} characters)`
      : jsonLine(value);
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' || value == null) return String(value);
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** The value at `path` in `input`, or undefined when there is none. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value: unknown = input;
  for (const segment of path) {
    if (value === null || typeof value !== 'object' || typeof segment === 'symbol' || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string | number, unknown>)[segment];
  }
  return value;
}

/**
 * `message` about the field at `path` of `input`, ending with the value given, e.g.
 * `must be "ClusterIP", "LoadBalancer" or "NodePort" (got "External")`. Unchanged when
 * the message names the value already, when the field is absent (the message says it is
 * required) or when the field may hold a credential.
 */
export function withGiven(message: string, input: unknown, path: readonly PropertyKey[]): string {
  const field = path[0];
  if (typeof field === 'string' && UNSHOWN_FIELDS.has(field)) return message;
  const value = valueAt(input, path);
  if (value === undefined) return message;
  const shown = describeValue(value);
  return message.includes(`got ${shown}`) ? message : `${message} (got ${shown})`;
}
