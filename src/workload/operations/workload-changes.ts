// What reconfigure() may change on a running (or stopped) workload, validated by the same
// field rules as creation (the zod schemas of workload-spec.ts), and applied to the live
// container as a pure function: same container and changes in, same container out, with
// the list of fields that really changed (in the spec's words).
import type { V1Container, V1EnvVar, V1ResourceRequirements } from '../../kube/objects.js';
import { z } from 'zod';
import { InvalidSpecError, type SpecIssue } from '../../errors/input.js';
import { coresOf, mebibytesOf } from '../../input/parse-quantity.js';
import { cpuQuantity, memoryQuantity } from '../../input/quantities.js';
import { gpuResourceWithoutGpus, workloadSpecSchema } from '../../input/workload-spec.js';
import { DEFAULT_GPU_RESOURCE, gpusProblem, isGpuResource } from '../../input/gpus.js';
import { wholeUnits } from '../../members/drift.js';
import { storageSizeSchema } from '../../input/storage.js';
import { withGiven } from '../../input/given.js';

/** The input of reconfigure(): every field optional; absent means "leave as it is". */
export interface WorkloadChanges {
  /** Set these variables (others are kept). */
  readonly env?: Readonly<Record<string, string>>;
  /** Remove these variables (absent ones are ignored). */
  readonly unsetEnv?: readonly string[];
  /** A command line (split like shell words) or an argv array; null: back to the image's Entrypoint. */
  readonly entrypoint?: string | readonly string[] | null;
  /** null: back to the image's Cmd. */
  readonly args?: readonly string[] | null;
  readonly cpus?: number;
  readonly memoryMb?: number;
  readonly image?: string;
  /**
   * The claim's new size in GiB: only larger (a claim cannot shrink), and only on a
   * StorageClass that allows expansion. The container keeps running; the volume grows
   * when its resizer acts (docs/storage.md).
   */
  readonly storageGb?: number;
  /**
   * The ports the container serves, replacing the old list ([] removes them and the
   * Service); only the Service is written, the pod template is untouched.
   */
  readonly ports?: readonly {
    readonly port: number;
    readonly protocol?: 'tcp' | 'udp';
    readonly name?: string;
    readonly nodePort?: number;
  }[];
  /** The Service's type (absent with ports: ClusterIP; alone: the current ports, another type). */
  readonly serviceType?: 'ClusterIP' | 'LoadBalancer' | 'NodePort';
  /**
   * The container's GPUs (request = limit, whole units), replacing its GPU request: 0
   * removes it. A new Pod rolls out; a cluster with no node offering them fails it fast
   * (Unschedulable: Insufficient nvidia.com/gpu).
   */
  readonly gpus?: number;
  /** The extended resource `gpus` counts; default: the one the container requests now, else nvidia.com/gpu. Only with gpus. */
  readonly gpuResource?: string;
  /** The RuntimeClass the Pod runs with (e.g. `nvidia`); null: back to the cluster's default. */
  readonly runtimeClass?: string | null;
}

/** Validated changes: entrypoint and args are argv arrays, or null to reset them. */
export interface ParsedChanges {
  readonly env: Readonly<Record<string, string>>;
  readonly unsetEnv: readonly string[];
  readonly entrypoint?: readonly string[] | null;
  readonly args?: readonly string[] | null;
  readonly cpus?: number;
  readonly memoryMb?: number;
  readonly image?: string;
  readonly storageGb?: number;
  /** `ports` and `serviceType` as given: checked with the workload's name by reconfigure (parsePortsChange). */
  readonly service?: { readonly ports?: unknown; readonly serviceType?: unknown };
  /** The GPU request the container is to have (count 0: none); resource undefined: the one it has, else the default. */
  readonly gpus?: { readonly count: number; readonly resource?: string };
  /** null: remove the Pod's runtimeClassName. */
  readonly runtimeClass?: string | null;
}

const fields = workloadSpecSchema.shape;

/** Why `name` is not a variable name, by creation's own env schema (its key rule). */
function envNameProblem(name: string): string | undefined {
  const result = fields.env.safeParse({ [name]: '' });
  if (result.success) return undefined;
  const [issue] = result.error.issues;
  return issue?.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue?.message;
}

const unsetEnv = z
  .array(z.string({ error: 'must be a variable name' }), { error: 'must be a list of variable names' })
  .superRefine((names, ctx) => {
    names.forEach((name, index) => {
      const problem = envNameProblem(name);
      if (problem) ctx.addIssue({ code: 'custom', path: [index], message: problem });
    });
  })
  .optional();

