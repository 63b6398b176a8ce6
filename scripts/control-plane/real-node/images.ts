// The real node's test images, built here from Debian's busybox-static and our pause
// program, written as OCI images (gzip layers, config, manifest) and pushed to the local
// registry over the distribution API. No registry on the internet is needed, and an image
// that was never pushed is a real pull failure. The system containers' images take their
// root filesystem from build.sh (Debian's packages, cached) and a layer of this run's
// authorized SSH key.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

import { send } from '../http.js';
import { writeTar } from './tar.js';
import type { TarEntry } from './tar.js';

/** The registry host the images are named by; containerd maps it to the local registry. */
export const REAL_NODE_REGISTRY = 'registry.kube-provisioner.test';

/** Every image the real node's registry holds. */
export const REAL_NODE_IMAGES = {
  /** busybox's applets in /bin (sh, httpd, nc, cp, cat, ...); runs `sh`. */
  busybox: `${REAL_NODE_REGISTRY}/busybox:v1`,
  /** busybox, serving /www (an index.html) on port 8080 with `httpd`. */
  httpd: `${REAL_NODE_REGISTRY}/httpd:v1`,
  /** busybox with files under paths a pet persists (/etc, /srv): what seeding must copy. */
  seeded: `${REAL_NODE_REGISTRY}/seeded:v1`,
  /** The pod sandbox image. */
  pause: `${REAL_NODE_REGISTRY}/pause:v1`,
  /** Scratch-like: only our pause program (its entrypoint), no /bin/sh: the volume cannot be seeded from it. */
  noShell: `${REAL_NODE_REGISTRY}/no-shell:v1`,
  /** Debian bookworm (systemd 252) booting /sbin/init, sshd on port 22, StopSignal SIGRTMIN+3: like Manager's base image. */
  systemBookworm: `${REAL_NODE_REGISTRY}/system-bookworm:v1`,
  /** The same on Debian trixie (systemd 257). */
  systemTrixie: `${REAL_NODE_REGISTRY}/system-trixie:v1`,
  /** system-bookworm without a StopSignal: the runtime would stop its systemd with SIGTERM. */
  systemNoStopSignal: `${REAL_NODE_REGISTRY}/system-no-stop-signal:v1`,
} as const;

/** Debian suites of the system images; build.sh leaves each as <bin dir>/system-image-<suite>/{layer.tar.gz,diff-id}. */
export const SYSTEM_IMAGE_SUITES = ['bookworm', 'trixie'] as const;
/** The port sshd listens on in the system images. */
export const SYSTEM_SSH_PORT = 22;
/** systemd's signal for a clean shutdown (a SIGTERM makes it re-execute instead). */
export const SYSTEMD_STOP_SIGNAL = 'SIGRTMIN+3';

/** The seeded image's files, path -> contents. */
export const SEEDED_FILES: Readonly<Record<string, string>> = {
  'etc/app.conf': 'setting=from-the-image\n',
  'srv/www/index.html': 'served from a file the image had\n',
};

/** Named like the others but never pushed: pulling it is a real "not found". */
export const MISSING_IMAGE = `${REAL_NODE_REGISTRY}/never-pushed:v1`;

/** What the httpd image serves at `/`. */
export const HTTPD_INDEX = 'hello from the real node\n';
export const HTTPD_PORT = 8080;

export const BUSYBOX_PATH = '/bin/busybox';

interface ImageConfig {
  readonly Entrypoint?: readonly string[];
  readonly Cmd?: readonly string[];
  readonly Env: readonly string[];
  readonly WorkingDir: string;
  readonly ExposedPorts?: Readonly<Record<string, object>>;
  readonly StopSignal?: string;
}

interface Layer {
  readonly blob: Buffer;
  readonly digest: string;
  /** The digest of the uncompressed tar, as the config's rootfs lists it. */
  readonly diffId: string;
}

export interface BuiltImage {
  /** e.g. registry.kube-provisioner.test/httpd:v1 */
  readonly reference: string;
  readonly repository: string;
  readonly tag: string;
  readonly layers: readonly Layer[];
  readonly config: Buffer;
  readonly manifest: Buffer;
  readonly manifestDigest: string;
}

