// The live page's Address column (issue 23, item 9): the page's own script (web/live.js, as
// it ships) run in a VM context with a stand-in EventSource that opens nothing, and its
// describeService() fed the statuses the library's serviceStatus() computes from a Service
// and its EndpointSlices (the fake's objects, no cluster). The real-Chromium test
// (test/integration/live-ui.test.ts) checks the same cells on a real control plane.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { V1EndpointSlice, V1Service } from '../../src/kube/objects.js';
import { NODE_ADDRESS_ANNOTATION } from '../../src/input/labels.js';
import { serviceStatus, type ServiceStatusValue } from '../../src/rollout/service-status.js';

interface ServiceView {
  readonly address: string;
  readonly ports: string;
  readonly endpoint: string;
  readonly routed: 'ready' | 'not-ready' | 'none' | 'unknown';
  readonly title: string;
}

/** The page script's describeService, from the file the server serves. */
function pageDescribeService(): (status: { service?: ServiceStatusValue | null }) => ServiceView {
  const source = readFileSync(fileURLToPath(new URL('../../web/live.js', import.meta.url)), 'utf8');
  const context: Record<string, unknown> = {
    // connect() opens one EventSource and listens; nothing arrives here.
    EventSource: class {
      static readonly CLOSED = 2;
      addEventListener(): void {}
      close(): void {}
    },
  };
  runInNewContext(source, context);
  return context.describeService as (status: { service?: ServiceStatusValue | null }) => ServiceView;
}

const describeService = pageDescribeService();
const POD = { uid: 'pod-1', name: 'web-1', ip: '10.244.0.7' };

function service(type: 'ClusterIP' | 'LoadBalancer' | 'NodePort', extra: Partial<V1Service> = {}): V1Service {
  return {
    metadata: { name: 'web', namespace: 'team-a', uid: 'svc-1', ...extra.metadata },
    spec: {
      type,
      clusterIP: '10.96.4.20',
      ports: [
        { name: 'tcp-22', port: 22, protocol: 'TCP', ...(type === 'ClusterIP' ? {} : { nodePort: 30022 }) },
        { name: 'web', port: 8080, protocol: 'TCP', ...(type === 'ClusterIP' ? {} : { nodePort: 30080 }) },
      ],
    },
    ...(extra.status ? { status: extra.status } : {}),
  };
}

function slice(ready: boolean): V1EndpointSlice {
  return {
    addressType: 'IPv4',
    metadata: { name: 'web-abc', namespace: 'team-a', ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: 'svc-1' }] },
    ports: [
      { name: 'tcp-22', port: 22, protocol: 'TCP' },
      { name: 'web', port: 8080, protocol: 'TCP' },
    ],
    endpoints: [{ addresses: [POD.ip], conditions: { ready }, targetRef: { kind: 'Pod', name: POD.name, uid: POD.uid } }],
  };
}

describe('live page: the Address column (web/live.js describeService)', () => {
  it('a ClusterIP Service routing to the Pod: its address, its ports (a default name left out), endpoint ready', () => {
    const status = serviceStatus(service('ClusterIP'), [slice(true)], POD);
    expect(describeService({ service: status })).toEqual({
      address: '10.96.4.20',
      ports: '22/tcp, 8080/tcp (web)',
      endpoint: 'endpoint ready',
      routed: 'ready',
      title: '10.96.4.20 routes to the Pod',
    });
  });

  it('stopped (no Pod): the same address, no ready endpoint', () => {
    const view = describeService({ service: serviceStatus(service('ClusterIP'), [], undefined) });
    expect(view).toMatchObject({ address: '10.96.4.20', endpoint: 'no ready endpoint', routed: 'not-ready' });
  });

  it('a Pod the slices list as not ready: endpoint not ready, with the reason as the title', () => {
    const view = describeService({ service: serviceStatus(service('ClusterIP'), [slice(false)], POD) });
    expect(view).toMatchObject({ endpoint: 'endpoint not ready', routed: 'not-ready' });
    expect(view.title).toMatch(/waiting for the Service to route to the Pod \(its endpoint is not ready yet\)/);
  });

  it('no ports: the page says there is no Service and no address (never the Pod IP)', () => {
    expect(describeService({ service: null })).toEqual({
      address: 'no address',
      ports: 'no ports, no Service',
      endpoint: '',
      routed: 'none',
      title: '',
    });
  });

  it('a backend that does not say: a dash, not "no ports"', () => {
    expect(describeService({})).toMatchObject({ address: '–', routed: 'unknown' });
  });

  it('NodePort: the recorded node address, the type, each node port', () => {
    const nodePort = service('NodePort', { metadata: { annotations: { [NODE_ADDRESS_ANNOTATION]: '192.168.1.20' } } });
    expect(describeService({ service: serviceStatus(nodePort, [slice(true)], POD) })).toMatchObject({
      address: '192.168.1.20 (NodePort)',
      ports: '22/tcp → node 30022, 8080/tcp → node 30080 (web)',
      endpoint: 'endpoint ready',
      routed: 'ready',
    });
  });

  it('a LoadBalancer without an address yet: pending, and why', () => {
    const view = describeService({ service: serviceStatus(service('LoadBalancer'), [slice(true)], POD) });
    expect(view).toMatchObject({ address: 'pending (LoadBalancer)', endpoint: 'no load balancer address yet', routed: 'not-ready' });
    const assigned = service('LoadBalancer', { status: { loadBalancer: { ingress: [{ ip: '203.0.113.9' }] } } });
    expect(describeService({ service: serviceStatus(assigned, [slice(true)], POD) })).toMatchObject({
      address: '203.0.113.9 (LoadBalancer)',
      routed: 'ready',
    });
  });
});

describe('the connection badge before the first snapshot', () => {
  it('an open stream without a snapshot yet says connecting, never live; the snapshot then decides', () => {
    const source = readFileSync(fileURLToPath(new URL('../../web/live.js', import.meta.url)), 'utf8');
    const listeners = new Map<string, (message: { data: string; lastEventId: string }) => void>();
    const body = { dataset: {} as Record<string, string> };
    const label = { textContent: '' };
    const context: Record<string, unknown> = {
      EventSource: class {
        static readonly CLOSED = 2;
        addEventListener(name: string, listener: (message: { data: string; lastEventId: string }) => void): void {
          listeners.set(name, listener);
        }
        close(): void {}
      },
      document: { body, getElementById: (id: string) => (id === 'connection' ? label : null) },
      // Nothing is rendered here: the badge is set before any render.
      setTimeout: () => 0,
      clearTimeout: () => {},
      requestAnimationFrame: () => 0,
    };
    runInNewContext(source, context);
    listeners.get('open')!({ data: '', lastEventId: '' });
    expect(body.dataset.connection).toBe('connecting');
    expect(label.textContent).toBe('connecting to the cluster…');
    const snapshot = {
      namespace: 'team-a',
      actions: [],
      statuses: [],
      operations: [],
      connection: { state: 'unreachable', message: 'no answer' },
    };
    try {
      listeners.get('snapshot')!({ data: JSON.stringify(snapshot), lastEventId: '1' });
    } catch {
      // The rest of applySnapshot renders rows into a document this stand-in does not have.
    }
    expect(body.dataset.connection).toBe('unreachable');
  });
});
