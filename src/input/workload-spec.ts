// Validation of everything a caller (Manager, the CLI) hands us to provision one
// container. Every rule is checked before any request is sent, and every problem is
// reported at once with its field path, so a caller can fix its input in one go.

import * as z from 'zod';
import { InvalidSpecError } from '../errors/input.js';
import type { SpecIssue } from '../errors/input.js';
import { ShellWordsError } from '../errors/input.js';
import { splitShellWords } from './shell-words.js';
import { imageReferenceProblem } from './image-reference.js';
import { withGiven } from './given.js';
import { instanceProblem, labelId, labelIdProblem, namespaceProblem } from './fields.js';
import { DEFAULT_GPU_RESOURCE, dns1123SubdomainProblem, gpuResourceProblem, gpusProblem } from './gpus.js';
import { ENV_NAME_RULE, dns1123LabelProblem, isEnvVarName } from './names.js';
import { SEED_CONTAINER_NAME, STORAGE_FIELDS, storageSchema, type StorageSpec } from './storage.js';
import { PORT_FIELDS, normalisePort, portListIssues, portsSchema, serviceNameProblem, serviceTypeSchema, sortPorts } from './ports.js';
import type { ServiceType, WorkloadPort } from './ports.js';
import { SYSTEM_TMPFS_PATHS, isSystemContainer } from './system-container.js';

/** A validated, normalised request to provision one Manager container. */
export interface WorkloadSpec {
  /** Manager's container primary key, as a label value. */
  containerId: string;
  /** Manager's node primary key, as a label value. */
  nodeId: string;
  /** DNS-1123 label: the Deployment's name, the pod's hostname and the container's name. */
  hostname: string;
  /** OCI image reference, passed to Kubernetes exactly as given. */
  image: string;
  /** CPU cores, a whole number of millicores (0.001 steps). */
  cpus: number;
  /** Memory in MiB (Manager's "MB"). */
  memoryMb: number;
  /**
   * Variables by name. An object without a prototype: a variable may be named like an
   * Object.prototype member (`constructor`, `toString`, even `__proto__`) and stays itself.
   */
  env: Record<string, string>;
  /** Overrides the image's Entrypoint (Kubernetes `command`). */
  entrypoint?: string[];
  /** Overrides the image's Cmd (Kubernetes `args`). */
  args?: string[];
  namespace?: string;
  /**
   * The Manager installation that owns the workload (a label value): set as the instance
   * label on the Deployment and its Pods and added to every selector. Absent: no label.
   */
  instance?: string;
  /** GPUs requested (request = limit) of `gpuResource`; absent or 0: none. */
  gpus?: number;
  /** The extended resource `gpus` counts; default nvidia.com/gpu. Only with gpus. */
  gpuResource?: string;
  /** The Pod's RuntimeClass (e.g. `nvidia`, or a handler with writable cgroups); absent: the cluster's default. */
  runtimeClass?: string;
  /**
   * The container runs an init system (systemd) as PID 1 and gets a Pod it can boot in
   * (docs/system-containers.md). Absent: detected from the command, the first word of
   * `entrypoint` being one of SYSTEM_INIT_COMMANDS.
   */
  systemContainer?: boolean;
  /** The Pod's `hostUsers`: false runs it in a user namespace of its own. Absent: the cluster's default (the host's users). */
  hostUsers?: boolean;
  /**
   * The container's volume: one claim (a persistent volume claim) that keeps the persisted paths through
   * its whole life (docs/storage.md). Absent: no volume, the files live as long as the Pod.
   */
  storage?: StorageSpec;
  /**
   * The ports the container serves, sorted by port then protocol; absent: none, and no
   * Service. With ports, a Service of the same name carries them at one stable address.
   */
  ports?: WorkloadPort[];
  /** The Service's type; absent: ClusterIP. Only with ports. */
  serviceType?: ServiceType;
}

// ---- limits --------------------------------------------------------------------------

/**
 * Upper bound on CPU cores. Far above any single node today; its job is to catch unit
 * mistakes such as millicores passed as cores (2000 instead of 2).
 */