/** A count of 0 is kept (it removes the request), where creation reads 0 as "none asked". */
const gpuCount = z
  .unknown()
  .superRefine((value, ctx) => {
    const problem = value === undefined ? undefined : gpusProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .transform((value) => value as number | undefined);

const changesSchema = z.strictObject(
  {
    env: fields.env,
    unsetEnv,
    entrypoint: fields.entrypoint,
    args: fields.args,
    cpus: fields.cpus.optional(),
    memoryMb: fields.memoryMb.optional(),
    image: fields.image.optional(),
    storageGb: storageSizeSchema.optional(),
    ports: z.unknown().optional(),
    serviceType: z.unknown().optional(),
    gpus: gpuCount.optional(),
    gpuResource: fields.gpuResource,
    runtimeClass: fields.runtimeClass,
  },
  { error: (issue) => (issue.code === 'invalid_type' ? 'must be an object of the fields to change' : undefined) },
);

const ALLOWED = Object.keys(changesSchema.shape).join(', ');

/**
 * Validates reconfigure()'s input; throws InvalidSpecError listing every problem with its
 * field path (`env.MY_VAR`, `cpus`, `unsetEnv.0`), before anything is sent.
 */
export function parseWorkloadChanges(input: unknown): ParsedChanges {
  // null means "reset" here, where creation reads it as "absent": set it aside first.
  const record = input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : undefined;
  const resetEntrypoint = record?.entrypoint === null;
  const resetArgs = record?.args === null;
  const resetRuntimeClass = record?.runtimeClass === null;
  const result = changesSchema.safeParse(record ? withoutNull(record, ['entrypoint', 'args', 'runtimeClass']) : input);
  if (!result.success) throw new InvalidSpecError(issuesOf(result.error.issues, input));
  const { env = {}, unsetEnv: unset = [], entrypoint, args, cpus, memoryMb, image, storageGb, ports, serviceType } = result.data;
  const { gpus, gpuResource, runtimeClass } = result.data;
  const both = unset.flatMap((name, index) =>
    Object.hasOwn(env, name) ? [{ path: `unsetEnv.${index}`, message: `${name} is also set in env` }] : [],
  );
  // A resource with no count would be dropped without a word: refused, as at creation.
  if (gpuResource !== undefined && gpus === undefined) both.push(gpuResourceWithoutGpus(gpuResource));
  if (both.length > 0) throw new InvalidSpecError(both);
  return {
    env,
    unsetEnv: unset,
    ...(resetEntrypoint ? { entrypoint: null } : entrypoint ? { entrypoint } : {}),
    ...(resetArgs ? { args: null } : args ? { args } : {}),
    ...(cpus !== undefined ? { cpus } : {}),
    ...(memoryMb !== undefined ? { memoryMb } : {}),
    ...(image !== undefined ? { image } : {}),
    ...(storageGb !== undefined ? { storageGb } : {}),
    ...(ports !== undefined || serviceType !== undefined
      ? { service: { ...(ports !== undefined ? { ports } : {}), ...(serviceType !== undefined ? { serviceType } : {}) } }
      : {}),
    ...(gpus !== undefined ? { gpus: { count: gpus, ...(gpuResource !== undefined ? { resource: gpuResource } : {}) } } : {}),
    ...(resetRuntimeClass ? { runtimeClass: null } : runtimeClass !== undefined ? { runtimeClass } : {}),
  };
}

function withoutNull(record: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([key, value]) => !(keys.includes(key) && value === null)));
}

function issuesOf(issues: readonly z.core.$ZodIssue[], input: unknown): SpecIssue[] {
  const path = (segments: readonly PropertyKey[]): string => segments.map((segment) => (segment === '' ? '""' : String(segment))).join('.');
  return issues.flatMap((issue): SpecIssue[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        path: path([...issue.path, key]),
        message: `is not a field reconfigure can change (allowed: ${ALLOWED})`,
      }));
    }
    if (issue.code === 'invalid_key') return issue.issues.map((inner) => ({ path: path(issue.path), message: inner.message }));
    return [{ path: path(issue.path), message: withGiven(issue.message, input, issue.path) }];
  });
}

export interface AppliedChanges {
  readonly container: V1Container;
  /** The fields that differ from the live container, in the spec's words; empty: nothing to write. */
  readonly fields: readonly string[];
}

