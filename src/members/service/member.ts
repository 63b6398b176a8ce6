// The Service: one stable address for a container with ports, owned by the Deployment (the
// garbage collector removes it with it). Its informer keys it by name; its EndpointSlices'
// informer (the Service's read side, which says when it routes) keys them by the Service
// name their `kubernetes.io/service-name` label carries. The EndpointSlice controller
// copies a Service's labels onto its slices, so the slices of our Services carry the
// installation's selector too.
import type { Observable } from 'rxjs';
import type { InformerRegistry } from '../../informers/registry.js';
import { cachedEndpointSliceFields } from '../../informers/transforms/endpoint-slice.js';
import { cachedServiceFields } from '../../informers/transforms/service.js';
import type { KubernetesClient } from '../../kube/client.js';
import { SERVICE_NAME_LABEL, type V1EndpointSlice, type V1Service } from '../../kube/objects.js';
import { allow } from '../../kube/permission.js';
import { serviceFields, servicePorts } from '../../rollout/service-status.js';
import { serviceGate } from '../../rollout/service-gate.js';
import type { CacheRequest, MemberRules, MemberStatusRules } from '../member.js';
import { snapshotsOf } from '../snapshots.js';
import { serviceDrift } from './drift.js';
import { serviceGates } from './gates.js';
import { buildService } from './manifest.js';

/** How the Service informer keys and caches objects. */
export const SERVICES_BY_NAME = {
  routingKeyName: 'name',
  routingKey: (service: V1Service) => service.metadata?.name,
  transformName: 'service-fields',
  transform: cachedServiceFields,
} as const satisfies CacheRequest<'services'>;

/** How the EndpointSlice informer keys and caches objects: by the Service they belong to. */
export const ENDPOINTSLICES_BY_SERVICE = {
  routingKeyName: 'service-name',
  routingKey: (slice: V1EndpointSlice) => slice.metadata?.labels?.[SERVICE_NAME_LABEL],
  transformName: 'endpoint-fields',
  transform: cachedEndpointSliceFields,
} as const satisfies CacheRequest<'endpointslices'>;

export function serviceSnapshots(
  registry: InformerRegistry,
  client: KubernetesClient,
  namespace: string,
  name: string,
  instance?: string,
): Observable<readonly V1Service[]> {
  return snapshotsOf({ registry, client, namespace, instance }, 'services', SERVICES_BY_NAME, name);
}

/** The slices of the Service `service`, per change. */
export function endpointSliceSnapshots(
  registry: InformerRegistry,
  client: KubernetesClient,
  namespace: string,
  service: string,
  instance?: string,
): Observable<readonly V1EndpointSlice[]> {
  return snapshotsOf({ registry, client, namespace, instance }, 'endpointslices', ENDPOINTSLICES_BY_SERVICE, service);
}

export const SERVICE_MEMBER: MemberRules<'services'> = {
  kind: 'services',
  // A container without ports has no Service.
  build: (spec, { namespace }) => (spec.ports && spec.ports.length > 0 ? buildService(spec, { namespace }) : undefined),
  nameIn: (workload) => workload,
  drift: serviceDrift,
  // Its slices are the EndpointSlice controller's; nothing waits for them.
  propagationPolicy: 'Background',
  // A Service of this container left from an earlier spec with ports: `ports` to undo.
  driftWhenUnasked: (live) => [
    {
      field: 'ports',
      live: servicePorts(live)
        .map((port) => `${port.port}/${port.protocol}`)
        .join(', '),
      desired: '(none)',
    },
  ],
  ownedBy: 'deployments',
  permissions: {
    // its Service (created, or read back when the name is taken), and the shared informers
    // of Services and EndpointSlices that say when it routes
    create: [...allow('services', ['create', 'get', 'list', 'watch']), ...allow('endpointslices', ['list', 'watch'])],
    // changing ports, a NodePort's node address, onDrift: reconfigure; delete
    lifecycle: allow('services', ['patch', 'delete']),
  },
  cache: SERVICES_BY_NAME,
  snapshots: serviceSnapshots,
  // Ready means reachable: the Service routes to the rollout's Pod.
  rolloutGates: (service, sources) => {
    const { registry, client, namespace, instance } = sources.scope;
    const name = service.metadata?.name ?? '';
    return serviceGates(
      service,
      {
        services$: serviceSnapshots(registry, client, namespace, name, instance),
        slices$: endpointSliceSnapshots(registry, client, namespace, name, instance),
      },
      sources,
    );
  },
  status: {
    watches: [
      { kind: 'services', cache: SERVICES_BY_NAME, find: { by: 'name' } },
      { kind: 'endpointslices', cache: ENDPOINTSLICES_BY_SERVICE, find: { by: 'label', label: SERVICE_NAME_LABEL } },
    ],
    view: ([services, slices]) => {
      const service = services?.[0] as V1Service | undefined;
      return service && { service, slices: (slices ?? NO_SLICES) as readonly V1EndpointSlice[] };
    },
    // The same gate as the waits'.
    gate: (view, deployment, pods, policy) => serviceGate(view?.service, view?.slices ?? NO_SLICES, deployment, pods, policy),
    fields: (view, _name, readyPod) => serviceFields(view?.service, view?.slices ?? NO_SLICES, readyPod),
  } satisfies MemberStatusRules<ServiceView>,
};

/** The Service and its slices, as its status reads them. */
interface ServiceView {
  readonly service: V1Service;
  readonly slices: readonly V1EndpointSlice[];
}

const NO_SLICES: readonly V1EndpointSlice[] = Object.freeze([]);
