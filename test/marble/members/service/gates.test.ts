// Marble tests (RxJS TestScheduler, virtual time) for the Service's gates in the one wait
// (awaitRollout with serviceGates as its gates$, as awaitReady puts them together): the
// informer streams are hot marbles of Deployments, Pods, Services and EndpointSlices shaped
// like the real controllers' writes (test/support/fixtures.ts, and slices as the
// EndpointSlice controller writes them); no cluster is involved.
import type { V1Deployment, V1EndpointSlice, V1Pod, V1Service } from '../../../../src/kube/objects.js';
import { filter, map, type Observable } from 'rxjs';
import { TestScheduler, type RunHelpers } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { RolloutFailedError } from '../../../../src/errors/rollout.js';
import { serviceGates } from '../../../../src/members/service/gates.js';
import { awaitRollout, type RolloutTarget } from '../../../../src/rollout/await-rollout.js';
import type { ProgressEvent } from '../../../../src/rollout/events.js';
import { DEFAULT_FAILURE_POLICY, resolveFailurePolicy, type FailurePolicy } from '../../../../src/rollout/failure-policy.js';
import { deployment, progressingDeployment, readyPod, runningPod } from '../../../support/fixtures.js';

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

interface Streams {
  readonly deployments$: Observable<readonly V1Deployment[]>;
  readonly pods$: Observable<readonly V1Pod[]>;
  readonly services$: Observable<readonly V1Service[]>;
  readonly slices$: Observable<readonly V1EndpointSlice[]>;
}

/** The one wait over the rollout with the Service as its gate; `expected`: the Service as this run wrote it, else known by name. */
function waitWithService(
  target: RolloutTarget,
  { deployments$, pods$, services$, slices$ }: Streams,
  options: { readonly serviceUid?: string; readonly failurePolicy?: FailurePolicy } = {},
): Observable<ProgressEvent> {
  const failurePolicy = options.failurePolicy ?? DEFAULT_FAILURE_POLICY;
  const service: V1Service = { metadata: { name: target.name, ...(options.serviceUid ? { uid: options.serviceUid } : {}) } };
  const deployment$ = deployments$.pipe(
    map((objects) => objects.find((object) => object.metadata?.uid === target.uid)),
    filter((object): object is V1Deployment => object !== undefined),
  );
  const gates$ = serviceGates(service, { services$, slices$ }, { deployment$, pods$, failurePolicy, graceEndsBy: undefined });
  return awaitRollout(target, deployments$, pods$, { failurePolicy, gates$ });
}

/** A LoadBalancer Service's wait, with a grace of 10 ms, over a rollout done and its Pod routed. */
function loadBalancerWait(hot: RunHelpers['hot'], services$: Observable<readonly V1Service[]>): Observable<ProgressEvent> {
  return waitWithService(
    target,
    { deployments$: hot('a', { a: [complete] }), pods$: hot('a', { a: [pod] }), services$, slices$: hot('a', { a: [slice(true)] }) },
    { failurePolicy: resolveFailurePolicy({ loadBalancer: { graceMs: 10 } }) },
  );
}

/** The Service's part of the wait's events: those that carry it. */
const summary = (events$: Observable<ProgressEvent>): Observable<string> =>
  events$.pipe(
    filter((event) => event.service !== undefined),
    map((event) => event.service?.reason ?? ''),
  );

