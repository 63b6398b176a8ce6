// workloadDrift(): where a live Deployment differs from the one buildDeployment() asks for,
// field by field in the spec's words. Adoption uses it so that a retried create never
// reports ready for a spec that was never applied. Pure; compares meaning, not text: the
// API server canonicalises quantities ("1000m" is stored as "1") and drops empty env values.
import type { V1Container, V1Deployment, V1EnvVar } from '../kube/objects.js';
import { KubeProvisionerError } from '../errors/base.js';
import { WORKLOAD_KIND, type FailureContext } from '../errors/rollout.js';
import { isGpuResource } from '../input/gpus.js';
import { coresOf, mebibytesOf } from '../input/parse-quantity.js';
import { workloadContainer } from './deployment/container.js';
import { SEED_CONTAINER_NAME, STORAGE_VOLUME_NAME } from '../input/storage.js';

const NONE = '(none)';

/** One field where a live workload differs from the requested spec. */
export interface DriftField {
  /** In the spec's words: `image`, `cpus`, `memoryMb`, `gpus.RESOURCE`, `runtimeClass`, `storage.paths`, `storage.seed`, `entrypoint`, `args`, `env.NAME`, `replicas`, `labels.KEY`. */
  readonly field: string;
  /** The live value, as text (`(none)` when absent). */
  readonly live: string;
  /** The requested value, as text (`(none)` when absent). */
  readonly desired: string;
}

/**
 * A create found the container's Deployment already there (same container-id) but not as
 * requested: adopting it would report ready for a spec that was never applied. Nothing was
 * changed; `onDrift: 'reconfigure'` applies the requested spec instead.
 */
export class WorkloadDriftError extends KubeProvisionerError {
  override readonly name = 'WorkloadDriftError';
  readonly namespace: string;
  /** The kind of the object that differs (`Deployment`, `Service`), or both joined by `and`. */
  readonly kind: string;
  /** The name of the object that differs. */
  readonly object: string;
  readonly fields: readonly DriftField[];
  constructor(where: FailureContext, fields: readonly DriftField[], hint: string) {
    const kind = where.kind ?? WORKLOAD_KIND;
    super(
      `${kind} ${where.namespace}/${where.name} exists for this container but differs from the requested spec: ` +
        `${fields.map((drift) => `${drift.field} (live ${drift.live}, requested ${drift.desired})`).join('; ')}; ${hint}`,
    );
    this.namespace = where.namespace;
    this.kind = kind;
    this.object = where.name;
    this.fields = fields;
  }

  /** @deprecated The object's name: use `object` (and `kind`). */
  get deployment(): string {
    return this.object;
  }
}

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
  for (const resource of extendedResources(found, wanted)) {
    differ(`gpus.${resource}`, amount(found, resource, wholeUnits), amount(wanted, resource, wholeUnits));
  }
  differ('runtimeClass', live.spec?.template.spec?.runtimeClassName ?? NONE, desired.spec?.template.spec?.runtimeClassName ?? NONE);
  differ('storage.paths', mountedPaths(found), mountedPaths(wanted));
  differ('storage.seed', seedOf(live), seedOf(desired));
  const liveEnv = envMap(found.env);
  const desiredEnv = envMap(wanted.env);
  for (const name of [...new Set([...liveEnv.keys(), ...desiredEnv.keys()])].sort()) {
    differ(`env.${name}`, liveEnv.get(name) ?? NONE, desiredEnv.get(name) ?? NONE);
  }
  return drift;
}

/** The fields a reconfiguration can change: the container's image, command, CPU, memory, GPUs and variables, the Pod's RuntimeClass. */
export function isReconfigurable(field: DriftField): boolean {
  return (
    !field.field.startsWith('labels.') &&
    !field.field.startsWith('template.labels.') &&
    !(field.field.startsWith('gpus.') && !isGpuResource(field.field.slice('gpus.'.length))) &&
    !field.field.startsWith('storage.') &&
    field.field !== 'container'
  );
}

/** The resources, other than CPU and memory, either side requests or limits (GPUs), sorted. */
function extendedResources(...containers: readonly V1Container[]): string[] {
  const names = new Set<string>();
  for (const container of containers) {
    for (const name of [...Object.keys(container.resources?.requests ?? {}), ...Object.keys(container.resources?.limits ?? {})]) {
      if (name !== 'cpu' && name !== 'memory') names.add(name);
    }
  }
  return [...names].sort();
}

/** An extended resource's quantity as whole units (they are never fractional). */
export function wholeUnits(quantity: string | undefined): number | undefined {
  if (quantity === undefined) return undefined;
  const units = Number(quantity);
  return Number.isFinite(units) ? units : undefined;
}

/** The paths mounted from the workload's claim, sorted ("(none)": no storage). */
function mountedPaths(container: V1Container): string {
  const paths = (container.volumeMounts ?? []).filter((mount) => mount.name === STORAGE_VOLUME_NAME).map((mount) => mount.mountPath);
  return paths.length > 0 ? paths.sort().join(', ') : NONE;
}

/** How the pod template seeds its volume: `image` (the seeding init container), else none. */
function seedOf(deployment: V1Deployment): string {
  return deployment.spec?.template.spec?.initContainers?.some((container) => container.name === SEED_CONTAINER_NAME) ? 'image' : NONE;
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
function amount(container: V1Container, resource: string, toNumber: (quantity: string | undefined) => number | undefined): string {
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
