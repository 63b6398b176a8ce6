// What the pod template of a system container gains (docs/system-containers.md): a console
// for systemd, the memory-backed directories it cannot mount itself, a stop in systemd's
// terms, and readiness meaning a user can log in. Never privileges: no privileged mode, no
// added capability, no host path. The cgroups systemd must write come from the node's
// runtime, chosen by the spec's RuntimeClass.

import type { V1Container, V1PodSpec, V1Probe, V1Volume, V1VolumeMount } from '../../kube/objects.js';
import type { WorkloadSpec } from '../../input/workload-spec.js';
import {
  SYSTEM_LOGIN_PORT,
  SYSTEM_TERMINATION_GRACE_SECONDS,
  SYSTEM_TMPFS_PATHS,
  SYSTEMD_STOP_SIGNAL,
} from '../../input/system-container.js';

/** systemd writes colours and cursor codes to a terminal; logs and events want its words only. */
export const SYSTEMD_COLORS_VARIABLE = 'SYSTEMD_COLORS';

/**
 * Seconds a system container may take to listen on its login port before the kubelet
 * restarts it. systemd reaches sshd in about a second; the margin is for a slow node or a
 * first boot that generates host keys.
 */
export const DEFAULT_SYSTEM_STARTUP_SECONDS = 60;

export interface SystemPodOptions {
  /** The cluster keeps a container's `lifecycle.stopSignal` (the ContainerStopSignals feature). */
  readonly stopSignals?: boolean;
  /** The startup probe's bound in whole seconds; default DEFAULT_SYSTEM_STARTUP_SECONDS. */
  readonly startupSeconds?: number;
}

/** The Pod's volume name of each memory-backed directory (`/run/lock` is `system-run-lock`). */
export function systemVolumeName(path: string): string {
  return `system${path.replaceAll('/', '-')}`;
}

/** Whether a pod template is a system container's (withSystemContainer made it): its memory-backed `/run`. */
export function isSystemPodTemplate(pod: V1PodSpec | undefined): boolean {
  const run = systemVolumeName('/run');
  return (pod?.volumes ?? []).some((volume) => volume.name === run && volume.emptyDir?.medium === 'Memory');
}

function systemVolumes(): V1Volume[] {
  return SYSTEM_TMPFS_PATHS.map((path) => ({ name: systemVolumeName(path), emptyDir: { medium: 'Memory' } }));
}

function systemMounts(): V1VolumeMount[] {
  return SYSTEM_TMPFS_PATHS.map((path) => ({ name: systemVolumeName(path), mountPath: path }));
}

/** Whether the spec's ports include the login port over TCP. */
export function servesLogin(spec: Pick<WorkloadSpec, 'ports'>): boolean {
  return (spec.ports ?? []).some((port) => port.port === SYSTEM_LOGIN_PORT && port.protocol === 'tcp');
}

/**
 * The startup probe: ready when sshd accepts a connection. Only a startup probe: the ports a
 * user's application serves later never hold readiness back.
 */
export function loginProbe(startupSeconds = DEFAULT_SYSTEM_STARTUP_SECONDS): V1Probe {
  return { tcpSocket: { port: SYSTEM_LOGIN_PORT }, periodSeconds: 1, failureThreshold: startupSeconds };
}

/** The pod template of a system container, from the one built for any container. */
export function withSystemContainer(pod: V1PodSpec, spec: WorkloadSpec, options: SystemPodOptions = {}): V1PodSpec {
  const containers = pod.containers.map((container): V1Container => {
    if (container.name !== spec.hostname) return container;
    const env = container.env ?? [];
    const colours = env.some((variable) => variable.name === SYSTEMD_COLORS_VARIABLE)
      ? env
      : [...env, { name: SYSTEMD_COLORS_VARIABLE, value: '0' }].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return {
      ...container,
      env: colours,
      // systemd writes to /dev/console: with a terminal there, the kubelet keeps what it
      // writes as the container's log. Nothing reads a console input, so no stdin.
      tty: true,
      volumeMounts: [...systemMounts(), ...(container.volumeMounts ?? [])],
      ...(servesLogin(spec) ? { startupProbe: loginProbe(options.startupSeconds) } : {}),
      ...(options.stopSignals ? { lifecycle: { stopSignal: SYSTEMD_STOP_SIGNAL } } : {}),
    };
  });
  return {
    ...pod,
    // The API server takes a stop signal only from a Pod that names its OS.
    ...(options.stopSignals ? { os: { name: 'linux' } } : {}),
    terminationGracePeriodSeconds: SYSTEM_TERMINATION_GRACE_SECONDS,
    containers,
    volumes: [...systemVolumes(), ...(pod.volumes ?? [])],
  };
}
