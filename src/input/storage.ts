// The storage a container keeps through its whole life: the size of its volume, the
// StorageClass it comes from, the paths that live on it, and how the volume is filled the
// first time. One rule per field, each problem reported with its path (`storage.paths.2`).

import { posix } from 'node:path';
import * as z from 'zod';

/** What a Manager container persists when the spec names no paths: what a user changes in a system container. */
export const DEFAULT_PERSISTED_PATHS: readonly string[] = Object.freeze(['/etc', '/home', '/opt', '/root', '/srv', '/usr', '/var']);

/** The largest volume we ask for, in GiB (64 TiB): catches MB or bytes passed as GB. */
export const MAX_STORAGE_GB = 65_536;

/** At most this many persisted paths (each is a mount in the container). */
export const MAX_PERSISTED_PATHS = 64;

/** The longest persisted path, in bytes (Linux's own limit is PATH_MAX, 4096). */
export const MAX_PATH_BYTES = 1024;

/**
 * How the volume is filled on the first start:
 * - `image`: an init container of the same image copies each persisted path the image has
 *   (it needs `/bin/sh` and `cp` in the image);
 * - `empty`: nothing is copied; each path starts as an empty directory. For images without a
 *   shell, and only with paths named explicitly.
 */
export type SeedMode = 'image' | 'empty';

export const SEED_MODES: readonly SeedMode[] = ['image', 'empty'];

/** Validated storage of one container. */
export interface StorageSpec {
  /** The claim's size in GiB (Manager's "GB"). */
  sizeGb: number;
  /** The StorageClass; absent: the cluster's default class, found when the claim is created. */
  storageClass?: string;
  /** Absolute, normalised directory paths, sorted, none inside another. */
  paths: string[];
  seed: SeedMode;
}

// Paths the container runtime or the kubelet owns: a volume there would break the container.
const RESERVED_TREES = ['/proc', '/sys', '/dev'];
const KUBELET_FILES = ['/etc/hosts', '/etc/hostname', '/etc/resolv.conf'];
// The seeding contract, shared by the command (src/members/claim/seed-command.ts), the rules
// here and the diagnosis of its failures (src/rollout/storage-diagnosis.ts).

/** The Pod's name for the claim's volume. */
export const STORAGE_VOLUME_NAME = 'storage';
/** The init container that seeds the volume (a container name, unique in the Pod). */
export const SEED_CONTAINER_NAME = 'kube-provisioner-seed';
/** Where the seeding init container mounts the whole volume. */
export const SEED_VOLUME_MOUNT = '/kube-provisioner-volume';
/** The exit code of the seeding command when the image lacks a tool it needs. */
export const SEED_UNSUPPORTED_EXIT_CODE = 3;
/** The words every line the seeding command writes starts with. */
export const SEED_MESSAGE_PREFIX = 'kube-provisioner seed:';

/** Paths an empty volume must never hide: the image's programs and libraries. */
const NEVER_EMPTY = ['/usr', '/etc', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

function isInside(path: string, tree: string): boolean {
  return path === tree || path.startsWith(`${tree}/`);
}

/** The problem with one persisted path, or undefined when it is a valid one. */
export function persistedPathProblem(path: string): string | undefined {
  if (path.length === 0) return 'must not be empty';
  if (!path.startsWith('/')) return 'must be an absolute path (starting with "/")';
  if (path === '/') return 'must not be "/": the root filesystem itself cannot be a volume; list the directories to persist';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(path)) return 'must not contain control characters (a line break, a tab, NUL)';
  if (/\p{Cs}/u.test(path)) return 'must be valid Unicode text (it holds an unpaired surrogate)';
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) return `must be at most ${MAX_PATH_BYTES} bytes long`;
  const normal = posix.normalize(path).replace(/\/+$/, '');
  if (normal !== path) return `must be written in normal form: ${JSON.stringify(normal)} (no ".", "..", "//" or trailing "/")`;
  if (path.split('/').some((segment) => Buffer.byteLength(segment) > 255)) return 'must not have a name longer than 255 bytes';
  const tree = RESERVED_TREES.find((reserved) => isInside(path, reserved));
  if (tree) return `must not be in ${tree}, which the container runtime provides`;
  if (KUBELET_FILES.includes(path)) return 'must not be a file the kubelet writes into every container';
  if (isInside(path, SEED_VOLUME_MOUNT)) return `must not be in ${SEED_VOLUME_MOUNT}, where the seeding init container mounts the volume`;
  return undefined;
}

const DNS_1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The problem with a StorageClass name (a DNS-1123 subdomain), or undefined. */
export function storageClassNameProblem(name: string): string | undefined {
  if (name.length > 0 && name.length <= 253 && DNS_1123_SUBDOMAIN.test(name)) return undefined;
  return "must be a StorageClass name: a DNS-1123 subdomain (lowercase letters, digits, '-' and '.', at most 253 characters, starting and ending with a letter or digit)";
}

