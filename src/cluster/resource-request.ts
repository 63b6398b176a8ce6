// The part of a workload spec that check() and fits() read: its CPU and memory, validated
// (and GPUs), by the same rules as parseWorkloadSpec (a whole spec is accepted; other fields are ignored).
import { z } from 'zod';
import { InvalidSpecError } from '../errors/input.js';
import { DEFAULT_GPU_RESOURCE } from '../input/gpus.js';
import { gpuResourceWithoutGpus, workloadSpecSchema } from '../input/workload-spec.js';
import type { PodRequest } from './namespace-limits.js';
import { withGiven } from '../input/given.js';

const resourceRequestSchema = z.object(
  {
    cpus: workloadSpecSchema.shape.cpus,
    memoryMb: workloadSpecSchema.shape.memoryMb,
    gpus: workloadSpecSchema.shape.gpus,
    gpuResource: workloadSpecSchema.shape.gpuResource,
  },
  { error: (issue) => (issue.code === 'invalid_type' ? 'must be an object with cpus and memoryMb' : undefined) },
);

const MEBIBYTE = 1024 * 1024;

/** `{ cpus, memoryMb }` (or a whole spec) as the requests of its Pod. Throws InvalidSpecError. */
export function parseResourceRequest(input: unknown): PodRequest {
  const result = resourceRequestSchema.safeParse(input);
  if (!result.success) {
    throw new InvalidSpecError(
      result.error.issues.map((issue) => ({
        path: issue.path.map(String).join('.'),
        message: withGiven(issue.message, input, issue.path),
      })),
    );
  }
  const { cpus, memoryMb, gpus, gpuResource } = result.data;
  if (gpuResource !== undefined && gpus === undefined) {
    throw new InvalidSpecError([gpuResourceWithoutGpus(gpuResource)]);
  }
  // Requests equal limits (buildDeployment), in whole millicores and MiB.
  return {
    cpuMillicores: Math.round(cpus * 1000),
    memoryBytes: memoryMb * MEBIBYTE,
    ...(gpus !== undefined ? { gpus: { resource: gpuResource ?? DEFAULT_GPU_RESOURCE, count: gpus } } : {}),
  };
}