describe("the Service's gates in the one wait (marble)", () => {
  it('completes on the slice event that lists the new Pod ready, and releases every stream', () => {
    newScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const deployments = hot('a', { a: [complete] });
      const pods = hot('a', { a: [pod] });
      const services = hot('a', { a: [service()] });
      const slices = hot('a-b--c', { a: [], b: [slice(false)], c: [slice(true)] });
      const result = waitWithService(target, { deployments$: deployments, pods$: pods, services$: services, slices$: slices });
      expectObservable(summary(result)).toBe('a-b--(c|)', { a: 'EndpointNotReady', b: 'EndpointNotReady', c: 'Routed' });
      // The Deployment and the Pods are read by the rollout and by the gate alike.
      for (const stream of [deployments, pods]) expectSubscriptions(stream.subscriptions).toBe(['^----!', '^----!']);
      for (const stream of [services, slices]) expectSubscriptions(stream.subscriptions).toBe('^----!');
    });
  });

  it('a Pod that is not Ready does not count, even listed ready', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const result = waitWithService(target, {
        deployments$: hot('a', { a: [complete] }),
        pods$: hot('a--b', { a: [notReadyPod], b: [pod] }),
        services$: hot('a', { a: [service()] }),
        slices$: hot('a', { a: [slice(true)] }),
      });
      expectObservable(summary(result)).toBe('a--(b|)', { a: 'NoEndpoint', b: 'Routed' });
    });
  });

  it('no Service and none expected: nothing to route, done once the first snapshot says so', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const result = waitWithService(target, {
        deployments$: hot('a', { a: [complete] }),
        pods$: hot('a', { a: [pod] }),
        services$: hot('-a', { a: [] }),
        slices$: hot('a', { a: [] }),
      });
      expectObservable(summary(result)).toBe('-|');
    });
  });

  it('the Service this run created: waits until the informer has it, and its deletion fails the wait', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const result = waitWithService(
        target,
        {
          deployments$: hot('a', { a: [complete] }),
          pods$: hot('a', { a: [pod] }),
          services$: hot('a-b-c', { a: [], b: [service()], c: [] }),
          slices$: hot('a', { a: [] }),
        },
        { serviceUid: 'svc-1' },
      );
      expectObservable(summary(result)).toBe(
        '--a-#',
        { a: 'EndpointNotReady' },
        new RolloutFailedError(
          { ...target, kind: 'Service' },
          'Deleted',
          'Service web: it was deleted while waiting for it to route to the Pod',
        ),
      );
    });
  });

  it('LoadBalancer: fails with LoadBalancerPending after the grace window, never by the timeout', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const result = loadBalancerWait(hot, hot('a', { a: [service('LoadBalancer')] }));
      expectObservable(summary(result)).toBe(
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
      const result = loadBalancerWait(hot, hot('a 4ms b', { a: [service('LoadBalancer')], b: [service('LoadBalancer', '203.0.113.7')] }));
      expectObservable(
        result.pipe(
          filter((event) => event.service !== undefined),
          map((event) => `${event.service?.reason ?? ''} ${String(event.service?.address)}`),
        ),
      ).toBe('a 4ms (b|)', {
        a: 'LoadBalancerPending null',
        b: 'Routed 203.0.113.7',
      });
    });
  });

  it('the last event carries the route: the Service, routed, and the Pod with its node (a NodePort address is recorded from it)', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const result = waitWithService(target, {
        deployments$: hot('a', { a: [complete] }),
        pods$: hot('a', { a: [pod] }),
        services$: hot('a', { a: [service()] }),
        slices$: hot('a', { a: [slice(true)] }),
      });
      expectObservable(result.pipe(filter((event) => event.routedTo !== undefined))).toBe('(a|)', {
        a: expect.objectContaining({
          status: expect.objectContaining({ state: 'Complete' }),
          service: expect.objectContaining({ routed: true, reason: 'Routed' }),
          routedTo: { pod: 'web-7c9f5d-a1', podIp: pod.status?.podIP ?? null, hostIp: pod.status?.hostIP ?? null },
        }),
      });
    });
  });

  it('a Service that can never route to these Pods fails at once, while the rollout is still under way', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const foreign: V1Service = { ...service(), spec: { ...service().spec, selector: { app: 'someone-else' } } };
      const result = waitWithService(target, {
        deployments$: hot('a', { a: [progressingDeployment({ uid: UID })] }),
        pods$: hot('a', { a: [] }),
        services$: hot('--a', { a: [foreign] }),
        slices$: hot('a', { a: [] }),
      });
      expectObservable(result.pipe(filter(() => false))).toBe(
        '--#',
        undefined,
        expect.objectContaining({ name: 'RolloutFailedError', reason: 'ServiceMismatch', kind: 'Service' }),
      );
    });
  });
});
