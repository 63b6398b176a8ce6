// A container's Manager services as the ports its Kubernetes Service carries. Manager's
// agent proxies each `http` service to `<ipv4Address>:<internalPort>` over TCP and each
// `transport` service to the same over its protocol; a `dns` service is an SRV record and
// has no port of its own. Two services on one internal port (two HTTP hostnames for one
// web server, say) are one port.
import type { ContainerId, ContainerRecord, ContainerService } from './types.js';
import { InvalidContainerRecordError } from '../errors.js';

export interface ContainerPort {
  readonly port: number;
  readonly protocol: 'tcp' | 'udp';
}

function describeService(service: ContainerService, index: number): string {
  return `services[${index}]${service.id !== undefined && service.id !== null ? ` (id ${String(service.id)})` : ''}`;
}

/**
 * The ports of `services`, by port then protocol, each once. A service that cannot be a
 * port (no internal port, a transport service without tcp or udp) fails with
 * InvalidContainerRecordError naming it: it would otherwise be dropped without a word.
 */
export function portsOfServices(containerId: ContainerId, services: readonly ContainerService[]): ContainerPort[] {
  const problems: string[] = [];
  const ports = new Map<string, ContainerPort>();
  services.forEach((service, index) => {
    if (service.type === 'dns') return;
    const port = service.internalPort;
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65_535) {
      problems.push(`${describeService(service, index)}: internalPort must be a whole number from 1 to 65535 (got ${String(port)})`);
      return;
    }
    let protocol: 'tcp' | 'udp';
    if (service.type === 'http') protocol = 'tcp';
    else if (service.type === 'transport' && (service.protocol === 'tcp' || service.protocol === 'udp')) protocol = service.protocol;
    else if (service.type === 'transport') {
      problems.push(
        `${describeService(service, index)}: a transport service's protocol must be tcp or udp (got ${String(service.protocol)})`,
      );
      return;
    } else {
      problems.push(`${describeService(service, index)}: type must be http, transport or dns (got ${String(service.type)})`);
      return;
    }
    ports.set(`${port}/${protocol}`, { port, protocol });
  });
  if (problems.length > 0) throw new InvalidContainerRecordError(containerId, problems);
  return [...ports.values()].sort((a, b) => a.port - b.port || a.protocol.localeCompare(b.protocol));
}

/** The ports of the record's Manager services; a record without its services loaded has none. */
export function portsOfRecord(record: ContainerRecord): ContainerPort[] {
  return portsOfServices(record.id, record.services ?? []);
}

/**
 * The ports to set from the record: its services must be loaded, since a record read
 * without them would remove every port of the container's Service.
 */
export function requiredPortsOfRecord(record: ContainerRecord): ContainerPort[] {
  if (record.services === undefined) {
    throw new InvalidContainerRecordError(record.id, [
      "services are not loaded: a Kubernetes container's ports come from its Manager services " +
        "(SequelizeContainerStore: include { association: 'services', include: ['transportService'] } in findOptions; [] for none)",
    ]);
  }
  return portsOfServices(record.id, record.services);
}
