// The seeding command: the first time a container's volume is used, an init container of
// the container's own image copies each persisted path the image has into the volume, so
// mounting the volume there hides nothing the image brought. After that the copy is the
// container's own, as an LXC's root filesystem is after its template was cloned.
//
// The script is POSIX sh for the shells images carry (dash, bash, busybox ash) and needs
// `cp -a`, `mkdir -p`, `mv` and `rm -rf` (GNU coreutils and busybox both have them). The
// paths come as arguments, never inside the script's text, so no path can change what it
// runs. Each path is copied to a staging folder on the volume and then renamed into place,
// so a copy cut short (the Pod deleted, the node lost) is started over and never taken for
// a finished one; a finished path gets a marker and is never copied again.

import { SEED_CONTAINER_NAME, SEED_MESSAGE_PREFIX, SEED_UNSUPPORTED_EXIT_CODE, SEED_VOLUME_MOUNT } from '../../input/storage.js';

export { SEED_CONTAINER_NAME, SEED_MESSAGE_PREFIX, SEED_UNSUPPORTED_EXIT_CODE, SEED_VOLUME_MOUNT };

/** The folder of the volume that holds the persisted paths, mirrored: `rootfs/etc`, `rootfs/var/lib/app`. */
export const ROOTFS_DIR = 'rootfs';

/** The folder of the volume that holds the markers and the staging area. */
export const SEED_STATE_DIR = '.kube-provisioner';

/** The volume path (relative to its root) where a persisted path's copy lives. */
export function rootfsSubPath(path: string): string {
  return `${ROOTFS_DIR}${path}`;
}

export const SEED_SCRIPT = `set -u
say() { printf '${SEED_MESSAGE_PREFIX} %s\\n' "$*"; }
stop() {
  code=$1
  shift
  printf '${SEED_MESSAGE_PREFIX} %s\\n' "$*" >&2
  { printf '${SEED_MESSAGE_PREFIX} %s\\n' "$*" > /dev/termination-log; } 2>/dev/null
  exit "$code"
}
for tool in cp mkdir mv rm; do
  command -v "$tool" > /dev/null 2>&1 || stop ${SEED_UNSUPPORTED_EXIT_CODE} "the image has no $tool command, which seeding the volume needs"
done
volume=$1
shift
state="$volume/${SEED_STATE_DIR}"
mkdir -p "$state/seeded" "$volume/${ROOTFS_DIR}" || stop 1 "cannot write to the volume"
for path in "$@"; do
  target="$volume/${ROOTFS_DIR}$path"
  marker="$state/seeded$path.done"
  parent=\${path%/*}
  if [ -e "$marker" ]; then
    say "$path: seeded before, kept as it is"
    continue
  fi
  mkdir -p "$volume/${ROOTFS_DIR}$parent" "$state/seeded$parent" || stop 1 "cannot write to the volume"
  if [ -e "$target" ] || [ -L "$target" ]; then
    how="found in place"
  elif [ -L "$path" ]; then
    stop 1 "$path is a symbolic link in the image; persist the directory it points to instead"
  elif [ -d "$path" ]; then
    stage="$state/staging$path"
    rm -rf "$stage" || stop 1 "cannot clear $stage on the volume"
    mkdir -p "$state/staging$parent" || stop 1 "cannot write to the volume"
    out=$(cp -a "$path" "$state/staging$parent/" 2>&1) || stop 1 "copying $path into the volume failed: $out"
    mv "$stage" "$target" || stop 1 "cannot move the copy of $path into place"
    how="copied from the image"
  elif [ -e "$path" ]; then
    stop 1 "$path is not a directory in the image; only directories can be persisted"
  else
    mkdir "$target" || stop 1 "cannot create $target on the volume"
    how="not in the image: created empty"
  fi
  printf '%s\\n' "$how" > "$marker" || stop 1 "cannot write the marker of $path"
  say "$path: $how"
done
if [ -e "$state/staging" ]; then rm -rf "$state/staging"; fi
`;

/**
 * The init container's command line: the script, then `$0` (a name for the shell's own
 * messages), the volume's mount point and the paths.
 */
export function seedCommand(paths: readonly string[]): string[] {
  return ['/bin/sh', '-c', SEED_SCRIPT, SEED_CONTAINER_NAME, SEED_VOLUME_MOUNT, ...paths];
}
