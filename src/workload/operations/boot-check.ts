// bootCheck(): boots an image once as a system container in the namespace and says whether
// it got to the point a user can log in (sshd accepting on port 22), and in how long, or the
// named failure (systemd's words, a startup probe the kubelet gave up on, an image that
// cannot be pulled). A throw-away workload of a unique name, small, without storage, made
// and awaited by provision() as any workload is, and removed afterwards whatever happened:
// after a pass, a failure, the timeout or an abort, the removal bounded on its own.
import { randomBytes } from 'node:crypto';
import type { SchedulerLike } from 'rxjs';

import { KubeProvisionerError } from '../../errors/base.js';
import { NotFoundError } from '../../errors/api.js';
import type { KubernetesClient } from '../../kube/client.js';
import { SYSTEM_LOGIN_PORT } from '../../input/system-container.js';
import { oneLine } from '../../text.js';
import { provision } from './provision.js';
import { remove } from './remove.js';

/** The report's item id of a system image's boot. */
export const BOOT_CHECK_ITEM_ID = 'system-boot' as const;

/** How long the boot may take, create and image pull included, by default. */
export const DEFAULT_BOOT_TIMEOUT_MS = 180_000;
/** The bound on removing the throw-away workload. */
export const BOOT_CLEANUP_TIMEOUT_MS = 30_000;
/** Names of the throw-away workloads start so, and end in random hex. */
export const BOOT_CHECK_NAME_PREFIX = 'kp-check-';

export interface BootCheckOptions {
  /** The image to boot: systemd as its `/sbin/init`, sshd on port 22. */
  readonly image: string;
  readonly runtimeClass?: string;
  /** Default: the client's. */
  readonly namespace?: string;
  /** Bound on the boot; default DEFAULT_BOOT_TIMEOUT_MS. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly scheduler?: SchedulerLike;
  /** The workload's name and container id; default: random (tests fix them). */
  readonly suffix?: string;
}

/** How the boot went, as the check report's `system-boot` item says it. */
export interface BootCheckItem {
  readonly id: typeof BOOT_CHECK_ITEM_ID;
  readonly status: 'pass' | 'fail';
  readonly needed: true;
  /** One line: the time until sshd accepted, or the error. */
  readonly message: string;
  readonly durationMs: number;
  /** The error class behind a fail. */
  readonly error?: string;
}

/** What the boot check made and how it ended. */
export interface BootCheckResult {
  readonly item: BootCheckItem;
  /** The throw-away workload, `namespace/name`. */
  readonly providerId: string;
  /** Whether it was removed (false: `item.message` says what is left). */
  readonly removed: boolean;
}

/** The spec of the throw-away system container. */
export function bootCheckSpec(options: BootCheckOptions, suffix: string): Record<string, unknown> {
  return {
    containerId: Number.parseInt(suffix, 16),
    nodeId: 'kp-check',
    hostname: `${BOOT_CHECK_NAME_PREFIX}${suffix}`,
    image: options.image,
    entrypoint: '/sbin/init',
    systemContainer: true,
    cpus: 0.5,
    memoryMb: 256,
    ports: [{ port: SYSTEM_LOGIN_PORT }],
    ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
    ...(options.runtimeClass !== undefined ? { runtimeClass: options.runtimeClass } : {}),
  };
}

/**
 * Boots the image and removes what it made. Never throws for what the cluster answers: the
 * item fails with the error's words. An invalid image or RuntimeClass rejects (InvalidSpecError).
 */
export async function bootCheck(client: KubernetesClient, options: BootCheckOptions): Promise<BootCheckResult> {
  const suffix = options.suffix ?? randomBytes(3).toString('hex');
  const spec = bootCheckSpec(options, suffix);
  const namespace = options.namespace ?? client.namespace;
  const providerId = `${namespace}/${String(spec.hostname)}`;
  const scheduler = options.scheduler ? { scheduler: options.scheduler } : {};
  const started = (options.scheduler ?? Date).now();
  const elapsed = (): number => (options.scheduler ?? Date).now() - started;
  let item: BootCheckItem;
  try {
    const created = await provision(client, spec, {
      timeoutMs: options.timeoutMs ?? DEFAULT_BOOT_TIMEOUT_MS,
      cleanupTimeoutMs: BOOT_CLEANUP_TIMEOUT_MS,
      ...(options.signal ? { signal: options.signal } : {}),
      ...scheduler,
    });
    item = {
      id: BOOT_CHECK_ITEM_ID,
      status: 'pass',
      needed: true,
      message: `${options.image} booted: sshd accepted on port ${SYSTEM_LOGIN_PORT} in ${created.durationMs} ms`,
      durationMs: elapsed(),
    };
  } catch (error) {
    if (!(error instanceof KubeProvisionerError) || error.name === 'InvalidSpecError') throw error;
    if (options.signal?.aborted) {
      // Stopped by the caller: what was made is still removed, then the abort stands.
      await removeWorkload(client, providerId, spec.containerId as number, scheduler);
      throw error;
    }
    item = {
      id: BOOT_CHECK_ITEM_ID,
      status: 'fail',
      needed: true,
      message: oneLine(`${options.image} did not boot: ${error.message}`),
      error: error.name,
      durationMs: elapsed(),
    };
  }
  const removed = await removeWorkload(client, providerId, spec.containerId as number, scheduler);
  return {
    item:
      removed === true
        ? item
        : { ...item, status: 'fail', message: oneLine(`${item.message}; ${providerId} may be left: ${removed.message}`) },
    providerId,
    removed: removed === true,
  };
}

/** Removes the workload, bounded; true when gone (or never made), else the error. */
async function removeWorkload(
  client: KubernetesClient,
  providerId: string,
  containerId: number,
  scheduler: { scheduler?: SchedulerLike },
): Promise<true | Error> {
  try {
    await remove(client, providerId, { containerId, timeoutMs: BOOT_CLEANUP_TIMEOUT_MS, ...scheduler });
    return true;
  } catch (error) {
    if (error instanceof NotFoundError) return true;
    return error instanceof Error ? error : new Error(String(error));
  }
}