export const MAX_CPUS = 1024;

/**
 * Upper bound on memory: 1 TiB in MiB. Catches unit mistakes such as bytes or KiB passed
 * as MB (4 GiB in bytes is 4294967296), which would otherwise ask for absurd amounts.
 */
export const MAX_MEMORY_MB = 1_048_576;

// ---- field schemas -------------------------------------------------------------------

const NO_NUL_RULE = 'must not contain a NUL character';
// JSON can carry an unpaired UTF-16 surrogate; the API server decodes it as U+FFFD, so the
// container would get another value than the one given.
const WELL_FORMED_RULE = 'must be valid Unicode text (it holds an unpaired surrogate, which the API server would replace)';

/** The problem with a string the container receives as is (a variable value, an argv word). */
function textProblem(text: string): string | undefined {
  if (text.includes('\0')) return NO_NUL_RULE;
  if (/\p{Cs}/u.test(text)) return WELL_FORMED_RULE;
  return undefined;
}

/** A zod error message that tells "missing" apart from "wrong type". */
function missingOr(wrongType: string) {
  return (issue: { input?: unknown }): string => (issue.input === undefined ? 'is required' : wrongType);
}

/** Adapts a "problem in words or undefined" function to a zod refinement. */
function refineWith<T>(problemOf: (value: T) => string | undefined) {
  return (value: T, ctx: z.RefinementCtx<T>): void => {
    const problem = problemOf(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  };
}

/** Manager's integer primary keys, or any label-safe string, as a label value (fields.ts). */
const labelSafeId = z.unknown().transform((value, ctx): string => {
  const problem = value === undefined ? 'is required' : labelIdProblem(value);
  if (!problem) return labelId(value as string | number);
  ctx.addIssue({ code: 'custom', message: problem });
  return z.NEVER;
});

const dns1123Label = z.string({ error: missingOr('must be a string') }).superRefine(refineWith(dns1123LabelProblem));

const imageReference = z
  .string({ error: missingOr('must be a string (an OCI image reference such as "nginx:1.27")') })
  .superRefine(refineWith(imageReferenceProblem));

function cpusProblem(cpus: number): string | undefined {
  if (cpus <= 0) return 'must be greater than 0';
  const millicores = cpus * 1000;
  if (millicores < 1) return 'must be at least 0.001 (1 millicore, the smallest CPU amount Kubernetes accepts)';
  // A tolerance absorbs float noise such as 0.1 + 0.2; real fractions of a millicore fail.
  if (Math.abs(millicores - Math.round(millicores)) > 1e-6) return 'must be a multiple of 0.001 (whole millicores)';
  if (cpus > MAX_CPUS) return `must be at most ${MAX_CPUS} cores`;
  return undefined;
}

function memoryProblem(mb: number): string | undefined {
  if (!Number.isInteger(mb)) return 'must be a whole number of MB (MiB)';
  if (mb <= 0) return 'must be greater than 0';
  if (mb > MAX_MEMORY_MB) return `must be at most ${MAX_MEMORY_MB} MB (1 TiB)`;
  return undefined;
}

// zod already rejects NaN and ±Infinity as "not a number"; the message says so.
const cpus = z.number({ error: missingOr('must be a finite number of CPU cores, e.g. 0.5 or 2') }).superRefine(refineWith(cpusProblem));

const memoryMb = z.number({ error: missingOr('must be a finite whole number of MB, e.g. 1024') }).superRefine(refineWith(memoryProblem));

/**
 * Variables as NAME: "value" pairs. Not zod's record: copying keys by assignment turns an
 * own `__proto__` key into a prototype and loses the variable without a word. Every own
 * key is read (symbols too, which are refused), and the result has no prototype, so each
 * name, whatever it is, stays a variable.
 */
const env = z
  .unknown()
  .transform((value, ctx): Record<string, string> => {
    const variables = Object.create(null) as Record<string, string>;
    // Absent and null both mean "no variables".
    if (value === undefined || value === null) return variables;
    if (typeof value !== 'object' || Array.isArray(value)) {
      ctx.addIssue({ code: 'custom', message: 'must be an object of NAME: "value" string pairs' });
      return z.NEVER;
    }
    let valid = true;
    for (const key of Reflect.ownKeys(value)) {
      if (typeof key === 'symbol') {
        ctx.addIssue({ code: 'custom', message: 'must have only string keys (a symbol key cannot be a variable name)' });
        valid = false;
        continue;
      }
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      if (!descriptor?.enumerable) continue;
      const item: unknown = descriptor.value;
      let problem: string | undefined;
      if (!isEnvVarName(key)) problem = ENV_NAME_RULE;
      else if (typeof item !== 'string') problem = 'must be a string (empty allowed)';
      else problem = textProblem(item);
      if (problem) {
        ctx.addIssue({ code: 'custom', path: [key], message: problem });
        valid = false;
        continue;
      }
      Object.defineProperty(variables, key, { value: item, enumerable: true, writable: true, configurable: true });
    }
    return valid ? variables : z.NEVER;
  })
  // An absent key skips the transform: parseWorkloadSpec gives it no variables.
  .optional();

/**
 * Checks argv words, reporting at `entrypoint.<index>` or `args.<index>`. Reads by index,
 * so a hole in a sparse array is reported instead of becoming `null` in the manifest.
 */
function argvIssues(words: readonly unknown[]): { path: number[]; message: string }[] {
  const issues: { path: number[]; message: string }[] = [];
  for (let index = 0; index < words.length; index += 1) {
    if (!Object.hasOwn(words, index)) {
      issues.push({ path: [index], message: 'is missing (a hole in a sparse list)' });
      continue;
    }
    const word = words[index];
    if (typeof word !== 'string') issues.push({ path: [index], message: 'must be a string' });
    else {
      const problem = textProblem(word);
      if (problem) issues.push({ path: [index], message: problem });
    }
  }
  return issues;
}

/**
 * Manager's ONE-string entrypoint (split like shell words) or an argv array. Absent or
 * null means "use the image's own Entrypoint".
 */
const entrypoint = z
  .unknown()
  .transform((value, ctx): string[] | undefined => {
    if (value === undefined || value === null) return undefined;
    let words: unknown[];
    if (typeof value === 'string') {
      try {
        words = splitShellWords(value);
      } catch (error) {
        if (!(error instanceof ShellWordsError)) throw error;
        ctx.addIssue({ code: 'custom', message: `cannot be split into words: ${error.message}` });
        return z.NEVER;
      }
      if (words.length === 0) {
        ctx.addIssue({ code: 'custom', message: "must not be empty or blank; omit it to use the image's own Entrypoint" });
        return z.NEVER;
      }
    } else if (Array.isArray(value)) {
      words = value;
      if (words.length === 0) {
        ctx.addIssue({ code: 'custom', message: "must not be an empty list; omit it to use the image's own Entrypoint" });
        return z.NEVER;
      }
    } else {
      ctx.addIssue({ code: 'custom', message: 'must be a command line string or a list of strings' });
      return z.NEVER;
    }
    const issues = argvIssues(words);
    if (words[0] === '') issues.push({ path: [0], message: 'the command (first word) must not be empty' });
    for (const issue of issues) ctx.addIssue({ code: 'custom', ...issue });
    // A copy, so the spec never aliases the caller's array.
    return issues.length > 0 ? z.NEVER : Array.from(words as string[]);
  })
  // Lets the key be absent (zod requires a key whose schema may yield undefined to say so).
  .optional();

const args = z
  .unknown()
  .transform((value, ctx): string[] | undefined => {
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) {
      ctx.addIssue({ code: 'custom', message: 'must be a list of strings' });
      return z.NEVER;
    }
    if (value.length === 0) {
      // Kubernetes treats an empty list as absent, so the image's Cmd would run instead.
      ctx.addIssue({ code: 'custom', message: "must not be an empty list; omit it to use the image's own Cmd" });
      return z.NEVER;
    }
    const issues = argvIssues(value);
    for (const issue of issues) ctx.addIssue({ code: 'custom', ...issue });
    return issues.length > 0 ? z.NEVER : Array.from(value as string[]);
  })
  .optional();

