// serviceStatus(), serviceAddress() and podEndpoint(): pure, over objects shaped as the
// real kube-apiserver and EndpointSlice controller wrote them on the local control plane
// (fixtures copied from what kubectl showed through create, stop, start and a ports change).
import { describe, expect, it } from 'vitest';
import type { V1EndpointSlice, V1Service } from '../../src/kube/objects.js';
import { NODE_ADDRESS_ANNOTATION } from '../../src/input/labels.js';
import { podEndpoint, serviceAddress, servicePorts, serviceStatus } from '../../src/rollout/service-status.js';

const SERVICE_UID = 'bf6de5c2-e444-4a6f-a6a7-f8858d4a7699';
const POD = { uid: 'ade3d12f-6b98-4d4f-a915-5a4ba9953527', name: 'web-5dfcfc6c97-jgdvh', ip: '10.244.0.1' };

function service(overrides: Partial<V1Service['spec']> = {}, status: V1Service['status'] = { loadBalancer: {} }): V1Service {
  return {
    metadata: { name: 'web', namespace: 'default', uid: SERVICE_UID },
    spec: {
      type: 'ClusterIP',
      clusterIP: '10.0.0.223',
      clusterIPs: ['10.0.0.223'],
      ports: [
        { name: 'tcp-22', port: 22, protocol: 'TCP', targetPort: 22 },
        { name: 'udp-53', port: 53, protocol: 'UDP', targetPort: 53 },
      ],
      ...overrides,
    },
    status,
  };
}

function slice(endpoints: V1EndpointSlice['endpoints'], ports: V1EndpointSlice['ports'], ownerUid = SERVICE_UID): V1EndpointSlice {
  return {
    addressType: 'IPv4',
    metadata: {
      name: 'web-6wj67',
      labels: { 'kubernetes.io/service-name': 'web' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: ownerUid, controller: true, blockOwnerDeletion: true }],
    },
    ...(endpoints ? { endpoints } : {}),
    ...(ports ? { ports } : {}),
  };
}

const SLICE_PORTS = [
  { name: 'udp-53', port: 53, protocol: 'UDP' },
  { name: 'tcp-22', port: 22, protocol: 'TCP' },
];

function endpoint(conditions: { ready: boolean; serving: boolean; terminating: boolean }, pod = POD) {
  return {
    addresses: [pod.ip],
    conditions,
    nodeName: 'kwok-node-0',
    targetRef: { kind: 'Pod', name: pod.name, namespace: 'default', uid: pod.uid },
  };
}

const READY = { ready: true, serving: true, terminating: false };
const STARTING = { ready: false, serving: false, terminating: false };
const TERMINATING = { ready: false, serving: true, terminating: true };

