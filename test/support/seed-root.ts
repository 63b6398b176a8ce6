// A throw-away root filesystem on this machine, shaped like a container image, to run the
// seeding command in with chroot: no container runtime, the real shell and cp. Two kinds:
// `gnu` carries Debian's dash and GNU coreutils (with the shared libraries they load),
// `busybox` carries busybox-static alone, as the test images are built from it.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  type Stats,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createHash } from 'node:crypto';

export type RootKind = 'gnu' | 'busybox';

const GNU_TOOLS: Readonly<Record<string, string>> = { sh: '/bin/dash', cp: '/bin/cp', mkdir: '/bin/mkdir', mv: '/bin/mv', rm: '/bin/rm' };
const BUSYBOX = '/bin/busybox';
const CHROOT = '/usr/sbin/chroot';

/** Why this machine cannot run the seeding tests, or undefined when it can. */
export function seedRootProblem(kind: RootKind): string | undefined {
  if (process.getuid?.() !== 0) return 'the seeding tests chroot into a temporary root, which needs root';
  if (kind === 'busybox' && !existsSync(BUSYBOX)) return `${BUSYBOX} is missing: apt-get install -y busybox-static`;
  if (kind === 'gnu') for (const tool of Object.values(GNU_TOOLS)) if (!existsSync(tool)) return `${tool} is missing`;
  return undefined;
}

/** The shared libraries a dynamically linked program loads, as ldd lists them. */
function sharedLibraries(program: string): string[] {
  const output = execFileSync('ldd', [program], { encoding: 'utf8' });
  return [...output.matchAll(/(\/\S+\.so[.\d]*)/g)].map((match) => match[1] ?? '').filter(Boolean);
}

function copyInto(root: string, hostPath: string, rootPath = hostPath): void {
  const destination = join(root, rootPath);
  mkdirSync(dirname(destination), { recursive: true });
  copyFileSync(hostPath, destination);
  execFileSync('chmod', ['0755', destination]);
}

/** A new root with the kind's tools in /bin, /dev/null, /dev/termination-log and the volume's mount point. */
export function makeSeedRoot(kind: RootKind, tools: readonly string[] = ['sh', 'cp', 'mkdir', 'mv', 'rm']): string {
  const root = mkdtempSync(join(tmpdir(), `kp-seed-${kind}-`));
  mkdirSync(join(root, 'bin'));
  if (kind === 'busybox') {
    copyInto(root, BUSYBOX);
    for (const tool of tools) symlinkSync('busybox', join(root, 'bin', tool));
  } else {
    const libraries = new Set<string>();
    for (const tool of tools) {
      const host = GNU_TOOLS[tool];
      if (!host) throw new Error(`no GNU tool ${tool}`);
      copyInto(root, host, `/bin/${tool}`);
      for (const library of sharedLibraries(host)) libraries.add(library);
    }
    for (const library of libraries) copyInto(root, library);
  }
  mkdirSync(join(root, 'dev'));
  execFileSync('mknod', ['-m', '0666', join(root, 'dev/null'), 'c', '1', '3']);
  execFileSync('touch', [join(root, 'dev/termination-log')]);
  mkdirSync(join(root, 'kube-provisioner-volume'));
  return root;
}

export function removeSeedRoot(root: string): void {
  rmSync(root, { recursive: true, force: true });
}

export interface SeedRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** What the command left in /dev/termination-log, which the kubelet reports as the container's message. */
  readonly terminationMessage: string;
}

/** Runs `command` (an init container's command line) inside the root, as the container runtime would start it. */
export function runInRoot(root: string, command: readonly string[]): SeedRun {
  execFileSync('truncate', ['-s', '0', join(root, 'dev/termination-log')]);
  const result = spawnSync(CHROOT, [root, ...command], { encoding: 'utf8', timeout: 60_000, env: { PATH: '/bin' } });
  if (result.error) throw result.error;
  return {
    status: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    terminationMessage: readFileSync(join(root, 'dev/termination-log'), 'utf8'),
  };
}

