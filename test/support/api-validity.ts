// An independent statement of what kube-apiserver requires of the Deployments we build, for
// the fields we set: our reading of its apps/v1 and core/v1 validation (names, labels,
// selector, container, env, quantities, int32 fields) plus what survives its JSON decoding
// unchanged. The property test checks every manifest against it; the integration suite
// checks a sample against the real API server with a dry-run create, which keeps this
// statement honest.
import { MAX_MANIFEST_BYTES } from '../../src/members/deployment/manifest.js';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const QUANTITY = /^(\d+(\.\d*)?|\.\d+)(m|Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/;
const MAX_INT32 = 2 ** 31 - 1;
// Since relaxed environment variable validation: any printable ASCII except "=".
const ENV_NAME = /^[\x20-\x3c\x3e-\x7e]+$/;

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function int32(value: unknown, min: number): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= MAX_INT32;
}

function labelsProblems(labels: unknown, at: string): string[] {
  if (!isRecord(labels)) return [`${at} must be a map`];
  return Object.entries(labels).flatMap(([key, value]) => {
    const slash = key.lastIndexOf('/');
    const prefix = slash === -1 ? undefined : key.slice(0, slash);
    const name = slash === -1 ? key : key.slice(slash + 1);
    const problems: string[] = [];
    if (prefix !== undefined && !(prefix.length <= 253 && DNS_SUBDOMAIN.test(prefix))) problems.push(`${at} key ${key}: bad prefix`);
    if (!(name.length <= 63 && LABEL_NAME.test(name))) problems.push(`${at} key ${key}: bad name`);
    if (typeof value !== 'string' || value.length > 63 || !LABEL_VALUE.test(value)) problems.push(`${at}.${key}: bad value`);
    return problems;
  });
}

function quantityProblem(value: unknown): boolean {
  return typeof value !== 'string' || !QUANTITY.test(value) || /^0*(\.0*)?(m|Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/.test(value);
}

function hasUnpairedSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return /\p{Cs}/u.test(value);
  if (Array.isArray(value)) return value.some(hasUnpairedSurrogate);
  if (isRecord(value)) return Object.entries(value).some(([key, item]) => hasUnpairedSurrogate(key) || hasUnpairedSurrogate(item));
  return false;
}

/** What the API server would refuse or change in `manifest`; empty when it takes it as is. */
export function apiServerProblems(manifest: unknown): string[] {
  const problems: string[] = [];
  if (!isRecord(manifest)) return ['not an object'];
  const text = JSON.stringify(manifest);
  if (Buffer.byteLength(text) > MAX_MANIFEST_BYTES) problems.push('larger than the request limit');
  if (JSON.stringify(JSON.parse(text)) !== text || !sameJson(JSON.parse(text), manifest)) problems.push('does not survive JSON');
  if (hasUnpairedSurrogate(manifest)) problems.push('an unpaired surrogate would be replaced');
  if (manifest.apiVersion !== 'apps/v1' || manifest.kind !== 'Deployment') problems.push('apiVersion/kind');
  const metadata = isRecord(manifest.metadata) ? manifest.metadata : {};
  const name = metadata.name;
  if (typeof name !== 'string' || name.length > 253 || !DNS_SUBDOMAIN.test(name)) problems.push('metadata.name');
  if (typeof metadata.namespace !== 'string' || !DNS_LABEL.test(metadata.namespace)) problems.push('metadata.namespace');
  problems.push(...labelsProblems(metadata.labels, 'metadata.labels'));
  const spec = isRecord(manifest.spec) ? manifest.spec : {};
  if (!int32(spec.replicas, 0)) problems.push('spec.replicas');
  if (!int32(spec.revisionHistoryLimit, 0)) problems.push('spec.revisionHistoryLimit');
  if (!int32(spec.progressDeadlineSeconds, 1)) problems.push('spec.progressDeadlineSeconds');
  const strategy = isRecord(spec.strategy) ? spec.strategy : {};
  if (strategy.type !== 'Recreate' && strategy.type !== 'RollingUpdate') problems.push('spec.strategy.type');
  const template = isRecord(spec.template) ? spec.template : {};
  const templateLabels = isRecord(template.metadata) ? template.metadata.labels : undefined;
  problems.push(...labelsProblems(templateLabels, 'spec.template.metadata.labels'));
  const selector = isRecord(spec.selector) && isRecord(spec.selector.matchLabels) ? spec.selector.matchLabels : {};
  if (Object.keys(selector).length === 0) problems.push('spec.selector is empty');
  for (const [key, value] of Object.entries(selector)) {
    if (!isRecord(templateLabels) || templateLabels[key] !== value) problems.push(`selector ${key} does not match the template`);
  }
  const podSpec = isRecord(template.spec) ? template.spec : {};
  if (podSpec.hostname !== undefined && (typeof podSpec.hostname !== 'string' || !DNS_LABEL.test(podSpec.hostname)))
    problems.push('hostname');
  const containers = Array.isArray(podSpec.containers) ? podSpec.containers : [];
  if (containers.length === 0) problems.push('no containers');
  for (const [index, container] of containers.entries()) {
    const at = `containers[${index}]`;
    if (!isRecord(container)) {
      problems.push(at);
      continue;
    }
    if (typeof container.name !== 'string' || !DNS_LABEL.test(container.name)) problems.push(`${at}.name`);
    if (typeof container.image !== 'string' || container.image === '' || container.image.trim() !== container.image)
      problems.push(`${at}.image`);
    for (const field of ['command', 'args'] as const) {
      const words = container[field];
      if (words !== undefined && (!Array.isArray(words) || words.some((word) => typeof word !== 'string'))) problems.push(`${at}.${field}`);
    }
    const env = container.env;
    if (env !== undefined) {
      if (!Array.isArray(env)) problems.push(`${at}.env`);
      else {
        for (const variable of env) {
          if (
            !isRecord(variable) ||
            typeof variable.name !== 'string' ||
            !ENV_NAME.test(variable.name) ||
            typeof variable.value !== 'string'
          ) {
            problems.push(`${at}.env entry`);
          }
        }
      }
    }
    const resources = isRecord(container.resources) ? container.resources : {};
    for (const kind of ['limits', 'requests'] as const) {
      const amounts = isRecord(resources[kind]) ? resources[kind] : {};
      for (const resource of ['cpu', 'memory'])
        if (quantityProblem(amounts[resource])) problems.push(`${at}.resources.${kind}.${resource}`);
    }
  }
  return problems;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, index) => sameJson(item, b[index]));
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(b);
    return Object.keys(a).length === keys.length && keys.every((key) => Object.hasOwn(a, key) && sameJson(a[key], b[key]));
  }
  return false;
}
