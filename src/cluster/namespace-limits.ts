// Would the namespace's LimitRanges or ResourceQuotas refuse the Pod of a workload? Pure:
// the same rules the API server's LimitRanger and ResourceQuota admission apply when the
// ReplicaSet controller creates the Pod, for the CPU and memory (and the counts) of our
// one-container Pod, whose requests equal its limits.
import type { V1LimitRange, V1ResourceQuota, V1ScopedResourceSelectorRequirement } from '../kube/objects.js';
import { cpuMillicores, formatBytes, formatMillicores, quantityUnits } from '../input/parse-quantity.js';

/** What one Pod of the workload asks for; requests equal limits. */
export interface PodRequest {
  readonly cpuMillicores: number;
  readonly memoryBytes: number;
  /** GPUs of one extended resource (the spec's gpus and gpuResource); absent: none. */
  readonly gpus?: { readonly resource: string; readonly count: number };
}

type Resource = 'cpu' | 'memory';

const readers: Record<Resource, { parse: (text: string) => number | undefined; format: (value: number) => string }> = {
  cpu: { parse: cpuMillicores, format: formatMillicores },
  memory: { parse: quantityUnits, format: formatBytes },
};

function amountOf(request: PodRequest, resource: Resource): number {
  return resource === 'cpu' ? request.cpuMillicores : request.memoryBytes;
}

/** Each way the LimitRanges refuse the Pod, in words; empty when none does. */
export function limitRangeRefusals(request: PodRequest, limitRanges: readonly V1LimitRange[]): string[] {
  const refusals: string[] = [];
  for (const limitRange of limitRanges) {
    const name = limitRange.metadata?.name ?? '(unnamed)';
    for (const item of limitRange.spec?.limits ?? []) {
      // Container and Pod bounds read the same for a Pod of one container. Our limit equals
      // our request, which any maxLimitRequestRatio (at least 1) allows.
      if (item.type !== 'Container' && item.type !== 'Pod') continue;
      for (const resource of ['cpu', 'memory'] as const) {
        const { parse, format } = readers[resource];
        const amount = amountOf(request, resource);
        const min = item.min?.[resource];
        const max = item.max?.[resource];
        const minValue = min === undefined ? undefined : parse(min);
        const maxValue = max === undefined ? undefined : parse(max);
        if (minValue !== undefined && amount < minValue) {
          refusals.push(`LimitRange ${name}: ${resource} ${format(amount)} per ${item.type} is below the minimum ${min}`);
        }
        if (maxValue !== undefined && amount > maxValue) {
          refusals.push(`LimitRange ${name}: ${resource} ${format(amount)} per ${item.type} is above the maximum ${max}`);
        }
      }
    }
  }
  return refusals;
}

/** The quota keys a new Pod of ours (and its Deployment) adds to, and by how much. */
function additions(request: PodRequest): readonly { key: string; amount: number; format: (value: number) => string; resource: string }[] {
  const count = (value: number): string => String(value);
  return [
    { key: 'requests.cpu', amount: request.cpuMillicores, format: formatMillicores, resource: 'cpu' },
    { key: 'cpu', amount: request.cpuMillicores, format: formatMillicores, resource: 'cpu' },
    { key: 'limits.cpu', amount: request.cpuMillicores, format: formatMillicores, resource: 'cpu' },
    { key: 'requests.memory', amount: request.memoryBytes, format: formatBytes, resource: 'memory' },
    { key: 'memory', amount: request.memoryBytes, format: formatBytes, resource: 'memory' },
    { key: 'limits.memory', amount: request.memoryBytes, format: formatBytes, resource: 'memory' },
    { key: 'pods', amount: 1, format: count, resource: 'count' },
    { key: 'count/pods', amount: 1, format: count, resource: 'count' },
    { key: 'count/deployments.apps', amount: 1, format: count, resource: 'count' },
  ];
}

/** Each way the ResourceQuotas refuse the Pod (or its Deployment), in words; empty when none does. */
export function resourceQuotaRefusals(request: PodRequest, quotas: readonly V1ResourceQuota[]): string[] {
  const refusals: string[] = [];
  for (const quota of quotas) {
    if (!quotaCoversOurPod(quota)) continue;
    const name = quota.metadata?.name ?? '(unnamed)';
    const hard = quota.spec?.hard ?? {};
    const tracked = additions(request).filter(({ key }) => hard[key] !== undefined);
    if (tracked.length === 0) continue;
    if (quota.status?.hard === undefined) {
      // Admission refuses what a quota tracks until its controller has computed the usage.
      refusals.push(`ResourceQuota ${name}: its usage is not computed yet, so the API server refuses new Pods for now`);
      continue;
    }
    for (const { key, amount, format, resource } of tracked) {
      const parse = resource === 'cpu' ? cpuMillicores : quantityUnits;
      const limit = parse(hard[key]!);
      const usedText = quota.status.used?.[key];
      const used = usedText === undefined ? 0 : (parse(usedText) ?? 0);
      if (limit === undefined) continue;
      if (used + amount > limit) {
        refusals.push(
          `ResourceQuota ${name}: ${key} would be ${format(used + amount)}, above its hard limit ${hard[key]} (${format(used)} used)`,
        );
      }
    }
  }
  return refusals;
}

/**
 * Our Pods have Guaranteed QoS (requests = limits, so not BestEffort), no
 * activeDeadlineSeconds (not Terminating), no priority class and no cross-namespace
 * affinity: a quota applies when every scope it names covers such a Pod.
 */
function quotaCoversOurPod(quota: V1ResourceQuota): boolean {
  const scopes = quota.spec?.scopes ?? [];
  const expressions = quota.spec?.scopeSelector?.matchExpressions ?? [];
  return scopes.every((scope) => scopeCovers(scope)) && expressions.every((expression) => expressionCovers(expression));
}

function scopeCovers(scope: string): boolean {
  return scope === 'NotBestEffort' || scope === 'NotTerminating';
}

function expressionCovers(expression: V1ScopedResourceSelectorRequirement): boolean {
  if (expression.scopeName === 'PriorityClass') {
    // A Pod without a priority class: only "does not exist" or "not in" selects it.
    return expression.operator === 'DoesNotExist' || expression.operator === 'NotIn';
  }
  if (expression.operator === 'DoesNotExist') return !scopeCovers(expression.scopeName);
  return scopeCovers(expression.scopeName);
}
