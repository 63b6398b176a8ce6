// The LimitRange and ResourceQuota rules a workload's Pod meets at admission (pure; the
// integration suite shows the real API server refusing what these rules refuse).
import type { V1LimitRange, V1ResourceQuota } from '../../../src/kube/objects.js';
import { describe, expect, it } from 'vitest';
import { limitRangeRefusals, resourceQuotaRefusals, type PodRequest } from '../../../src/cluster/namespace-limits.js';

const Mi = 1024 ** 2;
const pod = (cpuMillicores: number, memoryMb: number): PodRequest => ({ cpuMillicores, memoryBytes: memoryMb * Mi });

function limitRange(name: string, limits: NonNullable<V1LimitRange['spec']>['limits']): V1LimitRange {
  return { metadata: { name }, spec: { limits } };
}

function quota(
  name: string,
  hard: Record<string, string>,
  used: Record<string, string> | undefined,
  spec: Partial<NonNullable<V1ResourceQuota['spec']>> = {},
): V1ResourceQuota {
  return { metadata: { name }, spec: { hard, ...spec }, ...(used ? { status: { hard, used } } : {}) };
}

describe('limitRangeRefusals', () => {
  it('refuses CPU or memory above a Container or Pod maximum and below a minimum, naming the LimitRange', () => {
    const ranges = [
      limitRange('caps', [{ type: 'Container', max: { cpu: '1', memory: '1Gi' }, min: { cpu: '100m' } }]),
      limitRange('pods', [{ type: 'Pod', max: { memory: '512Mi' } }]),
    ];
    expect(limitRangeRefusals(pod(2000, 768), ranges)).toEqual([
      'LimitRange caps: cpu 2 per Container is above the maximum 1',
      'LimitRange pods: memory 768Mi per Pod is above the maximum 512Mi',
    ]);
    expect(limitRangeRefusals(pod(50, 256), ranges)).toEqual(['LimitRange caps: cpu 50m per Container is below the minimum 100m']);
    expect(limitRangeRefusals(pod(1000, 512), ranges)).toEqual([]);
  });

  it('ignores PersistentVolumeClaim limits, defaults and ratios (our limit equals our request)', () => {
    const ranges = [
      limitRange('mixed', [
        { type: 'PersistentVolumeClaim', max: { storage: '1Gi' } },
        { type: 'Container', _default: { cpu: '100m' }, defaultRequest: { cpu: '50m' }, maxLimitRequestRatio: { cpu: '1' } },
      ]),
    ];
    expect(limitRangeRefusals(pod(4000, 4096), ranges)).toEqual([]);
  });
});

describe('resourceQuotaRefusals', () => {
  it('refuses when used plus our Pod would pass a hard limit, for requests, limits, bare cpu/memory and counts', () => {
    const quotas = [
      quota(
        'small',
        { 'requests.cpu': '1', 'limits.memory': '1Gi', pods: '2' },
        { 'requests.cpu': '500m', 'limits.memory': '768Mi', pods: '2' },
      ),
      quota('bare', { cpu: '4', memory: '8Gi', 'count/deployments.apps': '5' }, { cpu: '0', memory: '0', 'count/deployments.apps': '5' }),
    ];
    expect(resourceQuotaRefusals(pod(750, 512), quotas)).toEqual([
      'ResourceQuota small: requests.cpu would be 1250m, above its hard limit 1 (500m used)',
      'ResourceQuota small: limits.memory would be 1280Mi, above its hard limit 1Gi (768Mi used)',
      'ResourceQuota small: pods would be 3, above its hard limit 2 (2 used)',
      'ResourceQuota bare: count/deployments.apps would be 6, above its hard limit 5 (5 used)',
    ]);
  });

  it('allows a Pod that fits exactly', () => {
    expect(
      resourceQuotaRefusals(pod(500, 512), [
        quota('q', { 'requests.cpu': '1', 'requests.memory': '1Gi' }, { 'requests.cpu': '500m', 'requests.memory': '512Mi' }),
      ]),
    ).toEqual([]);
  });

  it('says so while a quota that tracks our resources has no computed usage yet (admission refuses then)', () => {
    expect(resourceQuotaRefusals(pod(100, 64), [quota('fresh', { 'requests.cpu': '10' }, undefined)])).toEqual([
      'ResourceQuota fresh: its usage is not computed yet, so the API server refuses new Pods for now',
    ]);
    // A quota on something our Pod does not use never refuses it.
    expect(resourceQuotaRefusals(pod(100, 64), [quota('storage', { 'requests.storage': '1Gi' }, undefined)])).toEqual([]);
  });

  it('applies a scoped quota only when its scopes cover a Guaranteed, non-terminating Pod without a priority class', () => {
    const full = { 'requests.cpu': '1' };
    const used = { 'requests.cpu': '1' };
    const refused = (spec: Partial<NonNullable<V1ResourceQuota['spec']>>) =>
      resourceQuotaRefusals(pod(100, 64), [quota('q', full, used, spec)]).length > 0;
    expect(refused({ scopes: ['NotBestEffort', 'NotTerminating'] })).toBe(true);
    expect(refused({ scopes: ['BestEffort'] })).toBe(false);
    expect(refused({ scopes: ['Terminating'] })).toBe(false);
    expect(refused({ scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } })).toBe(
      false,
    );
    expect(refused({ scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'DoesNotExist' }] } })).toBe(true);
    expect(refused({ scopeSelector: { matchExpressions: [{ scopeName: 'BestEffort', operator: 'Exists' }] } })).toBe(false);
    expect(refused({ scopeSelector: { matchExpressions: [{ scopeName: 'Terminating', operator: 'DoesNotExist' }] } })).toBe(true);
  });
});