const PATH_ENV = 'PATH=/bin';
const MANIFEST_TYPE = 'application/vnd.oci.image.manifest.v1+json';

/** Builds every image of REAL_NODE_IMAGES; `pauseBinary` is our static pause program. */
export function buildTestImages(pauseBinary: string): BuiltImage[] {
  const base = layer(busyboxEntries());
  const www = layer([
    { type: 'dir', path: 'www', mode: 0o755 },
    { type: 'file', path: 'www/index.html', mode: 0o644, content: Buffer.from(HTTPD_INDEX) },
  ]);
  const pause = layer([{ type: 'file', path: 'pause', mode: 0o755, content: readFileSync(pauseBinary) }]);
  const seededFiles = layer([
    { type: 'dir', path: 'srv', mode: 0o755 },
    { type: 'dir', path: 'srv/www', mode: 0o755 },
    ...Object.entries(SEEDED_FILES).map(([path, text]): TarEntry => ({ type: 'file', path, mode: 0o644, content: Buffer.from(text) })),
  ]);
  return [
    image(REAL_NODE_IMAGES.busybox, [base], { Cmd: ['sh'], Env: [PATH_ENV], WorkingDir: '/' }),
    image(REAL_NODE_IMAGES.httpd, [base, www], {
      Cmd: ['httpd', '-f', '-v', '-p', String(HTTPD_PORT), '-h', '/www'],
      Env: [PATH_ENV],
      WorkingDir: '/',
      ExposedPorts: { [`${HTTPD_PORT}/tcp`]: {} },
    }),
    image(REAL_NODE_IMAGES.seeded, [base, seededFiles], { Cmd: ['sh'], Env: [PATH_ENV], WorkingDir: '/' }),
    image(REAL_NODE_IMAGES.pause, [pause], { Entrypoint: ['/pause'], Env: [PATH_ENV], WorkingDir: '/' }),
    image(REAL_NODE_IMAGES.noShell, [pause], { Entrypoint: ['/pause'], Env: [PATH_ENV], WorkingDir: '/' }),
  ];
}

/**
 * The system images: each suite's cached root filesystem (`binDir`'s system-image-<suite>)
 * under a layer holding `authorizedKey` as root's only authorized SSH key.
 */
export function buildSystemImages(binDir: string, authorizedKey: string): BuiltImage[] {
  const keyLayer = layer([
    { type: 'dir', path: 'root', mode: 0o700 },
    { type: 'dir', path: 'root/.ssh', mode: 0o700 },
    { type: 'file', path: 'root/.ssh/authorized_keys', mode: 0o600, content: Buffer.from(`${authorizedKey.trim()}\n`) },
  ]);
  const [bookworm, trixie] = SYSTEM_IMAGE_SUITES.map((suite) => cachedLayer(join(binDir, `system-image-${suite}`)));
  if (bookworm === undefined || trixie === undefined) throw new Error('the system images need both suites built');
  const config = (stopSignal: boolean): ImageConfig => ({
    Entrypoint: ['/sbin/init'],
    Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
    WorkingDir: '/',
    ExposedPorts: { [`${SYSTEM_SSH_PORT}/tcp`]: {} },
    ...(stopSignal ? { StopSignal: SYSTEMD_STOP_SIGNAL } : {}),
  });
  return [
    image(REAL_NODE_IMAGES.systemBookworm, [bookworm, keyLayer], config(true)),
    image(REAL_NODE_IMAGES.systemTrixie, [trixie, keyLayer], config(true)),
    image(REAL_NODE_IMAGES.systemNoStopSignal, [bookworm, keyLayer], config(false)),
  ];
}

function cachedLayer(dir: string): Layer {
  const blob = readFileSync(join(dir, 'layer.tar.gz'));
  return { blob, digest: sha256(blob), diffId: readFileSync(join(dir, 'diff-id'), 'utf8').trim() };
}

