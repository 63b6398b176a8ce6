// The storage input rules: size, class, paths (absolute, normal form, no duplicates, none
// inside another, none the runtime owns), the seed mode, and the default set. Pure.
import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import {
  DEFAULT_PERSISTED_PATHS,
  MAX_PERSISTED_PATHS,
  persistedPathProblem,
  persistedPathsIssues,
  storageClassNameProblem,
  storageQuantity,
  storageSchema,
  storageSizeProblem,
} from '../../src/input/storage.js';

function issuesOf(input: unknown): { path: string; message: string }[] {
  const result = storageSchema.safeParse(input);
  if (result.success) return [];
  return result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
}

describe('storage: the default set and the parsed value', () => {
  it('a size alone persists the default paths, seeded from the image, in the default class', () => {
    expect(storageSchema.parse({ sizeGb: 50 })).toEqual({
      sizeGb: 50,
      paths: ['/etc', '/home', '/opt', '/root', '/srv', '/usr', '/var'],
      seed: 'image',
    });
    expect(DEFAULT_PERSISTED_PATHS).toEqual(['/etc', '/home', '/opt', '/root', '/srv', '/usr', '/var']);
    expect(Object.isFrozen(DEFAULT_PERSISTED_PATHS)).toBe(true);
  });

  it('absent or null storage means no volume', () => {
    expect(storageSchema.parse(undefined)).toBeUndefined();
    expect(storageSchema.parse(null)).toBeUndefined();
  });

  it('paths are sorted, so the same set always gives the same manifest; the input is not changed', () => {
    const paths = ['/var/lib/app', '/home', '/etc'];
    expect(storageSchema.parse({ sizeGb: 1, paths, storageClass: 'fast.ssd-1' })).toEqual({
      sizeGb: 1,
      storageClass: 'fast.ssd-1',
      paths: ['/etc', '/home', '/var/lib/app'],
      seed: 'image',
    });
    expect(paths).toEqual(['/var/lib/app', '/home', '/etc']);
  });

  it('the size becomes a GiB quantity', () => {
    expect(storageQuantity(50)).toBe('50Gi');
  });
});

describe('storage: size', () => {
  it.each([
    [0, 'must be at least 1 GB'],
    [-5, 'must be at least 1 GB'],
    [1.5, 'must be a whole number of GB (GiB), e.g. 50'],
    [65_537, 'must be at most 65536 GB (64 TiB)'],
    [50 * 1024 ** 3, 'must be at most 65536 GB (64 TiB)'],
  ])('%s GB: %s', (sizeGb, message) => {
    expect(storageSizeProblem(sizeGb)).toBe(message);
    expect(issuesOf({ sizeGb })).toEqual([{ path: 'sizeGb', message }]);
  });

  it('is required, and a number', () => {
    expect(issuesOf({})).toEqual([{ path: 'sizeGb', message: 'is required' }]);
    expect(issuesOf({ sizeGb: '50' })).toEqual([{ path: 'sizeGb', message: 'must be a whole number of GB (GiB), e.g. 50' }]);
    expect(issuesOf({ sizeGb: Number.NaN })[0]?.path).toBe('sizeGb');
  });
});

describe('storage: class', () => {
  it.each(['standard', 'local-path', 'fast.ssd', 'a', 'x'.repeat(253)])('accepts %s', (name) => {
    expect(storageClassNameProblem(name)).toBeUndefined();
  });
  it.each(['', 'Fast', 'under_score', '-lead', 'trail-', 'a..b', 'x'.repeat(254)])('refuses %j', (name) => {
    expect(storageClassNameProblem(name)).toMatch(/^must be a StorageClass name/);
    expect(issuesOf({ sizeGb: 1, storageClass: name })[0]?.path).toBe('storageClass');
  });
  it('null is the default class', () => {
    expect(storageSchema.parse({ sizeGb: 1, storageClass: null })).not.toHaveProperty('storageClass');
  });
});

