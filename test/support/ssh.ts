// SSH from this machine to a system container on the real node (test/realnode), as a user
// of Manager's containers would log in: OpenSSH's client with the real node's key for root.
import { execFileSync } from 'node:child_process';

import { realNodeEnv } from './real-node.js';

const CONNECT_TIMEOUT_SECONDS = 5;

/** Runs `command` as root at `address` over SSH with the real node's key; its stdout. Throws with ssh's stderr on failure. */
export function sshRun(address: string, command: string, timeoutMs = 30_000): string {
  const args = [
    '-i',
    realNodeEnv().sshKeyFile,
    '-o',
    'BatchMode=yes',
    '-o',
    'IdentitiesOnly=yes',
    // Each container makes its own host key: the test compares them itself (hostKeyFingerprint).
    '-o',
    'StrictHostKeyChecking=no',
    '-o',
    'UserKnownHostsFile=/dev/null',
    '-o',
    'LogLevel=ERROR',
    '-o',
    `ConnectTimeout=${CONNECT_TIMEOUT_SECONDS}`,
    `root@${address}`,
    command,
  ];
  try {
    return execFileSync('ssh', args, { encoding: 'utf8', timeout: timeoutMs, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const failed = error as { stderr?: string; status?: number | null };
    throw new Error(`ssh root@${address} ${JSON.stringify(command)}: exit ${failed.status ?? 'none'}: ${failed.stderr?.trim() ?? ''}`, {
      cause: error,
    });
  }
}

/** The SHA256 fingerprint of the ed25519 host key sshd at `address` presents. */
export function hostKeyFingerprint(address: string): string {
  const scanned = execFileSync('ssh-keyscan', ['-T', String(CONNECT_TIMEOUT_SECONDS), '-t', 'ed25519', address], {
    encoding: 'utf8',
    timeout: 15_000,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  if (!scanned.includes('ssh-ed25519')) throw new Error(`ssh-keyscan ${address}: no ed25519 host key`);
  const fingerprint = execFileSync('ssh-keygen', ['-l', '-f', '-'], { input: scanned, encoding: 'utf8', timeout: 5_000 });
  const found = /SHA256:\S+/.exec(fingerprint)?.[0];
  if (found === undefined) throw new Error(`ssh-keygen -l: no fingerprint in ${JSON.stringify(fingerprint)}`);
  return found;
}
