// The job-log printer for every event the create flow and the lifecycle emit. Manager's job
// runner stores whatever chunks a job writes and streams them to the browser, so each event
// is written as ONE complete line in ONE write: a stored chunk then holds whole lines, never
// half of one. Lines for people by default (the same words as the kube-provision CLI); JSON
// lines on request. Every line is masked (credential shapes): a provider's step may relay
// what a node said.
import {
  InvalidOptionError,
  clockTime,
  describeEvent,
  describeLifecycleEvent,
  escapeControlCharacters,
  maskCredentials,
} from '../index.js';
import type { CreateFlowEvent } from './create-flow.js';
import type { ContainerOperationEvent } from './lifecycle.js';

/** Every event a job prints: creation's and the lifecycle's. */
export type JobEvent = CreateFlowEvent | ContainerOperationEvent;

export interface EventPrinterOptions {
  /** `text` (default): one line for a person per event; `json`: each event as one JSON line. */
  readonly output?: 'text' | 'json';
  /** Receives each line, newline included, in one call. Default: `process.stdout.write`. */
  readonly write?: (line: string) => void;
}

/**
 * An `onEvent` for `createContainer` and the lifecycle's Promise forms that prints the job log:
 *
 *     17:07:33.270 team-a/web created Deployment
 *     17:07:33.315 team-a/web waiting to be scheduled
 *     17:07:35.361 team-a/web 1/1 ready: rollout complete
 *
 * In text, an event that reads like the one before it is not printed again.
 */
export function eventPrinter(options: EventPrinterOptions = {}): (event: JobEvent) => void {
  const write = options.write ?? ((line: string) => void process.stdout.write(line));
  if (options.output === 'json') return (event) => write(`${JSON.stringify(maskCredentials(event))}\n`);
  if (options.output !== undefined && options.output !== 'text') {
    throw new InvalidOptionError('output', `eventPrinter output must be "text" or "json", not ${JSON.stringify(options.output)}`);
  }
  let previous = '';
  return (event) => {
    const words = describeFlowEvent(event);
    if (words === previous) return;
    previous = words;
    write(`${clockTime(event.at)} ${maskCredentials(words)}\n`);
  };
}

/** The event in words, on one line, without its time. */
export function describeFlowEvent(event: JobEvent): string {
  return escapeControlCharacters(eventWords(event));
}

function eventWords(event: JobEvent): string {
  switch (event.type) {
    case 'step':
      return `${event.provider}: ${event.severity === 'warning' ? 'warning: ' : ''}${event.message}`;
    case 'provisioned':
      return `${event.providerId} provisioned on ${event.provider} (MAC ${event.macAddress ?? 'none'}, IP ${event.ipAddress ?? 'none'})`;
    case 'saved':
      return 'operation' in event ? savedWords(event) : `${event.providerId} stored as container ${event.containerId}'s provider ID`;
    case 'completed':
      return (
        `${event.providerId} ${event.operation} on ${event.provider}: ${event.changed ? 'done' : 'nothing to do'}` +
        (event.network ? ` (MAC ${event.network.macAddress ?? 'none'}, IP ${event.network.ipAddress ?? 'none'})` : '')
      );
    case 'created':
    case 'adopted':
    case 'ready':
    case 'progress':
      return describeEvent(event);
    case 'warned':
      return event.reason === 'StopSignalUnknown' ? describeEvent(event) : describeLifecycleEvent(event);
    default:
      return describeLifecycleEvent(event);
  }
}

function savedWords(event: Extract<ContainerOperationEvent, { type: 'saved' }>): string {
  const written = [
    event.providerId === null ? 'provider ID cleared' : `provider ID ${event.providerId}`,
    ...(event.ipAddress !== undefined ? [`IP ${event.ipAddress ?? 'none'}`] : []),
  ];
  return `container ${event.containerId} saved after ${event.operation}: ${written.join(', ')}`;
}
