// How the read commands print statuses: a kubectl-style table for `get`, one line per
// status for `status` (the same shape as create's progress lines: time, provider ID,
// words), and plain JSON objects, one per line, with -o json.
import type { ServiceStatusValue } from '../rollout/service-status.js';
import type { WorkloadSnapshot } from '../workload/reads/list.js';
import type { StatusEvent } from '../workload/reads/status-board.js';

const NONE = '<none>';

/** `17:07:35.361 default/web running: 1/1 ready (address 10.96.0.12, pod IP 10.0.0.5 on node-1); volume web bound to pv-1: 50Gi of fast` */
export function formatStatusLine(event: StatusEvent): string {
  const { status } = event;
  const places = [
    ...(status.address ? [`address ${status.address}`] : []),
    ...(status.podIp ? [`pod IP ${status.podIp}${status.nodeName ? ` on ${status.nodeName}` : ''}`] : []),
  ];
  const where = places.length > 0 ? ` (${places.join(', ')})` : '';
  const storage = status.storage ? `; volume ${status.storage.name} ${status.storage.message}` : '';
  return `${event.at.slice(11, 23)} ${event.providerId} ${status.state}: ${status.message}${where}${storage}`;
}

/** `22/tcp,30053:53/udp`: each port as kubectl prints a Service's, the node port first when there is one. */
function portsCell(service: ServiceStatusValue | null): string {
  if (!service || service.ports.length === 0) return NONE;
  return service.ports.map((port) => `${port.nodePort !== undefined ? `${port.nodePort}:` : ''}${port.port}/${port.protocol}`).join(',');
}

/** The rows of `get`, header first, columns padded; -o wide adds the detail columns. */
export function formatStatusTable(snapshots: readonly WorkloadSnapshot[], wide: boolean): string[] {
  const header = ['PROVIDER-ID', 'CONTAINER-ID', 'NODE-ID', 'STATUS', 'ADDRESS', 'REASON'];
  if (wide) header.push('PORTS', 'ROUTED', 'RESTARTS', 'POD-IP', 'NODE', 'IMAGE', 'CPU', 'MEMORY', 'MESSAGE');
  const rows = snapshots.map((snapshot) => {
    const { detail } = snapshot;
    const row = [
      snapshot.providerId,
      snapshot.containerId || NONE,
      snapshot.nodeId || NONE,
      snapshot.status,
      detail.address ?? NONE,
      detail.reason,
    ];
    if (wide) {
      row.push(
        portsCell(detail.service),
        detail.service ? (detail.service.routed ? 'yes' : 'no') : NONE,
        String(detail.restarts),
        detail.podIp ?? NONE,
        detail.nodeName ?? NONE,
        detail.image ?? NONE,
        detail.resources.cpu ?? NONE,
        detail.resources.memory ?? NONE,
        detail.message,
      );
    }
    return row;
  });
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  // The last column is not padded: a long message must not drag trailing spaces along.
  const line = (cells: readonly string[]): string =>
    cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!))).join('   ');
  return [line(header), ...rows.map(line)];
}