const namespace = z
  .string({ error: missingOr('must be a string') })
  .superRefine(refineWith(namespaceProblem))
  .nullish()
  .transform((value) => value ?? undefined);

const instance = z
  .string({ error: () => instanceProblem(undefined) })
  .superRefine(refineWith(instanceProblem))
  .nullish()
  .transform((value) => value ?? undefined);

const gpus = z
  .unknown()
  .superRefine(refineWith((value) => (value === undefined || value === null ? undefined : gpusProblem(value))))
  .transform((value) => (value === undefined || value === null || value === 0 ? undefined : (value as number)))
  .optional();

const gpuResource = z
  .string({ error: missingOr('must be a string') })
  .superRefine(refineWith(gpuResourceProblem))
  .nullish()
  .transform((value) => value ?? undefined);

/** A RuntimeClass name is a DNS-1123 subdomain; the value is quoted, as a flag's user typed it. */
function runtimeClassProblem(value: string): string | undefined {
  const problem = dns1123SubdomainProblem(value);
  return problem && `${problem} (got ${JSON.stringify(value)})`;
}

const runtimeClass = z
  .string({ error: missingOr('must be a string') })
  .superRefine(refineWith(runtimeClassProblem))
  .nullish()
  .transform((value) => value ?? undefined);

const optionalBoolean = z
  .boolean({ error: 'must be true or false' })
  .nullish()
  .transform((value) => value ?? undefined);

