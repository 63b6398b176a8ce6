// The seeding command on real directories of this machine: a temporary root shaped like an
// image (files, modes, owners, links, special files, file capabilities), the command run in
// it with chroot under Debian's dash and GNU cp, and under busybox's sh and cp. No fakes:
// the copy is checked with lstat, and a second run must change nothing.
import {
  chmodSync,
  chownSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ROOTFS_DIR,
  SEED_CONTAINER_NAME,
  SEED_STATE_DIR,
  SEED_UNSUPPORTED_EXIT_CODE,
  SEED_VOLUME_MOUNT,
  seedCommand,
} from '../../src/members/claim/seed-command.js';
import {
  fileCapabilities,
  identityOfTree,
  makeSeedRoot,
  removeSeedRoot,
  runInRoot,
  seedRootProblem,
  snapshotTree,
  type RootKind,
  type SnapshotOptions,
} from '../support/seed-root.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) removeSeedRoot(root);
});

function newRoot(kind: RootKind, tools?: readonly string[]): string {
  // Never a silent skip: a machine that cannot run these fails them, saying why.
  const problem = seedRootProblem(kind);
  if (problem) throw new Error(`cannot test the seeding command under ${kind}: ${problem}`);
  const root = makeSeedRoot(kind, tools);
  roots.push(root);
  return root;
}

const OLD = new Date('2001-02-03T04:05:06Z');
const OLDER = new Date('1999-12-31T23:59:58Z');

/** What an image might hold under the default persisted paths, with every kind of entry. */
function populateImage(root: string): void {
  const at = (path: string): string => join(root, path);
  const file = (path: string, content: string, mode = 0o644, uid = 0, gid = 0): void => {
    mkdirSync(at(path.slice(0, path.lastIndexOf('/'))), { recursive: true });
    writeFileSync(at(path), content);
    // chown first: it clears the setuid bit.
    chownSync(at(path), uid, gid);
    chmodSync(at(path), mode);
    utimesSync(at(path), OLD, OLD);
  };
  const dir = (path: string, mode: number, uid = 0, gid = 0): void => {
    mkdirSync(at(path), { recursive: true });
    chownSync(at(path), uid, gid);
    chmodSync(at(path), mode);
  };
  file('/etc/passwd', 'root:x:0:0:root:/root:/bin/sh\nuser:x:1000:1000::/home/user:/bin/sh\n');
  file('/etc/shadow', 'root:*:19000:0:99999:7:::\n', 0o640, 0, 42);
  dir('/etc/ssl/private', 0o700);
  file('/etc/ssl/private/key.pem', 'not a real key', 0o600);
  symlinkSync('/usr/bin/tool', at('/etc/alternatives-editor'));
  symlinkSync('/nowhere/at/all', at('/etc/dangling'));
  file('/etc/name with spaces and\na newline', 'odd names survive');

  file('/usr/bin/tool', '#!/bin/sh\necho tool\n', 0o755);
  linkSync(at('/usr/bin/tool'), at('/usr/bin/tool-hardlink'));
  file('/usr/bin/suid-tool', 'setuid', 0o4755);
  file('/usr/bin/pinger', 'needs a capability', 0o755);
  execFileSync('setcap', ['cap_net_raw+ep', at('/usr/bin/pinger')]);
  mkdirSync(at('/usr/lib'), { recursive: true });
  symlinkSync('../bin/tool', at('/usr/lib/relative-link'));
  file('/usr/share/doc/big.bin', 'x'.repeat(256 * 1024));

  dir('/var/tmp', 0o1777);
  dir('/var/empty', 0o711);
  file('/var/lib/app/data.db', 'owned by the app', 0o600, 1000, 1000);
  execFileSync('mkfifo', ['-m', '0620', at('/var/lib/app/fifo')]);
  execFileSync('mknod', ['-m', '0660', at('/var/lib/app/null-device'), 'c', '1', '3']);

  dir('/home/user', 0o750, 1000, 1000);
  file('/home/user/.profile', 'export EDITOR=vi\n', 0o644, 1000, 1000);
  dir('/root', 0o700);
  file('/root/.hidden', 'dotfiles too', 0o600);

  // Directory times last: writing into a directory changes its mtime.
  for (const path of ['/etc/ssl/private', '/var/lib/app', '/home/user', '/usr/bin', '/etc']) utimesSync(at(path), OLDER, OLDER);
}

const PATHS = ['/etc', '/home', '/opt', '/root', '/srv', '/usr', '/var'];

function volume(root: string): string {
  return join(root, SEED_VOLUME_MOUNT);
}

function copyOf(root: string, path: string): string {
  return join(volume(root), ROOTFS_DIR, path);
}

// What each cp keeps beyond content, modes, owners, links and special files: GNU cp sets
// times to the nanosecond, symbolic links' own included; busybox's to the second, and not
// on symbolic links.
const KEEPS: Readonly<Record<RootKind, SnapshotOptions>> = {
  gnu: { withSymlinkTimes: true },
  busybox: { timePrecisionMs: 1000 },
};