describe('storage: a persisted path', () => {
  it.each(['/etc', '/var/lib/postgresql', '/opt/my app', '/home/ünïcode', '/tmp', '/run', '/a:b'])('accepts %j', (path) => {
    expect(persistedPathProblem(path)).toBeUndefined();
  });

  it.each([
    ['', 'must not be empty'],
    ['etc', 'must be an absolute path (starting with "/")'],
    ['./etc', 'must be an absolute path (starting with "/")'],
    ['/', 'must not be "/": the root filesystem itself cannot be a volume; list the directories to persist'],
    ['/etc/', 'must be written in normal form: "/etc" (no ".", "..", "//" or trailing "/")'],
    ['//etc', 'must be written in normal form: "/etc" (no ".", "..", "//" or trailing "/")'],
    ['/var//lib', 'must be written in normal form: "/var/lib" (no ".", "..", "//" or trailing "/")'],
    ['/var/./lib', 'must be written in normal form: "/var/lib" (no ".", "..", "//" or trailing "/")'],
    ['/var/lib/..', 'must be written in normal form: "/var" (no ".", "..", "//" or trailing "/")'],
    ['/srv/a\nb', 'must not contain control characters (a line break, a tab, NUL)'],
    ['/srv/a\u0000', 'must not contain control characters (a line break, a tab, NUL)'],
    ['/srv/\ud800', 'must be valid Unicode text (it holds an unpaired surrogate)'],
    [`/${'x'.repeat(256)}`, 'must not have a name longer than 255 bytes'],
    [`/${'abc/'.repeat(300)}x`, 'must be at most 1024 bytes long'],
    ['/proc', 'must not be in /proc, which the container runtime provides'],
    ['/sys/fs', 'must not be in /sys, which the container runtime provides'],
    ['/dev/shm', 'must not be in /dev, which the container runtime provides'],
    ['/etc/hosts', 'must not be a file the kubelet writes into every container'],
    ['/etc/resolv.conf', 'must not be a file the kubelet writes into every container'],
    ['/kube-provisioner-volume', 'must not be in /kube-provisioner-volume, where the seeding init container mounts the volume'],
  ])('refuses %j: %s', (path, message) => {
    expect(persistedPathProblem(path)).toBe(message);
  });

  it('/devices and /processes are not /dev and /proc', () => {
    expect(persistedPathProblem('/devices')).toBeUndefined();
    expect(persistedPathProblem('/processes')).toBeUndefined();
  });
});

describe('storage: the list of paths', () => {
  it('reports every problem at once, by index', () => {
    expect(issuesOf({ sizeGb: 1, paths: ['/etc', 'relative', 7, '/etc', '/usr', '/usr/local', '/var/'] })).toEqual([
      { path: 'paths.1', message: 'must be an absolute path (starting with "/")' },
      { path: 'paths.2', message: 'must be a string (an absolute directory path)' },
      { path: 'paths.6', message: 'must be written in normal form: "/var" (no ".", "..", "//" or trailing "/")' },
      { path: 'paths.3', message: 'is listed twice (also at 0)' },
      { path: 'paths.5', message: 'is inside /usr, which is persisted already (at 4): list only one of them' },
    ]);
  });

  it('a nested path is a conflict whichever comes first', () => {
    expect(persistedPathsIssues(['/var/lib/app', '/var'])).toEqual([
      { path: [0], message: 'is inside /var, which is persisted already (at 1): list only one of them' },
    ]);
    // A shared prefix is not nesting.
    expect(persistedPathsIssues(['/var', '/variable', '/var-lib'])).toEqual([]);
  });

  it('refuses an empty list, too many paths, a hole and a non-list', () => {
    expect(issuesOf({ sizeGb: 1, paths: [] })).toEqual([
      { path: 'paths', message: 'must list at least one path (omit it for the default set)' },
    ]);
    const many = Array.from({ length: MAX_PERSISTED_PATHS + 1 }, (_, index) => `/data/${index}`);
    expect(issuesOf({ sizeGb: 1, paths: many })).toEqual([{ path: 'paths', message: 'must list at most 64 paths' }]);
    // eslint-disable-next-line no-sparse-arrays
    expect(issuesOf({ sizeGb: 1, paths: ['/etc', , '/srv'] })).toEqual([
      { path: 'paths.1', message: 'is missing (a hole in a sparse list)' },
    ]);
    expect(issuesOf({ sizeGb: 1, paths: '/etc' })).toEqual([{ path: 'paths', message: 'must be a list of absolute directory paths' }]);
  });
});

describe('storage: the seed mode', () => {
  it('empty needs the paths named, and never hides the image’s programs', () => {
    expect(storageSchema.parse({ sizeGb: 1, seed: 'empty', paths: ['/data', '/home'] })).toEqual({
      sizeGb: 1,
      paths: ['/data', '/home'],
      seed: 'empty',
    });
    expect(issuesOf({ sizeGb: 1, seed: 'empty' })).toEqual([
      { path: 'paths', message: 'must be listed when seed is "empty": empty volumes over the default paths would hide the image\'s files' },
    ]);
    expect(issuesOf({ sizeGb: 1, seed: 'empty', paths: ['/data', '/usr', '/lib/x86_64-linux-gnu'] })).toEqual([
      { path: 'paths.1', message: 'must not be /usr when seed is "empty": an empty volume there would hide the image\'s /usr' },
    ]);
    expect(issuesOf({ sizeGb: 1, seed: 'empty', paths: ['/lib'] })).toEqual([
      { path: 'paths.0', message: 'must not be /lib when seed is "empty": an empty volume there would hide the image\'s /lib' },
    ]);
  });

  it('refuses an unknown mode and an unknown key', () => {
    expect(issuesOf({ sizeGb: 1, seed: 'copy' })).toEqual([{ path: 'seed', message: 'must be one of: image, empty' }]);
    const unknown = storageSchema.safeParse({ sizeGb: 1, size: 5 });
    expect(unknown.success).toBe(false);
    expect((unknown.error as z.ZodError).issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['size'] });
  });

  it('refuses a non-object', () => {
    expect(issuesOf(50)).toEqual([{ path: '', message: 'must be an object: { sizeGb, storageClass?, paths?, seed? }' }]);
  });
});
