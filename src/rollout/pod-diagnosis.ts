// diagnosePod(): what one Pod is doing, or why it cannot run, as a value; undefined when
// it is running and ready. Reads only the Pod's status, in the order a user would look:
// failed pod, scheduling, init containers, then the containers (a startup probe the kubelet
// gave up on first: startup-probe.ts).
import type { V1ContainerStateTerminated, V1ContainerStatus, V1Pod } from '../kube/objects.js';
import { oneLine } from '../text.js';
import type { PodDiagnosis } from './events.js';
import { STARTUP_PROBE_FAILED_REASON, startupProbeAwaited, startupProbeGaveUp } from './startup-probe.js';

/** A container that runs and is not ready yet. */
const NOT_READY_REASON = 'ContainerNotReady';
import { diagnoseStorage } from './storage-diagnosis.js';

/** Waiting reasons that mean Kubernetes failed to start the container (the policy decides when to give up). */
export const FAILURE_WAITING_REASONS: ReadonlySet<string> = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'ErrImageNeverPull',
  'CrashLoopBackOff',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
  'PreStartHookError',
  'PostStartHookError',
]);

/**
 * What the Pod is doing or why it cannot run, in the kubelet's or scheduler's words; a
 * volume the scheduler cannot bind and a seed that cannot run are named as storage reasons
 * (storage-diagnosis.ts).
 */
export function diagnosePod(pod: V1Pod): PodDiagnosis | undefined {
  return diagnoseStorage(pod, podDiagnosis(pod));
}

function podDiagnosis(pod: V1Pod): PodDiagnosis | undefined {
  const name = pod.metadata?.name ?? '';
  const status = pod.status;
  const diagnosis = (severity: PodDiagnosis['severity'], reason: string, message: string, container?: V1ContainerStatus): PodDiagnosis => ({
    severity,
    reason: oneLine(reason),
    message: oneLine(message),
    pod: name,
    ...(container ? { container: container.name, restartCount: container.restartCount ?? 0 } : {}),
  });

  if (status?.phase === 'Failed') {
    return diagnosis('failed', status.reason || 'Failed', status.message || 'the pod failed');
  }
  if (pod.metadata?.deletionTimestamp) {
    return diagnosis('waiting', 'Terminating', 'the pod is terminating');
  }

  const scheduled = status?.conditions?.find((condition) => condition.type === 'PodScheduled');
  if (scheduled?.status === 'False') {
    return diagnosis('waiting', scheduled.reason || 'Unschedulable', scheduled.message || 'the pod cannot be scheduled yet');
  }
  if (!pod.spec?.nodeName && scheduled?.status !== 'True') {
    return diagnosis('waiting', 'Pending', 'waiting to be scheduled');
  }

  const sidecars = new Set((pod.spec?.initContainers ?? []).filter((init) => init.restartPolicy === 'Always').map((init) => init.name));
  for (const init of status?.initContainerStatuses ?? []) {
    if (init.state?.terminated?.exitCode === 0) continue;
    // A native sidecar (restartable init container) is meant to keep running.
    if (sidecars.has(init.name) && init.state?.running) continue;
    const found = diagnoseContainer(init, true);
    if (found) return diagnosis(found.severity, found.reason, found.message, init);
  }
  for (const container of status?.containerStatuses ?? []) {
    const spec = pod.spec?.containers.find((each) => each.name === container.name);
    const memoryLimit = spec?.resources?.limits?.memory;
    // A startup probe the kubelet gave up on is the cause, whatever the restart shows now.
    const gaveUp = startupProbeGaveUp(spec?.startupProbe, container);
    const last = container.lastState?.terminated;
    if (gaveUp && last) {
      return diagnosis('failed', STARTUP_PROBE_FAILED_REASON, `${gaveUp}; last exit: ${describeExit(last, memoryLimit)}`, container);
    }
    const found = diagnoseContainer(container, false, memoryLimit);
    if (!found) continue;
    const awaiting = found.reason === NOT_READY_REASON ? startupProbeAwaited(spec?.startupProbe, container) : undefined;
    const diagnosed = diagnosis(found.severity, found.reason, found.message, container);
    return awaiting ? { ...diagnosed, awaiting } : diagnosed;
  }
  if (!status?.containerStatuses?.length) {
    return diagnosis('waiting', 'ContainerCreating', 'waiting for the kubelet to start the containers');
  }
  return undefined;
}

interface ContainerFinding {
  readonly severity: PodDiagnosis['severity'];
  readonly reason: string;
  readonly message: string;
}

/** The exit code of a process ended by SIGKILL (128 + 9): what the kernel's OOM killer sends. */
export const KILLED_EXIT_CODE = 137;

/**
 * How a container ended, as a user should read it: the runtime's reason and code, except
 * a SIGKILL the runtime did not name. The runtime does not always report OOMKilled for an
 * OOM kill (it may say Error), so exit 137 under a memory limit is named as most likely
 * out of memory at that limit; without a limit, only as killed.
 */
export function describeExit(terminated: V1ContainerStateTerminated, memoryLimit: string | undefined): string {
  if (terminated.exitCode !== KILLED_EXIT_CODE || terminated.reason === 'OOMKilled') {
    return `${terminated.reason || 'Error'} (exit code ${terminated.exitCode})`;
  }
  return memoryLimit === undefined
    ? `killed (exit ${KILLED_EXIT_CODE})`
    : `killed (exit ${KILLED_EXIT_CODE}), most likely out of memory at its ${memoryLimit} limit`;
}

function diagnoseContainer(container: V1ContainerStatus, isInit: boolean, memoryLimit?: string): ContainerFinding | undefined {
  const waiting = container.state?.waiting;
  const terminated = container.state?.terminated;
  const last = container.lastState?.terminated;
  const lastExit = last ? `last exit: ${describeExit(last, memoryLimit)}` : '';

  if (waiting) {
    const reason = waiting.reason || 'Waiting';
    if (FAILURE_WAITING_REASONS.has(reason)) {
      const message = [waiting.message, reason === 'CrashLoopBackOff' ? lastExit : ''].filter(Boolean).join('; ');
      return { severity: 'failed', reason, message: message || reason };
    }
    return { severity: 'waiting', reason, message: waiting.message || describeWaiting(reason, isInit) };
  }
  if (terminated && (terminated.exitCode !== 0 || !isInit)) {
    const reason = terminated.reason || (terminated.exitCode === 0 ? 'Completed' : 'Error');
    return {
      severity: terminated.exitCode === 0 ? 'waiting' : 'failed',
      reason,
      message:
        terminated.message ||
        (terminated.exitCode === KILLED_EXIT_CODE
          ? `the container was ${describeExit(terminated, memoryLimit)}`
          : `the container exited with code ${terminated.exitCode}`),
    };
  }
  if (isInit && !terminated) {
    return { severity: 'waiting', reason: 'PodInitializing', message: `init container ${container.name} is running` };
  }
  if (container.state?.running && !container.ready) {
    const message =
      last?.reason === 'OOMKilled' || (last && last.exitCode !== 0)
        ? `running, not ready yet (restarted after ${lastExit})`
        : 'running, not ready yet';
    return { severity: 'waiting', reason: NOT_READY_REASON, message };
  }
  return undefined;
}

function describeWaiting(reason: string, isInit: boolean): string {
  if (reason === 'ContainerCreating') return 'pulling the image and creating the container';
  if (reason === 'PodInitializing') return 'running init containers';
  return isInit ? `init container waiting (${reason})` : `container waiting (${reason})`;
}