/** The problem with a volume size in GiB, or undefined. */
export function storageSizeProblem(sizeGb: number): string | undefined {
  if (!Number.isInteger(sizeGb)) return 'must be a whole number of GB (GiB), e.g. 50';
  if (sizeGb < 1) return 'must be at least 1 GB';
  if (sizeGb > MAX_STORAGE_GB) return `must be at most ${MAX_STORAGE_GB} GB (64 TiB)`;
  return undefined;
}

/** The claim's size as a Kubernetes quantity: 50 -> "50Gi". */
export function storageQuantity(sizeGb: number): string {
  return `${sizeGb}Gi`;
}

interface PathIssue {
  readonly path: (string | number)[];
  readonly message: string;
}

/** Every problem of a list of persisted paths: each path's own, then duplicates and nesting. */
export function persistedPathsIssues(paths: readonly unknown[]): PathIssue[] {
  const issues: PathIssue[] = [];
  if (paths.length === 0) issues.push({ path: [], message: 'must list at least one path (omit it for the default set)' });
  if (paths.length > MAX_PERSISTED_PATHS) issues.push({ path: [], message: `must list at most ${MAX_PERSISTED_PATHS} paths` });
  const valid: { index: number; path: string }[] = [];
  for (let index = 0; index < paths.length; index += 1) {
    if (!Object.hasOwn(paths, index)) {
      issues.push({ path: [index], message: 'is missing (a hole in a sparse list)' });
      continue;
    }
    const path = paths[index];
    if (typeof path !== 'string') {
      issues.push({ path: [index], message: 'must be a string (an absolute directory path)' });
      continue;
    }
    const problem = persistedPathProblem(path);
    if (problem) issues.push({ path: [index], message: problem });
    else valid.push({ index, path });
  }
  for (const { index, path } of valid) {
    const earlier = valid.find((other) => other.index < index && other.path === path);
    if (earlier) {
      issues.push({ path: [index], message: `is listed twice (also at ${earlier.index})` });
      continue;
    }
    const outer = valid.find((other) => other.path !== path && isInside(path, other.path));
    if (outer)
      issues.push({
        path: [index],
        message: `is inside ${outer.path}, which is persisted already (at ${outer.index}): list only one of them`,
      });
  }
  return issues;
}

/** A volume's size in GiB: at creation (`storage.sizeGb`) and in a reconfigure (`storageGb`). */
export const storageSizeSchema = z
  .number({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a whole number of GB (GiB), e.g. 50') })
  .superRefine((value, ctx) => {
    const problem = storageSizeProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

const paths = z.unknown().transform((value, ctx): string[] | undefined => {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    ctx.addIssue({ code: 'custom', message: 'must be a list of absolute directory paths' });
    return z.NEVER;
  }
  const issues = persistedPathsIssues(value);
  for (const issue of issues) ctx.addIssue({ code: 'custom', ...issue });
  return issues.length > 0 ? z.NEVER : [...(value as string[])];
});

/** The `storage` field of a workload spec: absent or null means no volume (the container's files live as long as its Pod). */
export const storageSchema = z
  .strictObject(
    {
      sizeGb: storageSizeSchema,
      storageClass: z
        .string({ error: 'must be a string (a StorageClass name)' })
        .superRefine((value, ctx) => {
          const problem = storageClassNameProblem(value);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        })
        .nullish(),
      paths: paths.optional(),
      seed: z.enum(SEED_MODES as [SeedMode, ...SeedMode[]], { error: `must be one of: ${SEED_MODES.join(', ')}` }).nullish(),
    },
    { error: (issue) => (issue.code === 'invalid_type' ? 'must be an object: { sizeGb, storageClass?, paths?, seed? }' : undefined) },
  )
  .superRefine((storage, ctx) => {
    if (storage.seed !== 'empty') return;
    if (storage.paths === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['paths'],
        message: 'must be listed when seed is "empty": empty volumes over the default paths would hide the image\'s files',
      });
      return;
    }
    storage.paths.forEach((path, index) => {
      const hidden = NEVER_EMPTY.find((tree) => isInside(tree, path));
      if (hidden)
        ctx.addIssue({
          code: 'custom',
          path: ['paths', index],
          message: `must not be ${path} when seed is "empty": an empty volume there would hide the image's ${hidden}`,
        });
    });
  })
  .nullish()
  .transform((storage): StorageSpec | undefined => {
    if (!storage) return undefined;
    return {
      sizeGb: storage.sizeGb,
      ...(storage.storageClass ? { storageClass: storage.storageClass } : {}),
      // Sorted, so the same set gives the same manifest whatever the order it came in.
      paths: storage.paths ? [...storage.paths].sort() : [...DEFAULT_PERSISTED_PATHS],
      seed: storage.seed ?? 'image',
    };
  });

/** The fields of `storage`, for messages. */
export const STORAGE_FIELDS: readonly string[] = ['sizeGb', 'storageClass', 'paths', 'seed'];

/** The storage input a caller hands over, before validation. */
export interface StorageInput {
  sizeGb: number;
  storageClass?: string | null;
  paths?: readonly string[] | null;
  seed?: SeedMode | null;
}
