// The Service of one Manager container, as a pure function of its spec and its
// Deployment: same name, namespace and labels as the Deployment, the Deployment's selector,
// one port per entry of the spec. Same input, deep-equal output, and no undefined fields.

import type { V1Deployment } from '../../kube/objects.js';
import type { V1Service, V1ServicePort } from '../../kube/objects.js';
import { InvalidOptionError } from '../../errors/input.js';
import { DEFAULT_SERVICE_TYPE, servicePortName, type WorkloadPort } from '../../input/ports.js';
import type { WorkloadSpec } from '../../input/workload-spec.js';
import { effectiveNamespace, selectorLabels, workloadLabels, type BuildDeploymentOptions } from '../deployment/manifest.js';

/** The Deployment the Service belongs to: the garbage collector removes the Service with it. */
export interface ServiceOwner {
  readonly name: string;
  readonly uid: string;
}

export interface BuildServiceOptions extends Pick<BuildDeploymentOptions, 'namespace'> {
  /** Absent: a Service without an owner (a dry run, say); with one, it carries the owner reference. */
  readonly owner?: ServiceOwner;
}

/** The owner of a Deployment as read from the API server, for buildService's `owner`. */
export function deploymentOwner(deployment: V1Deployment): ServiceOwner {
  const name = deployment.metadata?.name;
  const uid = deployment.metadata?.uid;
  if (!name || !uid)
    throw new InvalidOptionError('owner', 'owner: the Deployment must have a name and a uid (read it from the API server)');
  return { name, uid };
}

/** One Service port: the container's port, on the same number, by its protocol. */
export function servicePort(port: WorkloadPort): V1ServicePort {
  return {
    name: servicePortName(port),
    protocol: port.protocol === 'udp' ? 'UDP' : 'TCP',
    port: port.port,
    targetPort: port.port,
    ...(port.nodePort !== undefined ? { nodePort: port.nodePort } : {}),
  };
}

/**
 * The v1 Service that gives a container with ports one stable address. Throws
 * InvalidOptionError for a spec without ports: such a container has no Service.
 */
export type ServiceSpec = Pick<WorkloadSpec, 'containerId' | 'nodeId' | 'hostname' | 'instance' | 'namespace' | 'ports' | 'serviceType'>;

export function buildService(spec: ServiceSpec, options: BuildServiceOptions = {}): V1Service {
  const ports = spec.ports ?? [];
  if (ports.length === 0) throw new InvalidOptionError('ports', 'ports: a container without ports has no Service');
  const namespace = effectiveNamespace(spec, options);
  const owner = options.owner;
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: spec.hostname,
      namespace,
      labels: workloadLabels(spec),
      // No blockOwnerDeletion: it would need `update` on deployments/finalizers where the
      // admission plugin enforces it, and remove() deletes the Service itself and waits.
      ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: owner.name, uid: owner.uid }] } : {}),
    },
    spec: {
      type: spec.serviceType ?? DEFAULT_SERVICE_TYPE,
      // The Deployment's own selector, so the Service routes to exactly its Pod.
      selector: selectorLabels(spec),
      ports: ports.map(servicePort),
    },
  };
}