describe.each<RootKind>(['gnu', 'busybox'])('the seeding command under %s', (kind) => {
  const expectSameTree = (copy: string, original: string, label?: string): void => {
    expect(snapshotTree(copy, KEEPS[kind]), label).toEqual(snapshotTree(original, KEEPS[kind]));
  };
  it('copies every persisted path the image has, keeping modes, owners, times, links and special files', () => {
    const root = newRoot(kind);
    populateImage(root);
    const run = runInRoot(root, seedCommand(PATHS));
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual([
      'kube-provisioner seed: /etc: copied from the image',
      'kube-provisioner seed: /home: copied from the image',
      'kube-provisioner seed: /opt: not in the image: created empty',
      'kube-provisioner seed: /root: copied from the image',
      'kube-provisioner seed: /srv: not in the image: created empty',
      'kube-provisioner seed: /usr: copied from the image',
      'kube-provisioner seed: /var: copied from the image',
    ]);
    for (const path of ['/etc', '/home', '/root', '/usr', '/var']) {
      expectSameTree(copyOf(root, path), join(root, path), path);
    }
    // The checks above compare the trees; these say what they contain, so a copy that
    // dropped an entry from both (it cannot) would not pass unseen.
    const usr = snapshotTree(copyOf(root, '/usr'));
    expect(usr.get('bin/tool')?.linkedWith).toBe('bin/tool | bin/tool-hardlink');
    expect(usr.get('bin/suid-tool')?.mode).toBe('4755');
    expect(usr.get('lib/relative-link')).toMatchObject({ type: 'symlink', target: '../bin/tool' });
    const varTree = snapshotTree(copyOf(root, '/var'));
    expect(varTree.get('tmp')?.mode).toBe('1777');
    expect(varTree.get('lib/app/data.db')).toMatchObject({ uid: 1000, gid: 1000, mode: '0600', mtimeMs: OLD.getTime() });
    expect(varTree.get('lib/app/fifo')).toMatchObject({ type: 'fifo', mode: '0620' });
    expect(varTree.get('lib/app/null-device')).toMatchObject({ type: 'char', rdev: 259 });
    expect(snapshotTree(copyOf(root, '/etc')).get('dangling')).toMatchObject({ type: 'symlink', target: '/nowhere/at/all' });
    expect(snapshotTree(copyOf(root, '/root')).get('')).toMatchObject({ mode: '0700' });
    // Paths the image lacks become empty directories, owned by root.
    for (const path of ['/opt', '/srv'])
      expect([...snapshotTree(copyOf(root, path)).entries()]).toEqual([
        ['', expect.objectContaining({ type: 'dir', mode: '0755', uid: 0, gid: 0 })],
      ]);
    // One marker per path, and nothing left in the staging area.
    expect(readFileSync(join(volume(root), SEED_STATE_DIR, 'seeded/usr.done'), 'utf8')).toBe('copied from the image\n');
    expect(readFileSync(join(volume(root), SEED_STATE_DIR, 'seeded/opt.done'), 'utf8')).toBe('not in the image: created empty\n');
    expect(existsSync(join(volume(root), SEED_STATE_DIR, 'staging'))).toBe(false);
  });

  it(`file capabilities: ${kind === 'gnu' ? 'kept by GNU cp -a' : 'dropped by busybox cp (documented)'}`, () => {
    const root = newRoot(kind);
    populateImage(root);
    expect(runInRoot(root, seedCommand(['/usr'])).status).toBe(0);
    expect(fileCapabilities(join(root, '/usr/bin/pinger'))).toBe('cap_net_raw=ep');
    expect(fileCapabilities(copyOf(root, '/usr/bin/pinger'))).toBe(kind === 'gnu' ? 'cap_net_raw=ep' : '');
  });

  it('a second run copies nothing and changes nothing, and keeps what the user changed', () => {
    const root = newRoot(kind);
    populateImage(root);
    expect(runInRoot(root, seedCommand(PATHS)).status).toBe(0);
    // The user's changes after the first start, and a newer image at the same paths.
    writeFileSync(copyOf(root, '/etc/passwd'), 'the user edited this\n');
    rmSync(copyOf(root, '/home/user/.profile'));
    writeFileSync(join(root, '/etc/new-in-image'), 'the image changed');
    const before = identityOfTree(volume(root));

    const again = runInRoot(root, seedCommand(PATHS));
    expect(again.status).toBe(0);
    expect(again.stdout.trim().split('\n')).toEqual(PATHS.map((path) => `kube-provisioner seed: ${path}: seeded before, kept as it is`));
    expect(identityOfTree(volume(root))).toEqual(before);
    expect(readFileSync(copyOf(root, '/etc/passwd'), 'utf8')).toBe('the user edited this\n');
    expect(existsSync(copyOf(root, '/home/user/.profile'))).toBe(false);
    expect(existsSync(copyOf(root, '/etc/new-in-image'))).toBe(false);
  });

  it('a path added later is seeded alone; the others are kept', () => {
    const root = newRoot(kind);
    populateImage(root);
    expect(runInRoot(root, seedCommand(['/etc'])).status).toBe(0);
    writeFileSync(copyOf(root, '/etc/passwd'), 'mine\n');
    const run = runInRoot(root, seedCommand(['/etc', '/var/lib/app']));
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('/etc: seeded before, kept as it is');
    expect(run.stdout).toContain('/var/lib/app: copied from the image');
    expect(readFileSync(copyOf(root, '/etc/passwd'), 'utf8')).toBe('mine\n');
    expectSameTree(copyOf(root, '/var/lib/app'), join(root, '/var/lib/app'));
  });

  it('a copy cut short is started over; a copy in place without its marker is kept, not overwritten', () => {
    const root = newRoot(kind);
    populateImage(root);
    // A run killed mid-copy leaves a half-filled staging folder and no copy in place.
    const staging = join(volume(root), SEED_STATE_DIR, 'staging/etc');
    mkdirSync(join(staging, 'ssl'), { recursive: true });
    writeFileSync(join(staging, 'half-written'), 'x');
    // A run killed between the rename and the marker leaves the copy in place.
    mkdirSync(copyOf(root, '/home'), { recursive: true });
    writeFileSync(copyOf(root, '/home/kept'), 'already the user’s');

    const run = runInRoot(root, seedCommand(['/etc', '/home']));
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('/etc: copied from the image');
    expect(run.stdout).toContain('/home: found in place');
    expectSameTree(copyOf(root, '/etc'), join(root, '/etc'));
    expect(readFileSync(copyOf(root, '/home/kept'), 'utf8')).toBe('already the user’s');
    expect(existsSync(copyOf(root, '/home/user'))).toBe(false);
  });

  it('refuses a path that is a symbolic link or a file in the image, in the termination message', () => {
    const root = newRoot(kind);
    populateImage(root);
    symlinkSync('usr/lib', join(root, 'opt'));
    const link = runInRoot(root, seedCommand(['/etc', '/opt']));
    expect(link.status).toBe(1);
    const linkMessage = 'kube-provisioner seed: /opt is a symbolic link in the image; persist the directory it points to instead\n';
    expect(link.terminationMessage).toBe(linkMessage);
    expect(link.stderr).toBe(linkMessage);
    expect(existsSync(copyOf(root, '/opt'))).toBe(false);

    const fresh = newRoot(kind);
    populateImage(fresh);
    const notDirectory = runInRoot(fresh, seedCommand(['/etc/passwd']));
    expect(notDirectory.status).toBe(1);
    expect(notDirectory.terminationMessage).toBe(
      'kube-provisioner seed: /etc/passwd is not a directory in the image; only directories can be persisted\n',
    );
  });

  it('names a copy that fails, with cp’s own words', () => {
    const root = newRoot(kind);
    populateImage(root);
    // A read-only staging area stands in for a full or failing volume.
    mkdirSync(join(volume(root), SEED_STATE_DIR, 'staging'), { recursive: true });
    execFileSync('chattr', ['+i', join(volume(root), SEED_STATE_DIR, 'staging')]);
    try {
      const run = runInRoot(root, seedCommand(['/etc']));
      expect(run.status).toBe(1);
      expect(run.terminationMessage).toMatch(
        /^kube-provisioner seed: copying \/etc into the volume failed: .*cp: .*(Operation not permitted|Permission denied)/s,
      );
    } finally {
      execFileSync('chattr', ['-i', join(volume(root), SEED_STATE_DIR, 'staging')]);
    }
  });

  if (kind === 'gnu') {
    it(`an image without cp: exit code ${SEED_UNSUPPORTED_EXIT_CODE}, saying which command is missing, nothing written`, () => {
      const root = newRoot(kind, ['sh', 'mkdir', 'mv', 'rm']);
      populateImage(root);
      const run = runInRoot(root, seedCommand(PATHS));
      expect(run.status).toBe(SEED_UNSUPPORTED_EXIT_CODE);
      expect(run.terminationMessage).toBe('kube-provisioner seed: the image has no cp command, which seeding the volume needs\n');
      expect(identityOfTree(volume(root)).size).toBe(1);
    });
  } else {
    it('an image whose busybox has no cp link: its sh runs the cp applet, so seeding works', () => {
      const root = newRoot(kind, ['sh']);
      populateImage(root);
      const run = runInRoot(root, seedCommand(['/etc']));
      expect(run.status).toBe(0);
      expectSameTree(copyOf(root, '/etc'), join(root, '/etc'));
    });
  }
});

describe('the seeding command line', () => {
  it('carries the paths as arguments, never in the script, so no path can change what runs', () => {
    const root = newRoot('busybox');
    const hostile = '/srv/$(touch pwned); echo `id` \'quoted\' "double"';
    const run = runInRoot(root, seedCommand([hostile]));
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(`kube-provisioner seed: ${hostile}: not in the image: created empty\n`);
    expect(existsSync(join(root, 'pwned'))).toBe(false);
    expect(existsSync(copyOf(root, hostile))).toBe(true);
    expect(seedCommand(['/etc']).slice(3)).toEqual([SEED_CONTAINER_NAME, SEED_VOLUME_MOUNT, '/etc']);
  });
});
