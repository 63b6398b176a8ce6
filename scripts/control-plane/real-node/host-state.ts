// What a real node changes on the machine, recorded before it starts and undone after it
// stops (or, if its owner died, by the reaper, and again by whoever starts the next one):
// processes left in its cgroups or naming its work dir (containerd's shims), mounts under
// its work dir (the kubelet's self bind-mount, container root filesystems, network
// namespaces), its cgroup subtree in every hierarchy, the KUBE-/CNI- iptables chains, the
// pod bridge, the sysctls the kubelet, kube-proxy and the CNI plugins set, and the files
// they leave in host directories.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, readlinkSync, renameSync, rmSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { sleep } from '../http.js';
import { isAlive, procStat } from '../processes.js';
import type { PodNetwork } from './configs.js';
import { removeNodeChains } from './iptables.js';

/** The lock every real node holds while it runs: the machine has room for one. */
export function realNodeLockFile(): string {
  return process.env.KUBE_PROVISIONER_REAL_NODE_LOCK ?? '/run/lock/kube-provisioner-real-node.lock';
}

/** Where the running node's record lives, so the next start can clean up after a dead one. */
export function hostRecordFile(lockFile = realNodeLockFile()): string {
  return `${lockFile}.state.json`;
}

/** Sysctls the node's parts write: kube-proxy and the bridge plugin (forwarding), the kubelet (its kernel defaults). */
export const TOUCHED_SYSCTLS = [
  'net/ipv4/ip_forward',
  'net/ipv4/conf/all/route_localnet',
  'net/bridge/bridge-nf-call-iptables',
  'net/bridge/bridge-nf-call-ip6tables',
  'vm/overcommit_memory',
  'vm/panic_on_oom',
  'kernel/panic',
  'kernel/panic_on_oops',
  'kernel/keys/root_maxkeys',
  'kernel/keys/root_maxbytes',
] as const;

/** Host directories the kubelet, containerd's shims and the CNI library create when missing. */
export const HOST_DIRS = ['/var/log/containers', '/var/lib/cni/results', '/var/lib/cni', '/run/containerd/s', '/run/containerd'] as const;

export interface HostRecord {
  readonly workDir: string;
  /** The kubelet's cgroup root, one directory below each hierarchy's root. */
  readonly cgroupName: string;
  readonly network: PodNetwork;
  readonly sysctls: Readonly<Record<string, string>>;
  /** Which of HOST_DIRS did not exist before the node started. */
  readonly createdDirs: readonly string[];
  readonly ownerPid: number;
  readonly startedAt: string;
}

export function snapshotHost(workDir: string, cgroupName: string, network: PodNetwork): HostRecord {
  const sysctls: Record<string, string> = {};
  for (const key of TOUCHED_SYSCTLS) {
    const value = readSysctl(key);
    if (value !== undefined) sysctls[key] = value;
  }
  return {
    workDir,
    cgroupName,
    network,
    sysctls,
    createdDirs: HOST_DIRS.filter((dir) => !existsSync(dir)),
    ownerPid: process.pid,
    startedAt: new Date().toISOString(),
  };
}

export function writeHostRecord(record: HostRecord, file = hostRecordFile()): void {
  writeFileSync(`${file}.next`, `${JSON.stringify(record, null, 2)}\n`);
  renameSync(`${file}.next`, file);
}

export function readHostRecord(file = hostRecordFile()): HostRecord | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as HostRecord;
  } catch {
    return undefined;
  }
}

export interface CleanOptions {
  readonly log: (line: string) => void;
  /** A process group to spare (the reaper holding the lock). */
  readonly spareProcessGroup?: number;
  readonly recordFile?: string;
}

/** Undoes what `record` describes, as far as it can; returns what is left (empty: all clean). */
export async function cleanHost(record: HostRecord, options: CleanOptions): Promise<string[]> {
  const problems: string[] = [];
  const step = async (what: string, action: () => unknown): Promise<void> => {
    try {
      const left = await action();
      if (Array.isArray(left)) problems.push(...left.map((item) => `${what}: ${String(item)}`));
    } catch (error) {
      problems.push(`${what}: ${(error as Error).message}`);
    }
  };
  await step('processes', () => killLeftovers(record, options.spareProcessGroup));
  await step('mounts', () => unmountUnder(record.workDir));
  await step('cgroups', () => removeCgroups(record.cgroupName));
  await step('iptables', () => removeNodeChains());
  await step('bridge', () => deleteLink(record.network.bridge));
  await step('sysctls', () => restoreSysctls(record.sysctls));
  await step('host files', () => removeHostFiles(record));
  await step('work dir', () => removeWorkDir(record.workDir));
  if (problems.length === 0) rmSync(options.recordFile ?? hostRecordFile(), { force: true });
  else options.log(`real node cleanup left: ${problems.join('; ')}`);
  return problems;
}

// ---- processes -----------------------------------------------------------------------

