// Marble tests (RxJS TestScheduler, virtual time) for awaitRouted: the informer streams are
// hot marbles of Deployments, Pods, Services and EndpointSlices shaped like the real
// controllers' writes (test/support/fixtures.ts, and slices as the EndpointSlice controller
// writes them); no cluster is involved.
import type { V1EndpointSlice, V1Pod, V1Service } from '../../../src/kube/objects.js';
import { map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { RolloutFailedError } from '../../../src/errors/rollout.js';
import { awaitRouted, type RoutedProgressEvent } from '../../../src/rollout/await-routed.js';
import type { RolloutTarget } from '../../../src/rollout/await-rollout.js';
import { resolveFailurePolicy } from '../../../src/rollout/failure-policy.js';
import { deployment, readyPod, runningPod } from '../../support/fixtures.js';

const UID = 'uid-web';
const target: RolloutTarget = { namespace: 'default', name: 'web', uid: UID, providerId: 'default/web' };
const complete = deployment({ uid: UID });
const pod = readyPod({ name: 'web-7c9f5d-a1' });
const notReadyPod = runningPod({ name: 'web-7c9f5d-a1' });

function service(type = 'ClusterIP', ingress?: string): V1Service {
  return {
    metadata: { name: 'web', uid: 'svc-1' },
    // The Deployment's selector: a Service with another one never routes (serviceMismatch).
    spec: {
      type,
      clusterIP: '10.0.0.9',
      selector: complete.spec?.selector.matchLabels,
      ports: [{ name: 'tcp-22', port: 22, protocol: 'TCP' }],
    },
    status: { loadBalancer: ingress ? { ingress: [{ ip: ingress }] } : {} },
  };
}

function slice(ready: boolean, of: V1Pod = pod): V1EndpointSlice {
  return {
    metadata: { name: 'web-abcde', ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: 'svc-1' }] },
    addressType: 'IPv4',
    endpoints: [
      {
        addresses: [of.status?.podIP ?? ''],
        conditions: { ready, serving: ready, terminating: false },
        targetRef: { kind: 'Pod', name: of.metadata?.name ?? '', uid: of.metadata?.uid ?? '' },
      },
    ],
    ports: [{ name: 'tcp-22', port: 22, protocol: 'TCP' }],
  };
}

function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

const summary = (event: RoutedProgressEvent): string => event.service.reason;

describe('awaitRouted (marble)', () => {
  it('completes on the slice event that lists the new Pod ready, and releases every stream', () => {
    newScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const deployments = hot('a', { a: [complete] });
      const pods = hot('a', { a: [pod] });
      const services = hot('a', { a: [service()] });
      const slices = hot('a-b--c', { a: [], b: [slice(false)], c: [slice(true)] });
      const result = awaitRouted(target, { deployments$: deployments, pods$: pods, services$: services, slices$: slices });
      expectObservable(result.pipe(map(summary))).toBe('a-b--(c|)', { a: 'EndpointNotReady', b: 'EndpointNotReady', c: 'Routed' });
      for (const stream of [deployments, pods, services, slices]) expectSubscriptions(stream.subscriptions).toBe('^----!');
    });
  });

  it('a Pod that is not Ready does not count, even listed ready', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const result = awaitRouted(target, {
        deployments$: hot('a', { a: [complete] }),
        pods$: hot('a--b', { a: [notReadyPod], b: [pod] }),
        services$: hot('a', { a: [service()] }),
        slices$: hot('a', { a: [slice(true)] }),
      });
      expectObservable(result.pipe(map(summary))).toBe('a--(b|)', { a: 'NoEndpoint', b: 'Routed' });
    });
  });

  it('no Service and none expected: nothing to route, done at once', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const result = awaitRouted(target, {
        deployments$: hot('a', { a: [complete] }),
        pods$: hot('a', { a: [pod] }),
        services$: hot('-a', { a: [] }),
        slices$: hot('a', { a: [] }),
      });
      expectObservable(result).toBe('-|');
    });
  });

  it('the Service this run created: waits until the informer has it, and its deletion fails the wait', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const result = awaitRouted(
        target,
        {
          deployments$: hot('a', { a: [complete] }),
          pods$: hot('a', { a: [pod] }),
          services$: hot('a-b-c', { a: [], b: [service()], c: [] }),
          slices$: hot('a', { a: [] }),
        },
        { serviceUid: 'svc-1' },
      );
      expectObservable(result.pipe(map(summary))).toBe(
        '--a-#',
        { a: 'EndpointNotReady' },
        new RolloutFailedError(target, 'Deleted', 'the Service was deleted while waiting for it to route to the Pod'),
      );
    });
  });

  it('LoadBalancer: fails with LoadBalancerPending after the grace window, never by the timeout', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const failurePolicy = resolveFailurePolicy({ loadBalancer: { graceMs: 10 } });
      const result = awaitRouted(
        target,
        {
          deployments$: hot('a', { a: [complete] }),
          pods$: hot('a', { a: [pod] }),
          services$: hot('a', { a: [service('LoadBalancer')] }),
          slices$: hot('a', { a: [slice(true)] }),
        },
        { failurePolicy },
      );
      expectObservable(result.pipe(map(summary))).toBe(
        'a 9ms #',
        { a: 'LoadBalancerPending' },
        // The object at fault is the Service.
        new RolloutFailedError(
          { ...target, kind: 'Service' },
          'LoadBalancerPending',
          'Service web: no load balancer gave it an address within 10 ms: the cluster may have no load-balancer controller ' +
            '(serviceType ClusterIP or NodePort needs none; failurePolicy.loadBalancer.graceMs waits longer)',
        ),
      );
    });
  });

  it('LoadBalancer: an address within the grace window ends the timer, and routes', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const failurePolicy = resolveFailurePolicy({ loadBalancer: { graceMs: 10 } });
      const result = awaitRouted(
        target,
        {
          deployments$: hot('a', { a: [complete] }),
          pods$: hot('a', { a: [pod] }),
          services$: hot('a 4ms b', { a: [service('LoadBalancer')], b: [service('LoadBalancer', '203.0.113.7')] }),
          slices$: hot('a', { a: [slice(true)] }),
        },
        { failurePolicy },
      );
      expectObservable(result.pipe(map((event) => `${summary(event)} ${event.service.address}`))).toBe('a 4ms (b|)', {
        a: 'LoadBalancerPending null',
        b: 'Routed 203.0.113.7',
      });
    });
  });
});