/**
 * The input shape. Strict: an unknown key (a typo such as `memory` for `memoryMb`) is an
 * issue, never silently ignored.
 */
export const workloadSpecSchema = z.strictObject(
  {
    containerId: labelSafeId,
    nodeId: labelSafeId,
    hostname: dns1123Label,
    image: imageReference,
    cpus,
    memoryMb,
    env,
    entrypoint,
    args,
    namespace,
    instance,
    gpus,
    gpuResource,
    runtimeClass,
    systemContainer: optionalBoolean,
    hostUsers: optionalBoolean,
    storage: storageSchema.optional(),
    ports: portsSchema,
    serviceType: serviceTypeSchema,
  },
  {
    error: (issue) => (issue.code === 'invalid_type' ? "must be an object with the workload's fields" : undefined),
  },
);

const ALLOWED_FIELDS = Object.keys(workloadSpecSchema.shape).join(', ');
const ALLOWED_PORT_FIELDS = PORT_FIELDS.join(', ');

function formatPath(path: readonly PropertyKey[]): string {
  // An empty key (e.g. an env variable named "") is shown quoted so it stays visible.
  return path.map((segment) => (segment === '' ? '""' : String(segment))).join('.');
}

/** Flattens zod's issues into ours: one per unknown key, record key rules unwrapped, each naming the value given. */
function toSpecIssues(issues: readonly z.core.$ZodIssue[], input: unknown): SpecIssue[] {
  return issues.flatMap((issue): SpecIssue[] => {
    if (issue.code === 'unrecognized_keys') {
      const allowed =
        issue.path[0] === 'storage' ? STORAGE_FIELDS.join(', ') : issue.path[0] === 'ports' ? ALLOWED_PORT_FIELDS : ALLOWED_FIELDS;
      return issue.keys.map((key) => ({
        path: formatPath([...issue.path, key]),
        message: `is not a known field (allowed: ${allowed})`,
      }));
    }
    if (issue.code === 'invalid_key') {
      return issue.issues.map((inner) => ({ path: formatPath(issue.path), message: inner.message }));
    }
    return [{ path: formatPath(issue.path), message: withGiven(issue.message, input, issue.path) }];
  });
}

/** The issue of a GPU resource given without a count: it would be dropped without a word. */
export function gpuResourceWithoutGpus(resource: string): SpecIssue {
  return {
    path: 'gpuResource',
    message: withGiven('needs gpus of 1 or more (it names what gpus counts)', { gpuResource: resource }, ['gpuResource']),
  };
}