describe('serviceStatus: through a container’s life', () => {
  it('routed: the new Pod ready in a slice with every port (in any order)', () => {
    const value = serviceStatus(service(), [slice([endpoint(READY)], SLICE_PORTS)], POD);
    expect(value).toEqual({
      type: 'ClusterIP',
      address: '10.0.0.223',
      clusterIp: '10.0.0.223',
      ports: [
        { port: 22, protocol: 'tcp', name: 'tcp-22' },
        { port: 53, protocol: 'udp', name: 'udp-53' },
      ],
      routed: true,
      reason: 'Routed',
      message: '10.0.0.223 routes to the Pod',
    });
  });

  it('shares one frozen copy of the ports many Services have alike, with the protocol constant', () => {
    const ports = serviceStatus(service(), [], POD)?.ports;
    expect(ports).toBe(serviceStatus(service({ clusterIP: '10.0.0.9' }), [], undefined)?.ports);
    expect(Object.isFrozen(ports?.[0])).toBe(true);
    expect(serviceStatus(service({ ports: [{ name: 'x', port: 22, protocol: 'SCTP' }] }), [], POD)?.ports).toEqual([
      { port: 22, protocol: 'tcp', name: 'x' },
    ]);
  });

  it('a new Pod first listed not ready, then not listed at all', () => {
    expect(serviceStatus(service(), [slice([endpoint(STARTING)], SLICE_PORTS)], POD)).toMatchObject({
      routed: false,
      reason: 'EndpointNotReady',
      message: 'waiting for the Service to route to the Pod (its endpoint is not ready yet)',
    });
    expect(serviceStatus(service(), [], POD)?.message).toBe(
      'waiting for the Service to route to the Pod (the EndpointSlice controller has not listed it yet)',
    );
  });

  it('the old Pod ready at the same IP (KWOK reuses Pod IPs) does not count for the new one', () => {
    const old = { uid: 'old-uid', name: 'web-b5b54fd56-k94jn', ip: POD.ip };
    expect(serviceStatus(service(), [slice([endpoint(READY, old)], SLICE_PORTS)], POD)?.routed).toBe(false);
  });

  it('stopping and stopped: terminating, then a slice with no endpoints and no ports; the address stays', () => {
    expect(serviceStatus(service(), [slice([endpoint(TERMINATING)], SLICE_PORTS)], POD)?.message).toContain('terminating');
    const stopped = serviceStatus(service(), [slice(undefined, [])], undefined);
    expect(stopped).toMatchObject({ address: '10.0.0.223', routed: false, reason: 'NoEndpoint', message: 'no Pod to route to' });
  });

  it('after a ports change, not routed until the slice carries the new ports', () => {
    const changed = service({
      ports: [
        { name: 'tcp-22', port: 22, protocol: 'TCP' },
        { name: 'tcp-8080', port: 8080, protocol: 'TCP' },
      ],
    });
    const before = serviceStatus(changed, [slice([endpoint(READY)], SLICE_PORTS)], POD);
    expect(before?.message).toBe("waiting for the Service to route to the Pod (the EndpointSlice does not carry the Service's ports yet)");
    const after = [
      slice(
        [endpoint(READY)],
        [
          { name: 'tcp-22', port: 22, protocol: 'TCP' },
          { name: 'tcp-8080', port: 8080, protocol: 'TCP' },
        ],
      ),
    ];
    expect(serviceStatus(changed, after, POD)?.routed).toBe(true);
  });

  it('ignores a slice left over from an earlier Service of the same name', () => {
    expect(serviceStatus(service(), [slice([endpoint(READY)], SLICE_PORTS, 'earlier-service')], POD)?.routed).toBe(false);
  });

  it('reads an absent ready condition as ready, as the API says to', () => {
    const bare = slice([{ addresses: [POD.ip], targetRef: { kind: 'Pod', name: POD.name, uid: POD.uid } }], SLICE_PORTS);
    expect(podEndpoint(service(), [bare], POD)).toEqual({ listed: true, ready: true, serving: true, terminating: false, ports: true });
  });

  it('no Service: null', () => {
    expect(serviceStatus(undefined, [], POD)).toBeNull();
  });
});

describe('serviceAddress: by type', () => {
  it('LoadBalancer: pending until the controller writes an ingress IP or hostname', () => {
    const pending = service({ type: 'LoadBalancer', ports: [{ name: 'tcp-22', port: 22, protocol: 'TCP', nodePort: 31999 }] });
    expect(serviceAddress(pending)).toBeNull();
    expect(serviceStatus(pending, [slice([endpoint(READY)], [{ name: 'tcp-22', port: 22, protocol: 'TCP' }])], POD)).toMatchObject({
      address: null,
      clusterIp: '10.0.0.223',
      reason: 'LoadBalancerPending',
      routed: false,
    });
    expect(servicePorts(pending)).toEqual([{ port: 22, protocol: 'tcp', name: 'tcp-22', nodePort: 31999 }]);
    const assigned = { ...pending, status: { loadBalancer: { ingress: [{ ip: '203.0.113.7' }] } } };
    expect(serviceAddress(assigned)).toBe('203.0.113.7');
    expect(serviceAddress({ ...pending, status: { loadBalancer: { ingress: [{ hostname: 'lb.example.net' }] } } })).toBe('lb.example.net');
  });

  it('NodePort: the node address recorded on the Service, else none yet', () => {
    const nodePort = service({ type: 'NodePort' });
    expect(serviceAddress(nodePort)).toBeNull();
    expect(
      serviceAddress({ ...nodePort, metadata: { ...nodePort.metadata, annotations: { [NODE_ADDRESS_ANNOTATION]: '172.30.0.10' } } }),
    ).toBe('172.30.0.10');
  });

  it('a headless Service has no address', () => {
    expect(serviceAddress(service({ clusterIP: 'None' }))).toBeNull();
  });
});
