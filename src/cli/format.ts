// One line per progress event for humans (and Manager's job log), or one JSON object per
// line with -o json.
import {
  InvalidSpecError,
  KubeProvisionerError,
  OperationTimeoutError,
  ReconfigureFailedError,
  RolloutFailedError,
  RolloutTimeoutError,
  WorkloadDriftError,
  WorkloadSupersededError,
} from '../errors.js';
import type { ProvisionEvent } from '../rollout/events.js';

export function formatEventLine(event: ProvisionEvent): string {
  return `${event.at.slice(11, 23)} ${describeEvent(event)}`;
}

/** The event in words, without its time. */
export function describeEvent(event: ProvisionEvent): string {
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
  }
}

/** The error as plain JSON: name, message and the fields a UI can act on (no cause). */
export function errorRecord(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: 'error', name: 'Error', message: String(error) };
  const record: Record<string, unknown> = { type: 'error', name: error.name, message: error.message };
  if (error instanceof InvalidSpecError) record.issues = error.issues;
  if (error instanceof RolloutFailedError)
    Object.assign(record, { reason: error.reason, detail: error.detail, pod: error.pod, container: error.container });
  if (error instanceof RolloutTimeoutError) Object.assign(record, { timeoutMs: error.timeoutMs, lastStatus: error.lastStatus });
  if (error instanceof ReconfigureFailedError)
    Object.assign(record, { restored: error.restored, ...(error.restoreError ? { restoreError: error.restoreError.message } : {}) });
  if (error instanceof OperationTimeoutError)
    Object.assign(record, { timeoutMs: error.timeoutMs, waitingFor: error.waitingFor, lastStatus: error.lastStatus });
  if (error instanceof WorkloadSupersededError)
    Object.assign(record, { expectedGeneration: error.expectedGeneration, supersededBy: error.supersededBy });
  if (error instanceof WorkloadDriftError) record.fields = error.fields;
  return record;
}

export function formatErrorLine(error: unknown): string {
  if (error instanceof KubeProvisionerError || error instanceof Error) return `error: ${error.name}: ${error.message}`;
  return `error: ${String(error)}`;
}
