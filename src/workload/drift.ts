// workloadDrift(): where a live Deployment differs from the one buildDeployment() asks for,
// field by field in the spec's words. Adoption uses it so that a retried create never
// reports ready for a spec that was never applied. Pure; compares meaning, not text: the
// API server canonicalises quantities ("1000m" is stored as "1") and drops empty env values.
import type { V1Container, V1Deployment, V1EnvVar } from '../kube/objects.js';
import type { DriftField } from '../errors.js';
import { coresOf, mebibytesOf } from '../input/parse-quantity.js';
import { workloadContainer } from './workload-container.js';

const NONE = '(none)';

export function workloadDrift(desired: V1Deployment, live: V1Deployment): DriftField[] {
  const drift: DriftField[] = [];
  const differ = (field: string, liveValue: string, desiredValue: string): void => {
    if (liveValue !== desiredValue) drift.push({ field, live: liveValue, desired: desiredValue });
  };

  differ('replicas', String(live.spec?.replicas ?? 1), String(desired.spec?.replicas ?? 1));
  labelDrift(drift, 'labels', desired.metadata?.labels, live.metadata?.labels);
  labelDrift(drift, 'template.labels', desired.spec?.template.metadata?.labels, live.spec?.template.metadata?.labels);

  const wanted = desired.spec?.template.spec?.containers[0];
  const found = wanted ? workloadContainer(live, wanted.name) : undefined;
  if (!wanted) return drift;
  if (!found) {
    drift.push({ field: 'container', live: NONE, desired: wanted.name });
    return drift;
  }
  differ('image', found.image ?? NONE, wanted.image ?? NONE);
  differ('entrypoint', words(found.command), words(wanted.command));
  differ('args', words(found.args), words(wanted.args));
  differ('cpus', amount(found, 'cpu', coresOf), amount(wanted, 'cpu', coresOf));
  differ('memoryMb', amount(found, 'memory', mebibytesOf), amount(wanted, 'memory', mebibytesOf));
  const liveEnv = envMap(found.env);
  const desiredEnv = envMap(wanted.env);
  for (const name of [...new Set([...liveEnv.keys(), ...desiredEnv.keys()])].sort()) {
    differ(`env.${name}`, liveEnv.get(name) ?? NONE, desiredEnv.get(name) ?? NONE);
  }
  return drift;
}

/** The fields a reconfiguration cannot change (only the pod's containers and the replica count are written). */
export function isReconfigurable(field: DriftField): boolean {
  return !field.field.startsWith('labels.') && !field.field.startsWith('template.labels.') && field.field !== 'container';
}

function labelDrift(
  drift: DriftField[],
  prefix: string,
  desired: Readonly<Record<string, string>> | undefined,
  live: Readonly<Record<string, string>> | undefined,
): void {
  for (const [key, value] of Object.entries(desired ?? {})) {
    const liveValue = live?.[key];
    if (liveValue !== value) drift.push({ field: `${prefix}.${key}`, live: liveValue ?? NONE, desired: value });
  }
}

function words(argv: readonly string[] | undefined): string {
  return argv && argv.length > 0 ? JSON.stringify(argv) : NONE;
}

/** Requests and limits as one number when they agree, both otherwise. */
function amount(
  container: V1Container,
  resource: 'cpu' | 'memory',
  toNumber: (quantity: string | undefined) => number | undefined,
): string {
  const requests = toNumber(container.resources?.requests?.[resource]);
  const limits = toNumber(container.resources?.limits?.[resource]);
  if (requests === limits) return requests === undefined ? NONE : String(requests);
  return `requests ${requests ?? NONE}, limits ${limits ?? NONE}`;
}

function envMap(env: readonly V1EnvVar[] | undefined): Map<string, string> {
  return new Map(
    (env ?? []).map((variable) => [variable.name, variable.valueFrom ? '(from a reference)' : JSON.stringify(variable.value ?? '')]),
  );
}
