// How the read commands print statuses: a kubectl-style table for `get`, one line per
// status for `status` (the same shape as create's progress lines: time, provider ID,
// words), and plain JSON objects, one per line, with -o json.
import type { WorkloadSnapshot } from '../workload/list.js';
import type { StatusEvent } from '../workload/status-board.js';

const NONE = '<none>';

/** `17:07:35.361 default/web running: 1/1 ready (pod IP 10.0.0.5 on node-1); volume web bound to pv-1: 50Gi of fast` */
export function formatStatusLine(event: StatusEvent): string {
  const { status } = event;
  const where = status.podIp ? ` (pod IP ${status.podIp}${status.nodeName ? ` on ${status.nodeName}` : ''})` : '';
  const storage = status.storage ? `; volume ${status.storage.name} ${status.storage.message}` : '';
  return `${event.at.slice(11, 23)} ${event.providerId} ${status.state}: ${status.message}${where}${storage}`;
}

/** The rows of `get`, header first, columns padded; -o wide adds the detail columns. */
export function formatStatusTable(snapshots: readonly WorkloadSnapshot[], wide: boolean): string[] {
  const header = ['PROVIDER-ID', 'CONTAINER-ID', 'NODE-ID', 'STATUS', 'REASON'];
  if (wide) header.push('RESTARTS', 'POD-IP', 'NODE', 'IMAGE', 'CPU', 'MEMORY', 'MESSAGE');
  const rows = snapshots.map((snapshot) => {
    const { detail } = snapshot;
    const row = [snapshot.providerId, snapshot.containerId || NONE, snapshot.nodeId || NONE, snapshot.status, detail.reason];
    if (wide) {
      row.push(
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
