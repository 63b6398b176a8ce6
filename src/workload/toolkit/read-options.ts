// Options shared by the read operations (status, list, statuses$, status$), checked up
// front by the one option checker and the field rules: a wrong option is an
// InvalidOptionError naming it, before any request. Keys the table does not know are let
// through, as the reads always did.
import { InvalidOptionError } from '../../errors/input.js';
import { DURATION_RULES } from '../../input/duration.js';
import { instanceProblem, labelId, labelIdProblem, namespaceProblem } from '../../input/fields.js';
import { abortSignal, checkOptions, checkedLater, duration, type OptionTable } from '../../input/options.js';
import type { KubernetesClient } from '../../kube/client.js';

/** Bound on one read (status, list) when the caller gives none. */
export const DEFAULT_READ_TIMEOUT_MS = 30_000;

const READ_OPTIONS: OptionTable = {
  timeoutMs: duration(DURATION_RULES.readTimeoutMs),
  signal: abortSignal,
  containerId: labelIdProblem,
  namespace: namespaceProblem,
  instance: instanceProblem,
  failurePolicy: checkedLater,
  scheduler: checkedLater,
  informers: checkedLater,
};

/** Throws InvalidOptionError at the first read option outside its rule. */
export function checkReadOptions(what: string, options: object): void {
  checkOptions(options, READ_OPTIONS, { noun: `${what} options` });
}

export function timeoutOption(value: number | undefined): number {
  return value ?? DEFAULT_READ_TIMEOUT_MS;
}

/** The namespace to read: the option, else the client's (checked by the same rule). */
export function namespaceOption(value: string | undefined, client: KubernetesClient): string {
  const namespace = value ?? client.namespace;
  const problem = namespaceProblem(namespace);
  if (problem) throw new InvalidOptionError('namespace', `namespace ${problem}`);
  return namespace;
}

/** Manager's container id as its label value ("42" for 42), or undefined when not given. */
export function containerIdOption(value: string | number | undefined): string | undefined {
  if (value === undefined) return undefined;
  const problem = labelIdProblem(value);
  if (problem) throw new InvalidOptionError('containerId', `containerId ${problem}`);
  return labelId(value);
}
