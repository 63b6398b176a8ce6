// describeProgress(): one line in plain words for a UI or a job log, from the rollout
// status and, when a Pod of the rollout has something to say, the kubelet's or
// scheduler's own reason and message, and a crashed container's last log line.
import { lastLogLine } from './crash-lines.js';
import type { PodDiagnosis, RolloutStatus } from './events.js';

export interface ProgressContext {
  /** The rollout's pods exist and all are running and ready (the Deployment may lag). */
  readonly podsReady?: boolean;
}

export function describeProgress(status: RolloutStatus, pod: PodDiagnosis | undefined, context: ProgressContext = {}): string {
  const { ready, desired } = status.replicas;
  if (status.state === 'Complete') return `${ready}/${desired} ready: rollout complete`;
  if (!pod) {
    return context.podsReady && status.reason.startsWith('WaitingFor')
      ? 'container ready, waiting for the Deployment to count it available'
      : status.message;
  }
  return `${describePod(status, pod)}${lastLogLine(pod)}`;
}

function describePod(status: RolloutStatus, pod: PodDiagnosis): string {
  const { ready, desired } = status.replicas;
  const detail = pod.message && pod.message !== pod.reason ? `: ${pod.message}` : '';
  switch (pod.reason) {
    case 'Pending':
      return 'waiting to be scheduled';
    case 'Unschedulable':
      return `cannot be scheduled yet (Unschedulable)${detail}`;
    case 'ContainerCreating':
      return 'pulling the image and starting the container';
    case 'PodInitializing':
      return `running init containers${detail}`;
    case 'ContainerNotReady':
      return `container started, ${ready}/${desired} ready${pod.awaiting ? `, waiting for ${pod.awaiting}` : ''}`;
    case 'Terminating':
      return 'waiting for an old pod to terminate';
    case 'ErrImagePull':
    case 'ImagePullBackOff':
      return `cannot pull the image yet (${pod.reason})${detail}`;
    case 'CrashLoopBackOff':
      return `the container keeps crashing (${pod.reason}, ${pod.restartCount ?? 0} restarts)${detail}`;
    default:
      return `${pod.severity === 'failed' ? 'problem' : 'waiting'}: ${pod.reason}${detail}`;
  }
}