/**
 * Validates and normalises untrusted input into a WorkloadSpec. Throws InvalidSpecError
 * listing every problem found, each with its dotted path (e.g. `env.MY_VAR`, `args.1`).
 */
export function parseWorkloadSpec(input: unknown): WorkloadSpec {
  const result = workloadSpecSchema.safeParse(input);
  const crossField = portRulesIssues(input);
  if (!result.success) throw new InvalidSpecError([...toSpecIssues(result.error.issues, input), ...crossField]);
  if (crossField.length > 0) throw new InvalidSpecError(crossField);
  const {
    entrypoint,
    args,
    namespace,
    instance,
    env,
    gpus,
    gpuResource,
    runtimeClass,
    systemContainer,
    hostUsers,
    storage,
    ports,
    serviceType,
    ...required
  } = result.data;
  // A resource with no count would be dropped without a word: refused instead.
  if (gpuResource !== undefined && gpus === undefined) throw new InvalidSpecError([gpuResourceWithoutGpus(gpuResource)]);
  if (storage?.seed === 'image' && required.hostname === SEED_CONTAINER_NAME) {
    throw new InvalidSpecError([
      {
        path: 'hostname',
        message: `must not be ${SEED_CONTAINER_NAME} with storage seeded from the image: the seeding init container has that name`,
      },
    ]);
  }
  if (storage !== undefined && isSystemContainer({ systemContainer, entrypoint })) {
    const issues = systemStorageIssues(storage.paths);
    if (issues.length > 0) throw new InvalidSpecError(issues);
  }
  // Optional fields are left out rather than set to undefined; an empty list of ports is none.
  return {
    ...required,
    env: env ?? (Object.create(null) as Record<string, string>),
    ...(entrypoint ? { entrypoint } : {}),
    ...(args ? { args } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
    ...(instance !== undefined ? { instance } : {}),
    ...(gpus !== undefined ? { gpus, gpuResource: gpuResource ?? DEFAULT_GPU_RESOURCE } : {}),
    ...(runtimeClass !== undefined ? { runtimeClass } : {}),
    ...(systemContainer !== undefined ? { systemContainer } : {}),
    ...(hostUsers !== undefined ? { hostUsers } : {}),
    ...(storage !== undefined ? { storage } : {}),
    ...(ports !== undefined && ports.length > 0 ? { ports: sortPorts(ports.map(normalisePort)) } : {}),
    ...(serviceType !== undefined ? { serviceType } : {}),
  };
}

/** A system container's memory-backed directories cannot also be persisted paths (one mount per path). */
function systemStorageIssues(paths: readonly string[]): SpecIssue[] {
  // The paths are sorted by now, so the issue names the path rather than its index.
  return paths.flatMap((path): SpecIssue[] => {
    const tree = SYSTEM_TMPFS_PATHS.find((tmpfs) => path === tmpfs || path.startsWith(`${tmpfs}/`));
    if (tree === undefined) return [];
    return [
      {
        path: 'storage.paths',
        message: `must not hold ${JSON.stringify(path)}: a system container has ${tree} as a memory-backed directory`,
      },
    ];
  });
}

/**
 * The rules across the ports, the Service type and the hostname, checked whenever those
 * fields are valid on their own, so their problems are listed with every other one.
 */
function portRulesIssues(input: unknown): SpecIssue[] {
  if (!input || typeof input !== 'object') return [];
  const fields = input as Record<string, unknown>;
  const ports = portsSchema.safeParse(fields.ports);
  const serviceType = serviceTypeSchema.safeParse(fields.serviceType);
  if (!ports.success || !serviceType.success) return [];
  // Each of these messages names the values it compares.
  const issues = portListIssues(ports.data, serviceType.data).map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
  const hostname = fields.hostname;
  if (ports.data !== undefined && ports.data.length > 0 && typeof hostname === 'string' && !dns1123LabelProblem(hostname)) {
    const problem = serviceNameProblem(hostname);
    if (problem) issues.unshift({ path: 'hostname', message: withGiven(problem, input, ['hostname']) });
  }
  return issues;
}
