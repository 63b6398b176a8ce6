// The GPU fields of a workload: how many of which extended resource it requests, and the
// RuntimeClass it runs with. Kubernetes schedules extended resources only in whole units,
// with the request equal to the limit, so both are written from one count.

/** The extended resource a GPU request names when the caller names none: the NVIDIA device plugin's. */
export const DEFAULT_GPU_RESOURCE = 'nvidia.com/gpu';

/** Upper bound on GPUs per container: catches a unit or typo mistake long before a scheduler would. */
export const MAX_GPUS = 64;

/** An extended resource is taken for a GPU when its name says so (nvidia.com/gpu, amd.com/gpu, gpu.intel.com/i915). */
export function isGpuResource(name: string): boolean {
  return name.includes('/') && /gpu/i.test(name);
}

export const MAX_DNS_SUBDOMAIN_LENGTH = 253;
/** A resource name is `<DNS subdomain>/<name of up to 63 characters>`. */
export const MAX_RESOURCE_NAME_LENGTH = MAX_DNS_SUBDOMAIN_LENGTH + 1 + 63;

const DNS_1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_PART = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

export function gpusProblem(gpus: unknown): string | undefined {
  if (typeof gpus !== 'number' || !Number.isInteger(gpus)) return 'must be a whole number of GPUs, e.g. 1';
  if (gpus < 0) return 'must be 0 or more';
  if (gpus > MAX_GPUS) return `must be at most ${MAX_GPUS}`;
  return undefined;
}

export function dns1123SubdomainProblem(value: string): string | undefined {
  if (value.length > 0 && value.length <= MAX_DNS_SUBDOMAIN_LENGTH && DNS_1123_SUBDOMAIN.test(value)) return undefined;
  return `must be a DNS-1123 subdomain: lowercase letters, digits, '-' and '.', 1-${MAX_DNS_SUBDOMAIN_LENGTH} characters, each part starting and ending with a letter or digit`;
}

/** An extended resource name as the API server accepts it in requests and limits (`nvidia.com/gpu`). */
export function gpuResourceProblem(value: string): string | undefined {
  const rule = "must be an extended resource name, '<domain>/<name>' such as nvidia.com/gpu, outside the kubernetes.io domain";
  const slash = value.indexOf('/');
  if (slash < 0) return `${rule} (it has no '/')`;
  const domain = value.slice(0, slash);
  const name = value.slice(slash + 1);
  if (dns1123SubdomainProblem(domain) !== undefined) return `${rule} (${JSON.stringify(domain)} is not a DNS-1123 subdomain)`;
  if (!QUALIFIED_NAME_PART.test(name)) return `${rule} (${JSON.stringify(name)} is not a name of 1-63 letters, digits, '-', '_' and '.')`;
  if (domain === 'kubernetes.io' || domain.endsWith('.kubernetes.io')) return `${rule} (${domain} is reserved for Kubernetes)`;
  return undefined;
}