export interface Entry {
  readonly type: 'file' | 'dir' | 'symlink' | 'fifo' | 'char' | 'block' | 'socket';
  readonly mode: string;
  readonly uid: number;
  readonly gid: number;
  readonly mtimeMs?: number;
  readonly size?: number;
  readonly sha256?: string;
  readonly target?: string;
  readonly rdev?: number;
  /** Files with more than one link: the names (relative) sharing this inode, sorted. */
  readonly linkedWith?: string;
}

function typeOf(stats: Stats): Entry['type'] {
  if (stats.isSymbolicLink()) return 'symlink';
  if (stats.isDirectory()) return 'dir';
  if (stats.isFIFO()) return 'fifo';
  if (stats.isCharacterDevice()) return 'char';
  if (stats.isBlockDevice()) return 'block';
  if (stats.isSocket()) return 'socket';
  return 'file';
}

export interface SnapshotOptions {
  /** Keep the times of symbolic links themselves. */
  readonly withSymlinkTimes?: boolean;
  /** Round times down to this many milliseconds (1000: whole seconds). */
  readonly timePrecisionMs?: number;
}

/**
 * Everything lstat says about a tree that a copy should keep, by path relative to `top`
 * ('' is `top` itself). Symbolic links' own times are left out (`withSymlinkTimes` keeps them).
 */
export function snapshotTree(top: string, options: SnapshotOptions = {}): Map<string, Entry> {
  const precision = options.timePrecisionMs ?? 1;
  const entries = new Map<string, Entry>();
  const inodes = new Map<number, string[]>();
  const walk = (relative: string): void => {
    const path = relative === '' ? top : join(top, relative);
    const stats = lstatSync(path);
    const type = typeOf(stats);
    const entry: Entry = {
      type,
      mode: (stats.mode & 0o7777).toString(8).padStart(4, '0'),
      uid: stats.uid,
      gid: stats.gid,
      ...(type !== 'symlink' || options.withSymlinkTimes ? { mtimeMs: Math.floor(stats.mtimeMs / precision) * precision } : {}),
      ...(type === 'file' ? { size: stats.size, sha256: createHash('sha256').update(readFileSync(path)).digest('hex') } : {}),
      ...(type === 'symlink' ? { target: readlinkSync(path) } : {}),
      ...(type === 'char' || type === 'block' ? { rdev: stats.rdev } : {}),
    };
    entries.set(relative, entry);
    if (type === 'file' && stats.nlink > 1) inodes.set(stats.ino, [...(inodes.get(stats.ino) ?? []), relative]);
    if (type === 'dir') for (const name of readdirSync(path).sort()) walk(relative === '' ? name : join(relative, name));
  };
  walk('');
  for (const names of inodes.values()) {
    const linkedWith = [...names].sort().join(' | ');
    for (const name of names) entries.set(name, { ...(entries.get(name) as Entry), linkedWith });
  }
  return entries;
}

/** inode, ctime and mtime of every entry: a run that copies, moves, chmods or touches anything changes one. */
export function identityOfTree(top: string): Map<string, string> {
  const identity = new Map<string, string>();
  const walk = (relative: string): void => {
    const path = relative === '' ? top : join(top, relative);
    const stats = lstatSync(path, { bigint: true });
    identity.set(relative, `${stats.ino} ${stats.ctimeNs} ${stats.mtimeNs}`);
    if (stats.isDirectory()) for (const name of readdirSync(path).sort()) walk(relative === '' ? name : join(relative, name));
  };
  walk('');
  return identity;
}

/** The file capabilities of a file (the security.capability attribute), as getcap prints them; '' when none. */
export function fileCapabilities(path: string): string {
  return execFileSync('getcap', [path], { encoding: 'utf8' }).trim().split(/\s+/).slice(1).join(' ');
}
