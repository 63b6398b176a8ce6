// The one checker of a caller's options (provision, the lifecycle operations, the reads,
// the client, the informers, the failure policy, the cluster check): a table from each
// option to its rule, checked before anything is sent. A problem is an InvalidOptionError
// naming the option by its path (`failurePolicy.imagePull.graceMs`) and the rule; an
// unknown key is a typo, never ignored, where the table says so.
import { InvalidOptionError } from '../errors/input.js';
import { durationProblem, type DurationRule } from './duration.js';
import type { FieldRule } from './fields.js';
import { describeValue } from './given.js';

/** Why a value breaks an option's rule, or undefined; or, for an object of options, their table. */
export type OptionRule = FieldRule | NestedOptions;

export interface OptionTable {
  readonly [option: string]: OptionRule;
}

/** An option that is an object of options (`failurePolicy.imagePull`, `backoff`). */
export interface NestedOptions {
  readonly table: OptionTable;
  /** Unknown keys are refused (as `a field of <option>`) unless false. */
  readonly strict?: boolean;
  readonly required?: readonly string[];
}

export function nested(table: OptionTable, rules: Omit<NestedOptions, 'table'> = {}): NestedOptions {
  return { table, ...rules };
}

export interface CheckedAs {
  /** How the options are named when they are not an object: `provision options`. */
  readonly noun: string;
  /** The option named when they are not an object; default: their path, else `options`. */
  readonly option?: string;
  /** Where these options sit, as a path prefix (`failurePolicy.`); default none. */
  readonly path?: string;
  /** What a known key is, for an unknown one: `a provision option`; absent: unknown keys pass. */
  readonly known?: string;
  /** Keys that must be given. */
  readonly required?: readonly string[];
}

/** Throws InvalidOptionError at the first option outside its rule; undefined values are absent. */
export function checkOptions(options: unknown, table: OptionTable, as: CheckedAs): void {
  const path = as.path ?? '';
  const fail = (option: string, problem: string): never => {
    throw new InvalidOptionError(option, `${option} ${problem}`);
  };
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new InvalidOptionError(as.option ?? (path.replace(/\.$/, '') || 'options'), `${as.noun} must be an object`);
  }
  const values = options as Record<string, unknown>;
  const allowed = Object.keys(table);
  if (as.known !== undefined) {
    for (const key of Object.keys(values)) {
      if (!Object.hasOwn(table, key)) fail(`${path}${key}`, `is not ${as.known} (allowed: ${allowed.join(', ')})`);
    }
  }
  for (const key of allowed) {
    const value = values[key];
    if (value === undefined) {
      if (as.required?.includes(key)) fail(`${path}${key}`, 'is required');
      continue;
    }
    const rule = table[key]!;
    if (typeof rule === 'function') {
      const problem = rule(value);
      if (problem !== undefined) fail(`${path}${key}`, problem);
    } else {
      checkOptions(value, rule.table, {
        noun: `${path}${key}`,
        path: `${path}${key}.`,
        ...(rule.strict === false ? {} : { known: `a field of ${key}` }),
        ...(rule.required ? { required: rule.required } : {}),
      });
    }
  }
}

// Rules that options share.

export const duration =
  (rule: DurationRule): FieldRule =>
  (value) =>
    durationProblem(value, rule);

export const abortSignal: FieldRule = (value) => (value instanceof AbortSignal ? undefined : 'must be an AbortSignal');

export const trueOrFalse: FieldRule = (value) => (typeof value === 'boolean' ? undefined : 'must be true or false');

export const aFunction: FieldRule = (value) => (typeof value === 'function' ? undefined : 'must be a function');

export const aRegExp: FieldRule = (value) => (value instanceof RegExp ? undefined : 'must be a RegExp');

/** Known, and checked where it is used (a scheduler, a registry, a failure policy resolved later). */
export const checkedLater: FieldRule = () => undefined;

export const oneOf =
  (...choices: readonly string[]): FieldRule =>
  (value) =>
    typeof value === 'string' && choices.includes(value)
      ? undefined
      : `must be ${choices.map((choice) => JSON.stringify(choice)).join(' or ')} (got ${describeValue(value)})`;
