// What makes a container a system container (an init system as PID 1, as Manager's
// templates are) and the fixed parts of its Pod. One place for the rule, used by the
// manifest, the diagnosis, the check and Manager's provider.

/** The spec fields that say whether a container is a system container (structural, so workload-spec.ts can use it). */
export interface SystemContainerFields {
  readonly systemContainer?: boolean | undefined;
  readonly entrypoint?: readonly string[] | undefined;
}

import { splitShellWords } from './shell-words.js';

/** The commands that make a container a system container when the spec does not say. */
export const SYSTEM_INIT_COMMANDS: readonly string[] = Object.freeze(['/sbin/init', '/lib/systemd/systemd', '/usr/lib/systemd/systemd']);

/**
 * The signal that makes systemd halt (the base image's STOPSIGNAL). SIGTERM only makes it
 * re-execute itself, so the kubelet waits out the whole grace period and kills it.
 */
export const SYSTEMD_STOP_SIGNAL = 'SIGRTMIN+3';

/**
 * The memory-backed directories systemd expects to find mounted: it cannot mount them
 * itself without CAP_SYS_ADMIN. `/tmp` too: Debian 13 mounts it as a tmpfs (tmp.mount),
 * which fails unprivileged and leaves the system degraded; systemd takes an existing mount
 * as its own. Debian 12 keeps `/tmp` on the root filesystem, whose files a new Pod loses
 * all the same, so a tmpfs changes nothing it could rely on.
 */
export const SYSTEM_TMPFS_PATHS: readonly string[] = Object.freeze(['/run', '/run/lock', '/tmp']);

/**
 * Seconds the kubelet lets a system container halt. systemd stops each unit within its
 * own stop timeout (90 s by default) and halts as soon as they are all stopped, so a
 * healthy container stops in about a second; the margin covers one unit that hangs until
 * that timeout, then the final kill and unmounts.
 */
export const SYSTEM_TERMINATION_GRACE_SECONDS = 100;

/** The port whose listener means a user can log in (sshd). */
export const SYSTEM_LOGIN_PORT = 22;

/** The first word of the container's command, when the spec overrides the image's. */
export function commandOf(spec: Pick<SystemContainerFields, 'entrypoint'>): string | undefined {
  return spec.entrypoint?.[0];
}

/**
 * Whether the container runs an init system as PID 1: the spec's `systemContainer` when
 * given, else whether its command is one of SYSTEM_INIT_COMMANDS. An image whose own
 * Entrypoint is `/sbin/init` is not seen without the spec saying so (the image is not read).
 */
export function isSystemContainer(spec: SystemContainerFields): boolean {
  if (spec.systemContainer !== undefined) return spec.systemContainer;
  const command = commandOf(spec);
  return command !== undefined && SYSTEM_INIT_COMMANDS.includes(command);
}

/**
 * Whether a command line (one string split like shell words, as Manager stores the image's
 * entrypoint and command, or an argv list) starts an init system. A line that cannot be
 * split is not one: the spec's validation names its problem.
 */
export function isSystemCommand(entrypoint: string | readonly string[]): boolean {
  let words: readonly string[];
  try {
    words = typeof entrypoint === 'string' ? splitShellWords(entrypoint) : entrypoint;
  } catch {
    return false;
  }
  return isSystemContainer({ entrypoint: words });
}
