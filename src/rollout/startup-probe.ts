// startupProbeGaveUp(): whether the kubelet stopped a container because its startup probe
// kept failing, from the Pod alone. The kubelet says so only in an Event; its status shows a
// container that never started and whose last run lasted the probe's whole bound. A
// container that exits by itself is named by its exit (and its lines), not here. Pure.
import type { V1ContainerStatus, V1Probe, V1Time } from '../kube/objects.js';

/** The reason a container the kubelet stopped for a failing startup probe is reported under. */
export const STARTUP_PROBE_FAILED_REASON = 'StartupProbeFailed';

// The kubelet's defaults for a probe's fields.
const DEFAULT_PERIOD_SECONDS = 10;
const DEFAULT_FAILURE_THRESHOLD = 3;

/** Seconds from a container's start until the kubelet gives up on its startup probe. */
export function startupProbeBoundSeconds(probe: V1Probe): number {
  const period = probe.periodSeconds ?? DEFAULT_PERIOD_SECONDS;
  return (probe.initialDelaySeconds ?? 0) + (probe.failureThreshold ?? DEFAULT_FAILURE_THRESHOLD) * period;
}

function timeMs(time: V1Time | undefined): number | undefined {
  if (time === undefined) return undefined;
  const ms = new Date(time).getTime();
  return Number.isFinite(ms) ? ms : undefined;
}

/** What the probe checks, in words. */
export function probeWords(probe: V1Probe): string {
  return probe.tcpSocket ? `a TCP connection to port ${String(probe.tcpSocket.port)}` : 'its check';
}

/** What a running container still waits on when its startup probe has not passed yet; undefined otherwise. */
export function startupProbeAwaited(probe: V1Probe | undefined, status: V1ContainerStatus): string | undefined {
  if (probe === undefined || status.started === true || !status.state?.running) return undefined;
  return `its startup probe (${probeWords(probe)}; the kubelet gives up after ${startupProbeBoundSeconds(probe)} s)`;
}

/**
 * Why the kubelet stopped the container, in words, when its last run ended by its startup
 * probe: it has a startup probe, never started, was restarted, and the run lasted at least
 * the probe's last failure (the kubelet probes once a period; the first failure counts).
 */
export function startupProbeGaveUp(probe: V1Probe | undefined, status: V1ContainerStatus): string | undefined {
  if (probe === undefined || status.started === true || (status.restartCount ?? 0) < 1) return undefined;
  const last = status.lastState?.terminated;
  const started = timeMs(last?.startedAt);
  const finished = timeMs(last?.finishedAt);
  if (started === undefined || finished === undefined) return undefined;
  const bound = startupProbeBoundSeconds(probe);
  const lastFailure = bound - (probe.periodSeconds ?? DEFAULT_PERIOD_SECONDS);
  // Times are whole seconds: a run is at least its rounded-down length.
  if (finished - started < (lastFailure - 1) * 1000) return undefined;
  return `the container did not pass its startup probe (${probeWords(probe)}) within ${bound} s, so the kubelet stopped and restarted it`;
}
