// One rule per field that names a workload or where it lives: Manager's container and
// node ids, the installation, the namespace (durations have theirs in duration.ts). The
// spec schema, every operation's options and every CLI flag check these and nothing
// else; where a value came from decides only how a problem is reported (a spec issue, an
// option error, a usage error), never what is accepted.
import { dns1123LabelProblem, labelValueProblem } from './names.js';

/** Why `value` breaks a field's rule, or undefined when it holds. */
export type FieldRule = (value: unknown) => string | undefined;

const LABEL_ID = 'must be a positive integer or a label-safe string';

/**
 * Manager's integer primary keys (container, node), or any label-safe string: they become
 * label values, so a number is a whole number from 1 and a string a label value.
 */
export const labelIdProblem: FieldRule = (value) => {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? undefined : `${LABEL_ID} (got ${value})`;
  if (typeof value === 'string') return labelValueProblem(value);
  return LABEL_ID;
};

/** A Manager id as its label value: 42 is "42". Call once labelIdProblem holds. */
export function labelId(value: string | number): string {
  return typeof value === 'number' ? String(value) : value;
}

/** The Manager installation: a label value. */
export const instanceProblem: FieldRule = (value) =>
  typeof value === 'string' ? labelValueProblem(value) : 'must be a string (a label value naming the Manager installation)';

/** A namespace: a DNS-1123 label. */
export const namespaceProblem: FieldRule = (value) => (typeof value === 'string' ? dns1123LabelProblem(value) : 'must be a string');

export const FIELD_RULES = {
  containerId: labelIdProblem,
  nodeId: labelIdProblem,
  instance: instanceProblem,
  namespace: namespaceProblem,
} as const satisfies Record<string, FieldRule>;
