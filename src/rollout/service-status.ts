// serviceStatus(): a container's Service and the EndpointSlices of it in, one value out
// (kstatus style: "not routed yet" is a value, never an exception). The address is the one
// Manager's agent connects to; "routed" means the slices list the given Pod as ready on
// every port of the Service, the moment a connection to the address reaches that Pod.
//
//   LoadBalancer without an ingress address yet        address null, LoadBalancerPending
//   no Pod to route to (stopped, or none ready yet)     NoEndpoint
//   the Pod is not in the slices, or not ready there,
//     or the slices do not carry the Service's ports    EndpointNotReady
//   the Pod is ready in a slice with every port         Routed
import type { V1Service, V1EndpointSlice, V1Endpoint } from '../kube/objects.js';
import { NODE_ADDRESS_ANNOTATION } from '../input/labels.js';
import { PORT_PROTOCOLS, type PortProtocol, type ServiceType } from '../input/ports.js';
import { sharedValue } from '../interning.js';
import { KINDS } from '../kube/kinds.js';

/** One port of the Service as the API server stored it (node ports allocated). */
export interface ServicePortValue {
  readonly port: number;
  readonly protocol: PortProtocol;
  readonly name: string;
  /** NodePort and LoadBalancer only: the port on every node. */
  readonly nodePort?: number;
}

export type ServiceReachability = 'Routed' | 'EndpointNotReady' | 'NoEndpoint' | 'LoadBalancerPending';

export interface ServiceStatusValue {
  readonly type: ServiceType;
  /**
   * The stable address: the ClusterIP, the load balancer's IP (or hostname), or for
   * NodePort the node address chosen for it; null until there is one.
   */
  readonly address: string | null;
  /** The virtual IP the API server allocated (every type has one). */
  readonly clusterIp: string | null;
  readonly ports: readonly ServicePortValue[];
  /** Whether a connection to the address reaches the Pod now. */
  readonly routed: boolean;
  readonly reason: ServiceReachability;
  readonly message: string;
}

/** The Pod the Service should route to: the rollout's ready Pod. */
export interface RoutedPod {
  readonly uid?: string;
  readonly name?: string;
  readonly ip?: string;
}

/** The identity of `pod` the slices are matched by. */
export function routedPodOf(pod: { metadata?: { uid?: string; name?: string }; status?: { podIP?: string } }): RoutedPod {
  const uid = pod.metadata?.uid;
  const name = pod.metadata?.name;
  const ip = pod.status?.podIP;
  return { ...(uid ? { uid } : {}), ...(name ? { name } : {}), ...(ip ? { ip } : {}) };
}

export const WAITING_FOR_ROUTE_MESSAGE = 'waiting for the Service to route to the Pod';

const TYPES: readonly string[] = ['ClusterIP', 'LoadBalancer', 'NodePort'];

function serviceType(service: V1Service): ServiceType {
  const type = service.spec?.type;
  return type !== undefined && TYPES.includes(type) ? (type as ServiceType) : 'ClusterIP';
}

function protocolOf(protocol: string | undefined): PortProtocol {
  const lower = (protocol ?? 'TCP').toLowerCase();
  // The constant, not `lower`: a status keeps it, and one copy serves them all.
  return PORT_PROTOCOLS.find((known) => known === lower) ?? 'tcp';
}

/** The Service's ports in our words, in the Service's order. */
export function servicePorts(service: V1Service): ServicePortValue[] {
  return (service.spec?.ports ?? []).map((port) => ({
    port: port.port,
    protocol: protocolOf(port.protocol),
    name: port.name ?? '',
    ...(port.nodePort !== undefined && port.nodePort !== null && port.nodePort !== 0 ? { nodePort: port.nodePort } : {}),
  }));
}

function clusterIpOf(service: V1Service): string | null {
  const ip = service.spec?.clusterIP;
  return ip && ip !== 'None' ? ip : null;
}

/**
 * The address Manager's agent uses: the ClusterIP; a LoadBalancer's ingress IP (or
 * hostname); a NodePort Service's recorded node address. null while there is none.
 */
export function serviceAddress(service: V1Service): string | null {
  switch (serviceType(service)) {
    case 'LoadBalancer': {
      const ingress = service.status?.loadBalancer?.ingress?.find((entry) => entry.ip || entry.hostname);
      return ingress?.ip || ingress?.hostname || null;
    }
    case 'NodePort':
      return service.metadata?.annotations?.[NODE_ADDRESS_ANNOTATION] || null;
    default:
      return clusterIpOf(service);
  }
}

/** A slice left over from an earlier Service of the same name: owned by another Service uid. */
function belongsTo(slice: V1EndpointSlice, service: V1Service): boolean {
  const uid = service.metadata?.uid;
  const owners = (slice.metadata?.ownerReferences ?? []).filter((owner) => owner.kind === 'Service');
  return uid === undefined || owners.length === 0 || owners.some((owner) => owner.uid === uid);
}

