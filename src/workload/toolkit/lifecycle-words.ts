// A lifecycle event in words, one line, without its time: the CLI prints it, and Manager's
// job log (manager/event-printer.ts) prints the same words.
import type { LifecycleEvent } from './lifecycle-events.js';
import { KINDS } from '../../kube/kinds.js';

/** The event in words, without its time. */
export function describeLifecycleEvent(event: LifecycleEvent): string {
  const id = event.providerId;
  const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;
  switch (event.type) {
    case 'progress':
    case 'waiting':
      return `${id} ${event.message}`;
    case 'diagnosed': {
      const { pod } = event;
      const detail = pod.message && pod.message !== pod.reason ? `: ${pod.message}` : '';
      return `${id} pod ${pod.pod}${pod.container ? ` (container ${pod.container})` : ''}: ${pod.reason}${detail}`;
    }
    case 'scaled':
      return `${id} scaled from ${event.previousReplicas} to ${event.replicas} (generation ${event.generation})`;
    case 'patched':
      return (
        `${id} pod template updated: ${event.fields.join(', ')} (generation ${event.generation})` +
        (event.replicas === 0 ? '; stopped, it stays stopped' : '')
      );
    case 'rollback':
      return `${id} rollout failed (${event.reason}): restoring the previous pod template (generation ${event.generation})`;
    case 'deleted':
      if (event.kind === KINDS.persistentvolumeclaims.kind)
        return `${id} ${event.kind} ${event.object} deleted (its data goes with it); waiting for it to be gone`;
      return event.kind === 'Service'
        ? `${id} Service deleted; waiting for it to be gone`
        : `${id} ${event.kind} deleted; waiting for it and its pods to be gone`;
    case 'resized':
      return `${id} ${KINDS.persistentvolumeclaims.kind} ${event.object} grown from ${event.previous} to ${event.requested}: ${event.message}`;
    case 'kept':
      return `${id} ${event.kind} ${event.object} kept, with its data: a create for the same container re-attaches it`;
    case 'left':
      return `${id} ${event.message}`;
    case 'warned':
      return `${id} warning: ${event.message}`;
    case 'service':
      return `${id} Service ${event.action}${event.fields.length > 0 ? ` (${event.fields.join(', ')})` : ''}`;
    case 'portsSet':
      if (!event.changed) return `${id} ports already as requested: nothing to change`;
      return `${id} ports set in ${seconds(event.durationMs)}: ${event.address === null ? 'no ports, no Service, no address' : `address ${event.address}`}`;
    case 'started':
      return event.changed ? `${id} running: started in ${seconds(event.durationMs)}` : `${id} already running: nothing to do`;
    case 'stopped':
      return event.changed ? `${id} stopped in ${seconds(event.durationMs)}` : `${id} already stopped: nothing to do`;
    case 'restarted':
      if (!event.running) return `${id} not running (stopped): it stays stopped, nothing was restarted`;
      return `${id} restarted in ${seconds(event.durationMs)}`;
    case 'reconfigured':
      if (!event.changed) return `${id} already as requested: nothing to change`;
      return (
        `${id} reconfigured (${event.fields.join(', ')}) in ${seconds(event.durationMs)}` +
        (event.replicas === 0 ? '; stopped, it stays stopped' : '')
      );
    case 'removed': {
      const left =
        event.left.length > 0
          ? `; left untouched, not this container’s: ${event.left.map((each) => `${each.kind} ${each.object}`).join(', ')}`
          : '';
      if (!event.changed) return `${id} already gone: nothing to delete${event.storage === 'kept' ? ' (its claim is kept)' : ''}${left}`;
      return `${id} deleted in ${seconds(event.durationMs)}${event.storage === 'kept' ? '; its claim is kept' : ''}${left}`;
    }
  }
}
