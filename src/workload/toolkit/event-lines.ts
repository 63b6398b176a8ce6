// Progress events and errors as lines for people: the CLI's output, and Manager's job log
// (the Manager adapter's event printer builds on these). Each line is one line whatever
// the event carries: control characters in a kubelet message or an error are escaped.
import { InvalidSpecError } from '../../errors/input.js';
import { KubeProvisionerError } from '../../errors/base.js';
import { OperationTimeoutError } from './operation.js';
import { ReconfigureFailedError } from '../operations/reconfigure.js';
import { RolloutFailedError, RolloutTimeoutError } from '../../errors/rollout.js';
import { WorkloadDriftError } from '../../members/drift.js';
import { WorkloadSupersededError } from './guard-generation.js';
import { maskCredentials, maskValueWith } from '../../mask.js';
import { escapeControlCharacters } from '../../text.js';
import type { ProvisionEvent } from '../../rollout/events.js';

/** `HH:MM:SS.mmm <namespace/name> <what happened>`, the time in UTC as the event's `at`. */
export function formatEventLine(event: ProvisionEvent): string {
  return `${clockTime(event.at)} ${describeEvent(event)}`;
}

/** The event in words, without its time; two events that read the same are one line for a person. */
export function describeEvent(event: ProvisionEvent): string {
  return escapeControlCharacters(eventWords(event));
}

function eventWords(event: ProvisionEvent): string {
  switch (event.type) {
    case 'created':
      return `${event.providerId} created Deployment`;
    case 'adopted':
      return (
        `${event.providerId} adopted existing Deployment (same container-id)` +
        (event.reconfigured ? `; rewriting what differs: ${event.reconfigured.join(', ')}` : '')
      );
    case 'progress':
      return `${event.providerId} ${event.message}`;
    case 'ready':
      return `${event.providerId} ready in ${(event.durationMs / 1000).toFixed(1)}s`;
    case 'warned':
      return `${event.providerId} warning: ${event.message}`;
  }
}

/** The time of day of an ISO-8601 stamp, to the millisecond (`17:07:33.270`). */
export function clockTime(at: string): string {
  return at.slice(11, 23);
}

/** The error as plain JSON: name, message and the fields a UI can act on (no cause), credential shapes masked. */
export function errorRecord(error: unknown): Record<string, unknown> {
  return maskValueWith(errorFields(error), maskCredentials);
}

function errorFields(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: 'error', name: 'Error', message: String(error) };
  const record: Record<string, unknown> = { type: 'error', name: error.name, message: error.message };
  if (error instanceof InvalidSpecError) {
    record['issues'] = error.issues;
    if (error.omittedIssues > 0) record['omittedIssues'] = error.omittedIssues;
  }
  if (error instanceof RolloutFailedError)
    Object.assign(record, { reason: error.reason, detail: error.detail, pod: error.pod, container: error.container });
  if (error instanceof RolloutTimeoutError)
    Object.assign(record, { timeoutMs: error.timeoutMs, waitingFor: error.waitingFor, lastStatus: error.lastStatus });
  if (error instanceof ReconfigureFailedError)
    Object.assign(record, { restored: error.restored, ...(error.restoreError ? { restoreError: error.restoreError.message } : {}) });
  if (error instanceof OperationTimeoutError)
    Object.assign(record, { timeoutMs: error.timeoutMs, waitingFor: error.waitingFor, lastStatus: error.lastStatus });
  if (error instanceof WorkloadSupersededError)
    Object.assign(record, { expectedGeneration: error.expectedGeneration, supersededBy: error.supersededBy });
  if (error instanceof WorkloadDriftError) record['fields'] = error.fields;
  if (error instanceof KubeProvisionerError && error.cleanup) {
    const { outcome, providerId, uid, timeoutMs } = error.cleanup;
    record['cleanup'] = { outcome, providerId, uid, ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
  }
  return record;
}

/** `error: <name>: <message>` on one line, credential shapes masked. */
export function formatErrorLine(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return `error: ${escapeControlCharacters(maskCredentials(text))}`;
}
