// An image that cannot seed a pet's volume, on the real node (issue 24): a scratch-like
// image without /bin/sh (built into the local registry by
// scripts/control-plane/real-node/images.ts). With the default seed ('image') the real
// kubelet runs the seeding init container and cannot: the provisioning fails within
// seconds with SeedUnsupported naming the image, and the cleanup removes the claim and the
// Deployment it created. With the explicit seed 'empty' the same image runs, its persisted
// paths empty on a bound claim. kubectl checks what is left. (An image with a shell but no
// `cp` is tested on real directories in test/unit/members/claim/seed-command.test.ts: a busybox without a
// `cp` link is no such image, its sh runs the cp applet.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { CONTAINER_ID_LABEL, RolloutFailedError, provision, remove } from '../../src/index.js';
import { apiFor, kubectl, kubectlJson } from '../support/kube.js';
import { REAL_NODE_IMAGES, REAL_NODE_STORAGE_CLASS, createRealNodeNamespace, offerLocalVolume, realSpec } from '../support/real-node.js';

let namespace: string;
beforeAll(() => {
  namespace = createRealNodeNamespace('rn-seed');
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

const timeoutMs = 90_000;
/** "Within seconds": well before the provisioning's own bound, a pull and a first start included. */
const NAMED_WITHIN_MS = 30_000;
const storage = { sizeGb: 1, storageClass: REAL_NODE_STORAGE_CLASS, paths: ['/srv'] };

const left = (kind: string, containerId: number): unknown[] =>
  kubectlJson<{ items: unknown[] }>(['get', kind, '-n', namespace, '-l', `${CONTAINER_ID_LABEL}=${containerId}`]).items;

describe('an image without /bin/sh, on the real node', () => {
  const image = REAL_NODE_IMAGES.noShell;

  it('the default seed: SeedUnsupported naming the image within seconds; the claim and the Deployment this run created are removed', async () => {
    const spec = realSpec({ image, storage });
    const containerId = Number(spec.containerId);
    offerLocalVolume();
    const started = Date.now();
    const error = await provision(apiFor(), { namespace, ...spec }, { timeoutMs }).catch((e: unknown) => e);
    const tookMs = Date.now() - started;
    expect(error).toBeInstanceOf(RolloutFailedError);
    expect(error).toMatchObject({ reason: 'SeedUnsupported' });
    const message = (error as Error).message;
    expect(message).toContain(`image ${image} has no /bin/sh to seed the volume`);
    // The way out is named: the explicit option.
    expect(message).toMatch(/seed/);
    expect(tookMs).toBeLessThan(NAMED_WITHIN_MS);
    process.stderr.write(`[seed] no /bin/sh: SeedUnsupported in ${tookMs} ms\n`);
    expect((error as { cleanup?: unknown }).cleanup).toMatchObject({ claim: 'deleted' });
    expect(left('deployments', containerId)).toEqual([]);
    expect(left('pvc', containerId)).toEqual([]);
  });

  it("with seed 'empty': it runs on a bound claim, with no seeding init container", async () => {
    const spec = realSpec({ image, storage: { ...storage, seed: 'empty' } });
    const containerId = Number(spec.containerId);
    offerLocalVolume();
    const { providerId } = await provision(apiFor(), { namespace, ...spec }, { timeoutMs });
    const claims = kubectlJson<{ items: { status: { phase?: string } }[] }>([
      'get',
      'pvc',
      '-n',
      namespace,
      '-l',
      `${CONTAINER_ID_LABEL}=${containerId}`,
    ]).items;
    expect(claims.map((claim) => claim.status.phase)).toEqual(['Bound']);
    const pods = kubectlJson<{ items: { spec: { initContainers?: unknown[] }; status: { phase?: string } }[] }>([
      'get',
      'pods',
      '-n',
      namespace,
      '-l',
      `${CONTAINER_ID_LABEL}=${containerId}`,
    ]).items;
    expect(pods).toHaveLength(1);
    expect(pods[0]!.spec.initContainers ?? []).toEqual([]);
    expect(pods[0]!.status.phase).toBe('Running');
    await remove(apiFor(), providerId, { containerId, timeoutMs });
    expect(left('pvc', containerId)).toEqual([]);
  });
});
