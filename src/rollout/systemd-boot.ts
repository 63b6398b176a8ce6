// classifySystemdBoot(): why systemd, as a system container's PID 1, gave up booting, from
// the last lines it wrote to its console (the container's log). Pure; the lines are read as
// every crash's are (workload/crash-logs.ts), terminal codes already stripped. systemd exits
// in the second it starts (exit 255) or, when older, freezes; either way the line before
// its last words names the cause, and each cause has one fix (docs/system-containers.md).

/** The reason a system container's boot failure is reported under. */
export const SYSTEM_BOOT_FAILED_REASON = 'SystemContainerBootFailed';

/** Why systemd could not boot. */
export type SystemBootFailureKind = 'CgroupsNotWritable' | 'RunNotMountable' | 'CgroupV1Refused' | 'Frozen';

export const SYSTEM_BOOT_FAILURE_KINDS: readonly SystemBootFailureKind[] = [
  'CgroupsNotWritable',
  'RunNotMountable',
  'CgroupV1Refused',
  'Frozen',
];

export interface SystemBootFailure {
  readonly kind: SystemBootFailureKind;
  /** systemd's own line that names the cause. */
  readonly line: string;
  /** What it means and what fixes it, ending with systemd's line. */
  readonly message: string;
}

const CGROUP_CREATE = /^Failed to create .*control group: /;
const MANAGER_OBJECT = /Failed to allocate manager object/;
const MOUNT_FAILED = /^Failed to mount \S+ at (\S+): /;
const API_FILESYSTEMS = /Failed to mount API filesystems/;
const CGROUP_V1 = /cgroup v1|legacy (cgroup )?hierarchy|cgroupsv1/i;
const REFUSED = /refus|not supported|unsupported|no longer/i;
const FROZEN = /Freezing execution/;

const FIX_CGROUPS =
  "the node's container runtime does not give the container a cgroup it can write, which systemd needs to boot: run it with a RuntimeClass whose handler has writable cgroups (containerd 2.1 or later with cgroup_writable = true), or on CRI-O or sysbox";

function describe(kind: SystemBootFailureKind, line: string, path?: string): SystemBootFailure {
  const said = `; systemd said: ${line}`;
  switch (kind) {
    case 'CgroupsNotWritable':
      return { kind, line, message: `${FIX_CGROUPS}${said}` };
    case 'RunNotMountable':
      return {
        kind,
        line,
        message: `systemd cannot mount a tmpfs at ${path ?? '/run'} itself and the Pod has none there: run it as a system container (systemContainer: true, --system-container), whose Pod has memory-backed /run, /run/lock and /tmp${said}`,
      };
    case 'CgroupV1Refused':
      return { kind, line, message: `the node runs cgroup v1, which this image's systemd refuses: run it on a node with cgroup v2${said}` };
    case 'Frozen':
      return { kind, line, message: `systemd hit a fatal error and froze instead of exiting${said}` };
  }
}

/**
 * The cause of a failed boot, or undefined when the lines are not systemd giving up (an
 * ordinary crash, or too little of the log). A named cause wins over the freeze that
 * followed it.
 */
export function classifySystemdBoot(lines: readonly string[]): SystemBootFailure | undefined {
  const text = lines.map((line) => line.trim()).filter((line) => line.length > 0);
  const mount = text.find((line) => MOUNT_FAILED.test(line));
  if (mount !== undefined) {
    const path = MOUNT_FAILED.exec(mount)?.[1] ?? '';
    return path.startsWith('/sys/fs/cgroup') ? describe('CgroupsNotWritable', mount) : describe('RunNotMountable', mount, path);
  }
  const v1 = text.find((line) => CGROUP_V1.test(line) && REFUSED.test(line));
  if (v1 !== undefined) return describe('CgroupV1Refused', v1);
  const cgroup = text.find((line) => CGROUP_CREATE.test(line)) ?? text.find((line) => MANAGER_OBJECT.test(line));
  if (cgroup !== undefined) return describe('CgroupsNotWritable', cgroup);
  const api = text.find((line) => API_FILESYSTEMS.test(line));
  if (api !== undefined) return describe('RunNotMountable', api);
  const frozen = text.findIndex((line) => FROZEN.test(line));
  if (frozen >= 0) return describe('Frozen', text[frozen - 1] ?? text[frozen]!);
  return undefined;
}
