// Name rules: DNS-1123 labels (names, namespaces), label values, environment variable
// names; and the namespace used when nothing names one.

/** The namespace of last resort, as kubectl's: used when neither spec, caller nor kubeconfig names one. */
export const DEFAULT_NAMESPACE = 'default';

const DNS_1123_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const DNS_1123_LABEL_RULE =
  "must be a DNS-1123 label: lowercase letters, digits and '-', 1-63 characters, starting and ending with a letter or digit";

const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE_RULE =
  "must be a Kubernetes label value: letters, digits, '-', '_' and '.', 1-63 characters, starting and ending with a letter or digit";

export const MAX_LABEL_LENGTH = 63;

// Conventional names only: no '=', NUL or whitespace, so no name can corrupt an encoding
// later (a Pod's env, an LXC config line). The spec refuses others; Manager's records drop them.
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const ENV_NAME_RULE = "must be an environment variable name: letters, digits and '_', not starting with a digit";

export function isEnvVarName(name: string): boolean {
  return ENV_NAME.test(name);
}

export function isDns1123Label(value: string): boolean {
  return DNS_1123_LABEL.test(value);
}

export function isLabelValue(value: string): boolean {
  return value.length <= MAX_LABEL_LENGTH && LABEL_VALUE.test(value);
}

/** Why `value` breaks a name rule, in words: its length, or the characters at fault. */
function nameRuleDetail(value: string, allowed: RegExp): string {
  if (value.length === 0) return 'it is empty';
  if (value.length > MAX_LABEL_LENGTH) return `it has ${value.length} characters`;
  const disallowed = [...new Set([...value].filter((char) => !allowed.test(char)))];
  if (disallowed.length > 0) return `it contains ${disallowed.map((char) => JSON.stringify(char)).join(', ')}`;
  return 'it starts or ends with a character other than a letter or digit';
}

/** The problem with `value` as a DNS-1123 label, or undefined if it is one. */
export function dns1123LabelProblem(value: string): string | undefined {
  if (isDns1123Label(value)) return undefined;
  return `${DNS_1123_LABEL_RULE} (${nameRuleDetail(value, /[a-z0-9-]/)})`;
}

/** The problem with `value` as a (non-empty) label value, or undefined if it is one. */
export function labelValueProblem(value: string): string | undefined {
  if (isLabelValue(value)) return undefined;
  return `${LABEL_VALUE_RULE} (${nameRuleDetail(value, /[-A-Za-z0-9_.]/)})`;
}
