// The real node's system images and their runtime handler, as files (no node runs here):
// the image configs a system container is judged by (systemd's entrypoint and stop signal,
// sshd's port), the key layer, and containerd's `cgroup-writable` handler.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';

import { CGROUP_WRITABLE_HANDLER, cgroupWritableScript, containerdConfig } from '../../scripts/control-plane/real-node/configs.js';
import type { NodePaths } from '../../scripts/control-plane/real-node/configs.js';
import { REAL_NODE_IMAGES, SYSTEM_IMAGE_SUITES, buildSystemImages } from '../../scripts/control-plane/real-node/images.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A bin dir as build.sh leaves it, with a stand-in layer per suite. */
function binDirWithSuites(): string {
  const bin = mkdtempSync(join(tmpdir(), 'kp-system-images-'));
  dirs.push(bin);
  for (const suite of SYSTEM_IMAGE_SUITES) {
    mkdirSync(join(bin, `system-image-${suite}`));
    writeFileSync(join(bin, `system-image-${suite}`, 'layer.tar.gz'), `layer of ${suite}`);
    writeFileSync(join(bin, `system-image-${suite}`, 'diff-id'), `sha256:${suite}\n`);
  }
  return bin;
}

interface ImageConfigJson {
  readonly config: { Entrypoint?: string[]; StopSignal?: string; ExposedPorts?: Record<string, object> };
  readonly rootfs: { diff_ids: string[] };
}

describe('the system images', () => {
  it('boot /sbin/init, expose 22/tcp and stop with SIGRTMIN+3, except the one without a stop signal', () => {
    const images = buildSystemImages(binDirWithSuites(), 'ssh-ed25519 AAAAkey root@test');
    const byName = new Map(images.map((image) => [image.reference, JSON.parse(image.config.toString()) as ImageConfigJson]));
    expect([...byName.keys()]).toEqual([
      REAL_NODE_IMAGES.systemBookworm,
      REAL_NODE_IMAGES.systemTrixie,
      REAL_NODE_IMAGES.systemNoStopSignal,
    ]);
    for (const config of byName.values()) {
      expect(config.config.Entrypoint).toEqual(['/sbin/init']);
      expect(config.config.ExposedPorts).toEqual({ '22/tcp': {} });
    }
    expect(byName.get(REAL_NODE_IMAGES.systemBookworm)?.config.StopSignal).toBe('SIGRTMIN+3');
    expect(byName.get(REAL_NODE_IMAGES.systemTrixie)?.config.StopSignal).toBe('SIGRTMIN+3');
    expect(byName.get(REAL_NODE_IMAGES.systemNoStopSignal)?.config).not.toHaveProperty('StopSignal');
    expect(byName.get(REAL_NODE_IMAGES.systemTrixie)?.rootfs.diff_ids[0]).toBe('sha256:trixie');
    expect(byName.get(REAL_NODE_IMAGES.systemNoStopSignal)?.rootfs.diff_ids[0]).toBe('sha256:bookworm');
  });

  it('put the key as root’s only authorized key, readable by root alone', () => {
    const [image] = buildSystemImages(binDirWithSuites(), 'ssh-ed25519 AAAAkey root@test\n');
    const tar = gunzipSync(image!.layers[1]!.blob);
    const names = [0, 512, 1024].map((offset) => tar.toString('utf8', offset, offset + 100).replace(/\0.*$/s, ''));
    expect(names).toEqual(['root/', 'root/.ssh/', 'root/.ssh/authorized_keys']);
    const modes = [0, 512, 1024].map((offset) => tar.toString('utf8', offset + 100, offset + 107));
    expect(modes).toEqual(['0000700', '0000700', '0000600']);
    expect(tar.toString('utf8', 1536, 1536 + 31)).toBe('ssh-ed25519 AAAAkey root@test\n\0');
  });
});

describe('the cgroup-writable runtime handler', () => {
  it('is a runc handler of containerd whose binary is the wrapper script', () => {
    const paths = { cgroupWritableRuntime: '/work/cgroup-writable', runcRoot: '/work/runc' } as NodePaths;
    const config = containerdConfig(paths, { ociRuntime: '/usr/sbin/runc', cniPluginDir: '/usr/lib/cni' });
    const block = config.slice(config.indexOf(`runtimes.${CGROUP_WRITABLE_HANDLER}]`));
    expect(block).toContain('runtime_type = "io.containerd.runc.v2"');
    expect(block).toContain('BinaryName = "/work/cgroup-writable"');
    expect(block).toContain('SystemdCgroup = false');
  });

  it('runs the wrapper with the real runtime and every argument, quoted for the shell', () => {
    expect(cgroupWritableScript("/cache/it's/cgroup-writable", '/usr/sbin/runc')).toBe(
      `#!/bin/sh\nexec '/cache/it'\\''s/cgroup-writable' --runtime '/usr/sbin/runc' "$@"\n`,
    );
  });
});