/** busybox with one symbolic link per applet, the usual top-level dirs, root and nobody. */
function busyboxEntries(): TarEntry[] {
  const applets = execFileSync(BUSYBOX_PATH, ['--list'], { encoding: 'utf8' })
    .split('\n')
    .filter((name) => name !== '' && name !== 'busybox')
    .sort();
  const dirs = ['bin', 'dev', 'etc', 'home', 'proc', 'root', 'sys', 'tmp', 'var'];
  return [
    ...dirs.map((path): TarEntry => ({ type: 'dir', path, mode: path === 'tmp' ? 0o1777 : path === 'root' ? 0o700 : 0o755 })),
    { type: 'file', path: 'bin/busybox', mode: 0o755, content: readFileSync(BUSYBOX_PATH) },
    ...applets.map((name): TarEntry => ({ type: 'symlink', path: `bin/${name}`, target: 'busybox' })),
    {
      type: 'file',
      path: 'etc/passwd',
      mode: 0o644,
      content: Buffer.from('root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/home:/bin/false\n'),
    },
    { type: 'file', path: 'etc/group', mode: 0o644, content: Buffer.from('root:x:0:\nnogroup:x:65534:\n') },
  ];
}

function layer(entries: readonly TarEntry[]): Layer {
  const tar = writeTar(entries);
  // Node's gzip header carries no file name and a zero time: the same tar, the same blob.
  const blob = gzipSync(tar, { level: 6 });
  return { blob, digest: sha256(blob), diffId: sha256(tar) };
}

function image(reference: string, layers: readonly Layer[], config: ImageConfig): BuiltImage {
  const { repository, tag } = splitReference(reference);
  const configBlob = Buffer.from(
    JSON.stringify({
      architecture: goArchitecture(),
      os: 'linux',
      config,
      rootfs: { type: 'layers', diff_ids: layers.map((entry) => entry.diffId) },
    }),
  );
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MANIFEST_TYPE,
      config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: sha256(configBlob), size: configBlob.length },
      layers: layers.map((entry) => ({
        mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip',
        digest: entry.digest,
        size: entry.blob.length,
      })),
    }),
  );
  return { reference, repository, tag, layers, config: configBlob, manifest, manifestDigest: sha256(manifest) };
}

/** Pushes each image's blobs (once per repository) and manifest to `registryUrl`. */
export async function pushImages(registryUrl: string, images: readonly BuiltImage[]): Promise<void> {
  for (const built of images) {
    for (const blob of [...built.layers.map((entry) => entry.blob), built.config]) await pushBlob(registryUrl, built.repository, blob);
    const response = await send(`${registryUrl}/v2/${built.repository}/manifests/${built.tag}`, {
      method: 'PUT',
      headers: { 'Content-Type': MANIFEST_TYPE },
      payload: built.manifest,
    });
    if (response.status !== 201) throw new Error(`pushing ${built.reference}: manifest PUT answered ${response.status} ${response.body}`);
  }
}

async function pushBlob(registryUrl: string, repository: string, blob: Buffer): Promise<void> {
  const digest = sha256(blob);
  const head = await send(`${registryUrl}/v2/${repository}/blobs/${digest}`, { method: 'HEAD' });
  if (head.status === 200) return;
  const started = await send(`${registryUrl}/v2/${repository}/blobs/uploads/`, { method: 'POST' });
  const location = started.headers.location;
  if (started.status !== 202 || location === undefined) {
    throw new Error(`pushing ${repository}@${digest}: upload POST answered ${started.status} ${started.body}`);
  }
  const target = new URL(location, registryUrl);
  target.searchParams.set('digest', digest);
  const finished = await send(target.toString(), {
    method: 'PUT',
    headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': String(blob.length) },
    payload: blob,
  });
  if (finished.status !== 201) throw new Error(`pushing ${repository}@${digest}: upload PUT answered ${finished.status} ${finished.body}`);
}

function splitReference(reference: string): { repository: string; tag: string } {
  const path = reference.slice(REAL_NODE_REGISTRY.length + 1);
  const colon = path.lastIndexOf(':');
  return { repository: path.slice(0, colon), tag: path.slice(colon + 1) };
}

function goArchitecture(): string {
  const names: Partial<Record<NodeJS.Architecture, string>> = {
    x64: 'amd64',
    arm64: 'arm64',
    arm: 'arm',
    ppc64: 'ppc64le',
    s390x: 's390x',
  };
  return names[process.arch] ?? process.arch;
}

function sha256(data: Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}