async function killLeftovers(record: HostRecord, spareGroup: number | undefined): Promise<string[]> {
  const ownGroup = processGroupOf(process.pid);
  const pids = new Set<number>();
  for (const pid of listPids()) {
    if (pid === process.pid) continue;
    const group = processGroupOf(pid);
    if (group === undefined || group === ownGroup || group === spareGroup) continue;
    if (readCmdline(pid).includes(record.workDir)) pids.add(pid);
  }
  for (const pid of cgroupPids(record.cgroupName)) pids.add(pid);
  for (const pid of pids) signal(pid, 'SIGKILL');
  for (let waited = 0; waited < 5_000 && [...pids].some(isAlive); waited += 100) await sleep(100);
  return [...pids].filter(isAlive).map((pid) => `pid ${pid} survived SIGKILL`);
}

function listPids(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number);
}

function readCmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\u0000', ' ');
  } catch {
    return '';
  }
}

function processGroupOf(pid: number): number | undefined {
  return procStat(pid)?.processGroup;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Gone already.
  }
}

// ---- cgroups ---------------------------------------------------------------------------

/** Every hierarchy's copy of our cgroup root: /sys/fs/cgroup/<controller>/<name>, or /sys/fs/cgroup/<name> on v2. */
function cgroupRoots(name: string): string[] {
  const base = '/sys/fs/cgroup';
  const candidates = existsSync(join(base, 'cgroup.controllers'))
    ? [join(base, name)]
    : safeReaddir(base).map((hierarchy) => join(base, hierarchy, name));
  return candidates.filter((dir) => existsSync(dir));
}

function cgroupPids(name: string): number[] {
  const pids: number[] = [];
  const visit = (dir: string): void => {
    for (const line of safeRead(join(dir, 'cgroup.procs')).split('\n')) if (/^\d+$/.test(line)) pids.push(Number(line));
    for (const child of subdirs(dir)) visit(join(dir, child));
  };
  for (const root of cgroupRoots(name)) visit(root);
  return [...new Set(pids)];
}

function removeCgroups(name: string): string[] {
  const left: string[] = [];
  const remove = (dir: string): void => {
    for (const child of subdirs(dir)) remove(join(dir, child));
    try {
      rmdirSync(dir);
    } catch (error) {
      left.push(`${dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  };
  for (const root of cgroupRoots(name)) remove(root);
  return left;
}

function subdirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

// ---- mounts ----------------------------------------------------------------------------

/** Mount points at or under `dir`, deepest (latest) first. */
export function mountsUnder(dir: string): string[] {
  const points = safeRead('/proc/self/mountinfo')
    .split('\n')
    .map((line) => line.split(' ')[4])
    .filter((point): point is string => point !== undefined)
    .map((point) => point.replace(/\\([0-7]{3})/g, (_, code: string) => String.fromCharCode(Number.parseInt(code, 8))))
    .filter((point) => point === dir || point.startsWith(`${dir}/`));
  return [...new Set(points)].reverse();
}

function unmountUnder(dir: string): string[] {
  for (let pass = 0; pass < 3; pass += 1) {
    const points = mountsUnder(dir);
    if (points.length === 0) return [];
    for (const point of points) {
      try {
        // Lazy: a mount something still holds goes away once it lets go.
        execFileSync('umount', ['-l', point], { stdio: 'ignore' });
      } catch {
        // Gone with a parent already, or busy: the next pass tells.
      }
    }
  }
  return mountsUnder(dir).map((point) => `${point} is still mounted`);
}

// ---- network, sysctls, files -------------------------------------------------------------

function deleteLink(name: string): void {
  if (!existsSync(`/sys/class/net/${name}`)) return;
  execFileSync('ip', ['link', 'delete', name], { stdio: ['ignore', 'ignore', 'pipe'] });
}

export function readSysctl(key: string): string | undefined {
  try {
    return readFileSync(`/proc/sys/${key}`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

function restoreSysctls(values: Readonly<Record<string, string>>): string[] {
  const left: string[] = [];
  for (const [key, value] of Object.entries(values)) {
    if (readSysctl(key) === value) continue;
    try {
      writeFileSync(`/proc/sys/${key}`, value);
    } catch (error) {
      left.push(`${key}=${value}: ${(error as Error).message}`);
    }
  }
  return left;
}

function removeHostFiles(record: HostRecord): void {
  // The kubelet's links to its container logs (they point into our work dir).
  for (const entry of safeReaddir('/var/log/containers')) {
    const path = join('/var/log/containers', entry);
    try {
      if (readlinkSync(path).startsWith(record.workDir)) unlinkSync(path);
    } catch {
      // Not a link.
    }
  }
  // The CNI library's cached results, named <network>-<container id>-<interface>.
  for (const entry of safeReaddir('/var/lib/cni/results')) {
    if (entry.startsWith(`${record.network.name}-`)) rmSync(join('/var/lib/cni/results', entry), { force: true });
  }
  // The directories we caused, if nothing else has put anything there since.
  for (const dir of record.createdDirs) {
    try {
      rmdirSync(dir);
    } catch {
      // Not empty, or gone.
    }
  }
}

function removeWorkDir(dir: string): void {
  if (!existsSync(dir)) return;
  const mounted = mountsUnder(dir);
  // Removing through a mount would delete what it shows (a volume's files, say).
  if (mounted.length > 0) throw new Error(`not removed: ${mounted.length} mounts are left under it`);
  rmSync(dir, { recursive: true, force: true });
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
