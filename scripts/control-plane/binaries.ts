// Finds the control-plane binaries by running build.sh, which builds only what is missing
// from its version-keyed cache and prints the bin directory on its last line.
import { spawn } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CONTROL_PLANE_DIR = dirname(fileURLToPath(import.meta.url));
export const BUILD_SCRIPT = join(CONTROL_PLANE_DIR, 'build.sh');

export const REQUIRED_BINARIES = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok'] as const;

export interface PinnedVersions {
  readonly kubernetes: string;
  readonly etcd: string;
  readonly kwok: string;
}

/** The versions pinned in versions.env (the one place they are set). */
export function pinnedVersions(): PinnedVersions {
  const values = new Map<string, string>();
  for (const line of readFileSync(join(CONTROL_PLANE_DIR, 'versions.env'), 'utf8').split('\n')) {
    const match = /^\s*([A-Z_]+)=(\S+)\s*$/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) values.set(match[1], match[2]);
  }
  const read = (key: string): string => {
    const value = values.get(key);
    if (value === undefined) throw new Error(`versions.env does not set ${key}`);
    return value;
  };
  return { kubernetes: read('KUBERNETES_VERSION'), etcd: read('ETCD_VERSION'), kwok: read('KWOK_VERSION') };
}

/**
 * Runs build.sh (a no-op in milliseconds when everything is cached) and returns the bin
 * directory. Its progress lines ("[build] kwok v0.8.0 built in 80s") go to `log`.
 */
export function ensureBinaries(log: (line: string) => void): Promise<string> {
  return runBuild('control-plane', log);
}

/** The real node's programs: kubelet, kube-proxy, our registry and pause. */
export const REAL_NODE_BINARIES = ['kubelet', 'kube-proxy', 'registry', 'pause'] as const;

/** Runs build.sh for `target` and returns the directory it printed, once every binary of the target is there. */
export async function runBuild(target: 'control-plane' | 'real-node', log: (line: string) => void): Promise<string> {
  const dir = await new Promise<string>((resolve, reject) => {
    const child = spawn('bash', [BUILD_SCRIPT, target], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    const stderrTail: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => {
      for (const line of chunk
        .toString('utf8')
        .split('\n')
        .filter((text) => text.length > 0)) {
        if (line.startsWith('[build]')) log(line);
        stderrTail.push(line);
        if (stderrTail.length > 40) stderrTail.shift();
      }
    });
    child.once('error', reject);
    child.once('close', (code) => {
      const binDir = stdout.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || binDir === '') {
        reject(new Error(`${BUILD_SCRIPT} ${target} failed (exit ${String(code)}):\n${stderrTail.join('\n')}`));
        return;
      }
      resolve(binDir);
    });
  });
  return target === 'control-plane' ? checkBinDir(dir) : checkBinDir(dir, REAL_NODE_BINARIES, 'real-node');
}

/** Throws unless every required binary is an executable file in `binDir`. */
export function checkBinDir(
  binDir: string,
  required: readonly string[] = REQUIRED_BINARIES,
  target: 'control-plane' | 'real-node' = 'control-plane',
): string {
  const missing = required.filter((name) => !isExecutable(join(binDir, name)));
  if (missing.length > 0) throw new Error(`missing ${target} binaries in ${binDir}: ${missing.join(', ')} (run ${BUILD_SCRIPT} ${target})`);
  return binDir;
}

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
