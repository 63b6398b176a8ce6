// What a real node needs from this machine, checked before anything is started: root,
// the Debian packages (containerd, runc or crun, the CNI plugins, iptables, busybox-static,
// openssl, util-linux's flock, mmdebstrap and openssh-client for the system images), the kernel features (overlayfs, bridge netfilter, cgroups)
// and an address of its own for the node. Every missing piece is named in one error, with
// the package that brings it; nothing is skipped.
import { existsSync, openSync, readSync, closeSync, readFileSync, readdirSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { delimiter, join } from 'node:path';

import { isExecutable } from '../binaries.js';
import { BUSYBOX_PATH } from './images.js';

export const CNI_PLUGINS = ['bridge', 'host-local', 'loopback', 'portmap'] as const;
/** Where Debian's containernetworking-plugins installs them, then the upstream default. */
export const CNI_PLUGIN_DIRS = ['/usr/lib/cni', '/opt/cni/bin'] as const;

export interface HostTools {
  readonly containerd: string;
  readonly ctr: string;
  /** runc, or crun when runc is not installed. */
  readonly ociRuntime: string;
  readonly cniPluginDir: string;
  readonly iptables: string;
  /** Makes the SSH key of the system images' root. */
  readonly sshKeygen: string;
  /** The node's InternalIP: the machine's first non-loopback IPv4 address. */
  readonly nodeIp: string;
  /** Kind of cgroup hierarchy: v1 (with or without a v2 mount beside it) or v2 only. */
  readonly cgroups: 'v1' | 'v2';
}

export class RealNodeUnavailableError extends Error {
  override readonly name = 'RealNodeUnavailableError';
  constructor(readonly missing: readonly string[]) {
    super(
      `this machine cannot run the real node; missing: ${missing.join('; ')}. ` +
        '.ci/run installs the packages; see scripts/control-plane/README.md ("The real node")',
    );
  }
}

export function checkHost(): HostTools {
  const missing: string[] = [];
  const need = (command: string, debianPackage: string): string => {
    const found = findCommand(command);
    if (found === undefined) missing.push(`${command} (apt-get install ${debianPackage})`);
    return found ?? command;
  };

  if (process.platform !== 'linux') missing.push(`Linux (this is ${process.platform})`);
  if (process.getuid?.() !== 0) missing.push('root (the kubelet, containerd and iptables need it)');

  const containerd = need('containerd', 'containerd');
  const ctr = need('ctr', 'containerd');
  need('containerd-shim-runc-v2', 'containerd');
  const ociRuntime = findCommand('runc') ?? findCommand('crun');
  if (ociRuntime === undefined) missing.push('runc or crun (apt-get install runc)');
  const iptables = need('iptables', 'iptables');
  need('iptables-save', 'iptables');
  need('iptables-restore', 'iptables');
  need('ip', 'iproute2');
  need('umount', 'mount');
  need('flock', 'util-linux');
  need('openssl', 'openssl');
  // The system images: their root filesystem from Debian's packages, root's SSH key; the tests log in with ssh.
  need('mmdebstrap', 'mmdebstrap');
  need('gzip', 'gzip');
  const sshKeygen = need('ssh-keygen', 'openssh-client');
  need('ssh', 'openssh-client');
  need('ssh-keyscan', 'openssh-client');

  const cniPluginDir = CNI_PLUGIN_DIRS.find((dir) => CNI_PLUGINS.every((plugin) => isExecutable(join(dir, plugin))));
  if (cniPluginDir === undefined) {
    missing.push(
      `the CNI plugins ${CNI_PLUGINS.join(', ')} in ${CNI_PLUGIN_DIRS.join(' or ')} (apt-get install containernetworking-plugins)`,
    );
  }

  if (!isExecutable(BUSYBOX_PATH)) missing.push(`${BUSYBOX_PATH} (apt-get install busybox-static)`);
  else if (hasInterpreter(BUSYBOX_PATH))
    missing.push(`a static ${BUSYBOX_PATH}: this one is dynamically linked (apt-get install busybox-static)`);

  if (
    !readText('/proc/filesystems')
      .split('\n')
      .some((line) => /\boverlay$/.test(line))
  ) {
    missing.push('overlayfs in the kernel (modprobe overlay)');
  }
  if (!existsSync('/proc/sys/net/bridge/bridge-nf-call-iptables')) missing.push('bridge netfilter in the kernel (modprobe br_netfilter)');
  if (!existsSync('/proc/sys/net/ipv4/ip_forward')) missing.push('IPv4 forwarding (/proc/sys/net/ipv4/ip_forward)');

  const cgroups = cgroupKind();
  if (cgroups === undefined) missing.push('cgroups mounted at /sys/fs/cgroup (v1 memory, cpu, pids controllers, or v2)');

  const nodeIp = machineAddress();
  if (nodeIp === undefined) missing.push('a non-loopback IPv4 address for the node (the API server refuses a loopback node IP)');

  if (missing.length > 0) throw new RealNodeUnavailableError(missing);
  return {
    containerd,
    ctr,
    ociRuntime: ociRuntime ?? '',
    cniPluginDir: cniPluginDir ?? '',
    iptables,
    sshKeygen,
    nodeIp: nodeIp ?? '',
    cgroups: cgroups ?? 'v1',
  };
}

function cgroupKind(): 'v1' | 'v2' | undefined {
  if (existsSync('/sys/fs/cgroup/cgroup.controllers')) return 'v2';
  const controllers = safeReaddir('/sys/fs/cgroup');
  return ['memory', 'cpu', 'pids'].every((name) => controllers.includes(name)) ? 'v1' : undefined;
}

/** The machine's first non-internal IPv4 address. */
export function machineAddress(): string | undefined {
  for (const addresses of Object.values(networkInterfaces())) {
    const found = addresses?.find((address) => address.family === 'IPv4' && !address.internal);
    if (found !== undefined) return found.address;
  }
  return undefined;
}

export function findCommand(command: string): string | undefined {
  const path = process.env.PATH ?? '';
  // Root's usual sbin dirs, in case PATH lacks them.
  const dirs = [...path.split(delimiter), '/usr/local/sbin', '/usr/sbin', '/sbin'].filter((dir) => dir !== '');
  return dirs.map((dir) => join(dir, command)).find(isExecutable);
}

/** An ELF program with a PT_INTERP header needs a dynamic loader: it cannot run in an empty image. */
function hasInterpreter(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const header = Buffer.alloc(64);
    readSync(fd, header, 0, 64, 0);
    if (header.toString('latin1', 0, 4) !== '\u007fELF' || header[4] !== 2) return true;
    const programHeaders = Number(header.readBigUInt64LE(32));
    const entrySize = header.readUInt16LE(54);
    const count = header.readUInt16LE(56);
    const table = Buffer.alloc(entrySize * count);
    readSync(fd, table, 0, table.length, programHeaders);
    for (let index = 0; index < count; index += 1) if (table.readUInt32LE(index * entrySize) === 3) return true;
    return false;
  } finally {
    closeSync(fd);
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function safeReaddir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}
