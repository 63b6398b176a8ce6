// Options shared by the read operations (status, list, statuses$, status$), checked up
// front: a wrong option is an InvalidOptionError naming it, before any request.
import { InvalidOptionError } from '../errors/input.js';
import { DURATION_RULES, requireDuration } from '../input/duration.js';
import type { KubernetesClient } from '../kube/client.js';
import { dns1123LabelProblem, labelValueProblem } from '../input/names.js';

/** Bound on one read (status, list) when the caller gives none. */
export const DEFAULT_READ_TIMEOUT_MS = 30_000;

export function timeoutOption(value: number | undefined): number {
  if (value === undefined) return DEFAULT_READ_TIMEOUT_MS;
  requireDuration('timeoutMs', value, DURATION_RULES.readTimeoutMs);
  return value;
}

/** The namespace to read: the option, else the client's. */
export function namespaceOption(value: string | undefined, client: KubernetesClient): string {
  const namespace = value ?? client.namespace;
  const problem = typeof namespace === 'string' ? dns1123LabelProblem(namespace) : 'must be a string';
  if (problem) throw new InvalidOptionError('namespace', `namespace ${problem}`);
  return namespace;
}

/** Manager's container id as its label value ("42" for 42), or undefined when not given. */
export function containerIdOption(value: string | number | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? String(value) : value;
  const problem = typeof text === 'string' ? labelValueProblem(text) : 'must be a string or a whole number >= 0';
  if (problem) throw new InvalidOptionError('containerId', `containerId ${problem}`);
  return text as string;
}