function isPod(endpoint: V1Endpoint, pod: RoutedPod): boolean {
  const ref = endpoint.targetRef;
  if (pod.uid !== undefined && ref?.uid !== undefined) return ref.uid === pod.uid;
  if (pod.name !== undefined && ref?.name !== undefined) return ref.name === pod.name;
  return pod.ip !== undefined && endpoint.addresses.includes(pod.ip);
}

/** The API's rule: an absent `ready` is read as true. */
function isReady(endpoint: V1Endpoint): boolean {
  return endpoint.conditions?.ready !== false;
}

/** Whether a slice lists every port of the Service (by name, protocol and number). */
function carriesPorts(slice: V1EndpointSlice, ports: readonly ServicePortValue[]): boolean {
  const listed = new Set((slice.ports ?? []).map((port) => `${port.name ?? ''}|${protocolOf(port.protocol)}|${port.port ?? ''}`));
  return ports.every((port) => listed.has(`${port.name}|${port.protocol}|${port.port}`));
}

/** What the slices say about one Pod: listed, ready there, and on every port. */
export interface EndpointValue {
  readonly listed: boolean;
  readonly ready: boolean;
  readonly serving: boolean;
  readonly terminating: boolean;
  /** Whether the slice that lists the Pod carries every port of the Service. */
  readonly ports: boolean;
}

/** The Pod's endpoint in the Service's slices (a ready one wins over a stale one). */
export function podEndpoint(service: V1Service, slices: readonly V1EndpointSlice[], pod: RoutedPod): EndpointValue {
  const ports = servicePorts(service);
  let found: EndpointValue = { listed: false, ready: false, serving: false, terminating: false, ports: false };
  for (const slice of slices) {
    if (!belongsTo(slice, service)) continue;
    for (const endpoint of slice.endpoints ?? []) {
      if (!isPod(endpoint, pod)) continue;
      const ready = isReady(endpoint);
      const value: EndpointValue = {
        listed: true,
        ready,
        serving: endpoint.conditions?.serving ?? ready,
        terminating: endpoint.conditions?.terminating === true,
        ports: carriesPorts(slice, ports),
      };
      if (value.ready && value.ports) return value;
      if (!found.listed || value.ready) found = value;
    }
  }
  return found;
}

function notRoutedMessage(endpoint: EndpointValue): string {
  if (!endpoint.listed) return `${WAITING_FOR_ROUTE_MESSAGE} (the ${KINDS.endpointslices.kind} controller has not listed it yet)`;
  if (endpoint.terminating) return `${WAITING_FOR_ROUTE_MESSAGE} (its endpoint is terminating)`;
  if (!endpoint.ready) return `${WAITING_FOR_ROUTE_MESSAGE} (its endpoint is not ready yet)`;
  return `${WAITING_FOR_ROUTE_MESSAGE} (the ${KINDS.endpointslices.kind} does not carry the Service's ports yet)`;
}

/** A workload's status fields from its Service: the address Manager stores, and the Service as it routes to `readyPod`. */
export function serviceFields(
  service: V1Service | undefined,
  slices: readonly V1EndpointSlice[],
  readyPod: Parameters<typeof routedPodOf>[0] | undefined,
): { readonly address: string | null; readonly service: ServiceStatusValue | null } {
  const status = serviceStatus(service, slices, readyPod && routedPodOf(readyPod));
  return { address: status?.address ?? null, service: status };
}

/**
 * The Service's address, ports and whether it routes to `pod` (the rollout's ready Pod;
 * undefined when none is ready, e.g. stopped). `service` undefined: no Service.
 */
export function serviceStatus(
  service: V1Service | undefined,
  slices: readonly V1EndpointSlice[],
  pod: RoutedPod | undefined,
): ServiceStatusValue | null {
  if (service === undefined) return null;
  const type = serviceType(service);
  const ports = sharedValue('service-status-ports', servicePorts(service));
  const base = { type, address: serviceAddress(service), clusterIp: clusterIpOf(service), ports };
  const value = (reason: ServiceReachability, message: string): ServiceStatusValue => ({
    ...base,
    routed: reason === 'Routed',
    reason,
    message,
  });
  if (base.address === null && type === 'LoadBalancer') {
    return value('LoadBalancerPending', 'waiting for a load balancer to assign the Service an address');
  }
  if (pod === undefined) return value('NoEndpoint', 'no Pod to route to');
  const endpoint = podEndpoint(service, slices, pod);
  if (endpoint.ready && endpoint.ports) {
    const at = base.address ?? 'the Service';
    return value('Routed', `${at} routes to the Pod`);
  }
  return value('EndpointNotReady', notRoutedMessage(endpoint));
}
