// The network objects of a container: its v1 Service and the discovery.k8s.io/v1
// EndpointSlices the controller manager writes for it. Typed as the JSON the API server
// sends, only the fields we set or read, named as in the Kubernetes API (see objects.ts).
import type { V1ObjectMeta } from './objects.js';

export interface V1ServicePort {
  name?: string;
  /** `TCP`, `UDP` or `SCTP`; the API server defaults it to TCP. */
  protocol?: string;
  port: number;
  /** A number or a container port's name; the API server defaults it to `port`. */
  targetPort?: number | string;
  /** Allocated by the API server for NodePort and LoadBalancer Services (unless given). */
  nodePort?: number;
  appProtocol?: string;
}

export interface V1ServiceSpec {
  /** `ClusterIP` (the API server's default), `NodePort`, `LoadBalancer` or `ExternalName`. */
  type?: string;
  selector?: { [key: string]: string };
  ports?: V1ServicePort[];
  /** Allocated by the API server from its service range; `None` for a headless Service. */
  clusterIP?: string;
  clusterIPs?: string[];
  loadBalancerClass?: string;
  externalTrafficPolicy?: string;
  publishNotReadyAddresses?: boolean;
}

export interface V1LoadBalancerIngress {
  ip?: string;
  hostname?: string;
}

export interface V1ServiceStatus {
  loadBalancer?: { ingress?: V1LoadBalancerIngress[] };
  conditions?: { type: string; status: string; reason?: string; message?: string }[];
}

export interface V1Service {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec?: V1ServiceSpec;
  status?: V1ServiceStatus;
}

export interface V1EndpointConditions {
  /** The Pod is ready (and not terminating, unless the Service publishes unready addresses). */
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
}

export interface V1ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
}

export interface V1Endpoint {
  addresses: string[];
  conditions?: V1EndpointConditions;
  targetRef?: V1ObjectReference;
  nodeName?: string;
}

export interface V1EndpointPort {
  name?: string;
  protocol?: string;
  port?: number;
}

export interface V1EndpointSlice {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  /** `IPv4`, `IPv6` or `FQDN`. */
  addressType: string;
  /** Absent (not an empty list) when the Service selects no Pod: the API omits empty lists. */
  endpoints?: V1Endpoint[];
  ports?: V1EndpointPort[];
}

/** The label the EndpointSlice controller puts on each slice: the name of its Service. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