/** The live container with `changes` applied (a new object; the input is not modified). */
export function applyChanges(live: V1Container, changes: ParsedChanges): AppliedChanges {
  const container: V1Container = structuredClone(live);
  const changed: string[] = [];

  if (changes.image !== undefined && changes.image !== live.image) {
    container.image = changes.image;
    changed.push('image');
  }

  const env: V1EnvVar[] = [...(container.env ?? [])];
  for (const name of changes.unsetEnv) {
    const index = env.findIndex((variable) => variable.name === name);
    if (index < 0) continue;
    env.splice(index, 1);
    changed.push(`env.${name}`);
  }
  for (const name of Object.keys(changes.env).sort()) {
    const value = changes.env[name] as string;
    const index = env.findIndex((variable) => variable.name === name);
    const current = index < 0 ? undefined : env[index];
    // The API server leaves an empty value out: absent and "" are the same variable.
    if (current && current.valueFrom === undefined && (current.value ?? '') === value) continue;
    if (index < 0) env.push({ name, value });
    else env[index] = { name, value };
    changed.push(`env.${name}`);
  }
  if (env.length > 0) container.env = env;
  else delete container.env;

  if (changes.entrypoint !== undefined && !sameWords(live.command, changes.entrypoint)) {
    if (changes.entrypoint === null) delete container.command;
    else container.command = [...changes.entrypoint];
    changed.push('entrypoint');
  }
  if (changes.args !== undefined && !sameWords(live.args, changes.args)) {
    if (changes.args === null) delete container.args;
    else container.args = [...changes.args];
    changed.push('args');
  }

  if (changes.cpus !== undefined && !bothAre(live.resources, 'cpu', coresOf, Math.round(changes.cpus * 1000) / 1000)) {
    container.resources = withResource(container.resources, 'cpu', cpuQuantity(changes.cpus));
    changed.push('cpus');
  }
  if (changes.memoryMb !== undefined && !bothAre(live.resources, 'memory', mebibytesOf, changes.memoryMb)) {
    container.resources = withResource(container.resources, 'memory', memoryQuantity(changes.memoryMb));
    changed.push('memoryMb');
  }
  if (changes.gpus !== undefined) {
    const { count } = changes.gpus;
    const requested = gpuResourcesOf(live);
    const resource = changes.gpus.resource ?? requested[0] ?? DEFAULT_GPU_RESOURCE;
    // One GPU request afterwards (or none): another GPU resource the container held goes.
    for (const name of [...new Set([...requested, resource])].sort()) {
      const wanted = name === resource && count > 0 ? count : undefined;
      if (bothAre(live.resources, name, wholeUnits, wanted)) continue;
      container.resources = withResource(container.resources, name, wanted === undefined ? undefined : String(wanted));
      changed.push(`gpus.${name}`);
    }
  }
  return { container, fields: changed };
}

/** The GPU resources a container requests or limits, sorted. */
function gpuResourcesOf(container: V1Container): string[] {
  const names = [...Object.keys(container.resources?.requests ?? {}), ...Object.keys(container.resources?.limits ?? {})];
  return [...new Set(names.filter(isGpuResource))].sort();
}

/** null and absent both mean "the image's own". */
function sameWords(live: readonly string[] | undefined, wanted: readonly string[] | null): boolean {
  const a = live ?? [];
  const b = wanted ?? [];
  return a.length === b.length && a.every((word, index) => word === b[index]);
}

/** Requests and limits both hold `amount` (compared as numbers: the server canonicalises quantities). */
function bothAre(
  resources: V1ResourceRequirements | undefined,
  resource: string,
  toNumber: (quantity: string | undefined) => number | undefined,
  amount: number | undefined,
): boolean {
  const requests = resources?.requests?.[resource];
  const limits = resources?.limits?.[resource];
  return toNumber(requests) === amount && toNumber(limits) === amount;
}

/** Requests equal limits (Guaranteed QoS), as buildDeployment sets them; undefined removes the resource from both. */
function withResource(
  resources: V1ResourceRequirements | undefined,
  resource: string,
  quantity: string | undefined,
): V1ResourceRequirements {
  const set = (amounts: Readonly<Record<string, string>> | undefined): Record<string, string> => {
    const next: Record<string, string> = { ...amounts };
    if (quantity === undefined) delete next[resource];
    else next[resource] = quantity;
    return next;
  };
  return { ...resources, requests: set(resources?.requests), limits: set(resources?.limits) };
}
