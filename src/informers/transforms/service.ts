// The Service as its informer caches it: what serviceStatus() and the drift check read:
// type, selector, ports, addresses, the node address recorded on it.
import type { V1Service } from '../../kube/objects.js';
import { NODE_ADDRESS_ANNOTATION } from '../../input/labels.js';
import { sharedValue } from '../../interning.js';
import { Fields, annotationOf, deletionOf, owners, pathsOf, readLabels, type Json } from './fields.js';

export function cachedServiceFields(service: V1Service): V1Service {
  const f = new Fields('Service', service);
  const root = f.root(service);
  const metadata = f.object(root.metadata, 'metadata');
  const spec = f.object(root.spec, 'spec');
  const status = f.object(root.status, 'status');
  const nodeAddress = annotationOf(f, metadata, NODE_ADDRESS_ANNOTATION);
  // Checked, not kept: nothing reads a cached Service's owners.
  owners(f, metadata?.ownerReferences, []);
  return {
    metadata: {
      name: f.string(metadata?.name, 'metadata.name'),
      namespace: f.common(metadata?.namespace, 'metadata.namespace'),
      uid: f.string(metadata?.uid, 'metadata.uid'),
      resourceVersion: f.string(metadata?.resourceVersion, 'metadata.resourceVersion'),
      deletionTimestamp: deletionOf(metadata),
      labels: readLabels(f, metadata?.labels),
      annotations: nodeAddress === undefined ? undefined : sharedValue('annotations', { [NODE_ADDRESS_ANNOTATION]: nodeAddress }),
    },
    spec: spec && {
      type: f.string(spec.type, 'spec.type'),
      clusterIP: f.string(spec.clusterIP, 'spec.clusterIP'),
      selector: f.strings(spec.selector, 'spec.selector'),
      ports: sharedValue(
        'service-ports',
        f.each(spec.ports, 'spec.ports', (port) => ({
          name: f.string(port.name, SERVICE_PORT.name),
          protocol: f.string(port.protocol, SERVICE_PORT.protocol),
          port: f.number(port.port, SERVICE_PORT.port) ?? f.fail(SERVICE_PORT.port, 'is missing'),
          nodePort: f.number(port.nodePort, SERVICE_PORT.nodePort),
          // Read by the Service gate: a port aimed at another target never routes as asked.
          targetPort: typeof port.targetPort === 'string' ? port.targetPort : f.number(port.targetPort, SERVICE_PORT.targetPort),
        })),
      ),
    },
    status: status && serviceStatusFields(f, status),
  };
}

const SERVICE_PORT = pathsOf('spec.ports', ['name', 'protocol', 'port', 'nodePort', 'targetPort']);
const LB_INGRESS = pathsOf('status.loadBalancer.ingress', ['ip', 'hostname']);

function serviceStatusFields(f: Fields, status: Json): V1Service['status'] {
  const loadBalancer = f.object(status.loadBalancer, 'status.loadBalancer');
  const cached = {
    loadBalancer: loadBalancer && {
      ingress: f.each(loadBalancer.ingress, 'status.loadBalancer.ingress', (ingress) => ({
        ip: f.string(ingress.ip, LB_INGRESS.ip),
        hostname: f.string(ingress.hostname, LB_INGRESS.hostname),
      })),
    },
  };
  // Without a load balancer's address (a ClusterIP Service's), every status is alike.
  return cached.loadBalancer?.ingress === undefined ? sharedValue('service-status', cached) : cached;
}
