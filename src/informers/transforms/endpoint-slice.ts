// An EndpointSlice as its informer caches it: what podEndpoint() reads, that is its
// Service, its endpoints' Pods and conditions, and its ports.
import type { V1EndpointSlice } from '../../kube/objects.js';
import { sharedValue } from '../../interning.js';
import { Fields, owners, pathsOf, readLabels } from './fields.js';

export function cachedEndpointSliceFields(slice: V1EndpointSlice): V1EndpointSlice {
  const f = new Fields('EndpointSlice', slice);
  const root = f.root(slice);
  const metadata = f.object(root.metadata, 'metadata');
  return {
    metadata: {
      name: f.string(metadata?.name, 'metadata.name'),
      namespace: f.common(metadata?.namespace, 'metadata.namespace'),
      uid: f.string(metadata?.uid, 'metadata.uid'),
      resourceVersion: f.string(metadata?.resourceVersion, 'metadata.resourceVersion'),
      labels: readLabels(f, metadata?.labels),
      // Its owner by kind and uid: its Service's.
      ownerReferences: owners(f, metadata?.ownerReferences, ['kind', 'uid']),
    },
    addressType: f.string(root.addressType, 'addressType'),
    endpoints: f.each(root.endpoints, 'endpoints', (endpoint) => {
      const conditions = f.object(endpoint.conditions, ENDPOINT.conditions);
      const ref = f.object(endpoint.targetRef, ENDPOINT.targetRef);
      return {
        addresses: (f.list(endpoint.addresses, ENDPOINT.addresses) ?? []).map(
          (address) => f.string(address, `${ENDPOINT.addresses}[]`) ?? f.fail(`${ENDPOINT.addresses}[]`, 'must be a string (got null)'),
        ),
        conditions:
          conditions &&
          sharedValue('endpoint-conditions', {
            ready: f.boolean(conditions.ready, ENDPOINT.ready),
            serving: f.boolean(conditions.serving, ENDPOINT.serving),
            terminating: f.boolean(conditions.terminating, ENDPOINT.terminating),
          }),
        targetRef: ref && {
          kind: f.string(ref.kind, ENDPOINT.refKind),
          name: f.string(ref.name, ENDPOINT.refName),
          uid: f.string(ref.uid, ENDPOINT.refUid),
        },
      };
    }),
    ports: sharedValue(
      'slice-ports',
      f.each(root.ports, 'ports', (port) => ({
        name: f.string(port.name, SLICE_PORT.name),
        protocol: f.string(port.protocol, SLICE_PORT.protocol),
        port: f.number(port.port, SLICE_PORT.port),
      })),
    ),
  };
}

const SLICE_PORT = pathsOf('ports', ['name', 'protocol', 'port']);
const ENDPOINT = {
  ...pathsOf('endpoints', ['conditions', 'targetRef', 'addresses']),
  ready: 'endpoints[].conditions.ready',
  serving: 'endpoints[].conditions.serving',
  terminating: 'endpoints[].conditions.terminating',
  refKind: 'endpoints[].targetRef.kind',
  refName: 'endpoints[].targetRef.name',
  refUid: 'endpoints[].targetRef.uid',
};
