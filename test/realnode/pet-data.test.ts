// A pet's files on the real node (issue 24): the library's claim, bound to a static local
// volume by the real PV controller and scheduler and mounted by the real kubelet, keeps
// what the container wrote through stop and start, restart and reconfigure (a new Pod each
// time, the same claim), and through a delete with keepData and a re-create; a plain
// delete removes the claim. With seed 'image', the image's files are on the volume at the
// first start, and the user's own version of one of them is what later starts see.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { CONTAINER_ID_LABEL, provision, remove } from '../../src/index.js';
import { apiFor, kubectl, kubectlJson } from '../support/kube.js';
import {
  HTTPD_PORT,
  REAL_NODE_IMAGES,
  REAL_NODE_STORAGE_CLASS,
  SEEDED_FILES,
  createRealNodeNamespace,
  eventuallyServes,
  offerLocalVolume,
  podsOf,
  servingSpec,
  startCountingSpec,
  startLinesAt,
  throughLifecycle,
} from '../support/real-node.js';

let namespace: string;
beforeAll(() => {
  namespace = createRealNodeNamespace('rn-data');
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

const timeoutMs = 90_000;
const storage = { sizeGb: 1, storageClass: REAL_NODE_STORAGE_CLASS, paths: ['/srv'] };

interface ClaimJson {
  readonly metadata: { readonly name: string; readonly uid: string };
  readonly spec: { readonly volumeName?: string };
  readonly status: { readonly phase?: string };
}

function claimsOf(containerId: number): ClaimJson[] {
  return kubectlJson<{ items: ClaimJson[] }>(['get', 'pvc', '-n', namespace, '-l', `${CONTAINER_ID_LABEL}=${containerId}`]).items;
}

function onePod(containerId: number): { uid: string; ip: string } {
  const pods = podsOf(namespace, containerId);
  expect(pods).toHaveLength(1);
  return { uid: pods[0]!.metadata.uid, ip: pods[0]!.status.podIP ?? '' };
}

describe('a pet’s files on the real node', () => {
  it('keeps a file through stop and start, restart, reconfigure and delete with keepData; a plain delete removes the claim', async () => {
    const spec = startCountingSpec({ dir: '/srv/www' }, { storage });
    const containerId = Number(spec.containerId);
    const url = (): string => `http://${onePod(containerId).ip}:${HTTPD_PORT}/starts.txt`;
    const volume = offerLocalVolume();
    const { providerId } = await provision(apiFor(), { namespace, ...spec }, { timeoutMs });
    const [claim] = claimsOf(containerId);
    expect(claim?.status.phase).toBe('Bound');
    expect(claim?.spec.volumeName).toBe(volume.name);
    const first = await startLinesAt(url(), 1);
    expect(first).toHaveLength(1);

    // Every start appends its line to the file on the volume: one line more after each step.
    let lines = first;
    const pods = new Set([onePod(containerId).uid]);
    await throughLifecycle(
      apiFor(),
      providerId,
      containerId,
      async (step) => {
        const pod = onePod(containerId).uid;
        expect(pods.has(pod), `${step}: a new Pod`).toBe(false);
        pods.add(pod);
        const now = await startLinesAt(url(), lines.length + 1);
        expect(now.slice(0, lines.length), `${step}: the earlier lines kept`).toEqual(lines);
        expect(now, `${step}: one line more`).toHaveLength(lines.length + 1);
        lines = now;
        expect(
          claimsOf(containerId).map((kept) => kept.metadata.uid),
          `${step}: the same claim`,
        ).toEqual([claim?.metadata.uid]);
      },
      timeoutMs,
    );

    const kept = await remove(apiFor(), providerId, { containerId, keepData: true, timeoutMs });
    expect(kept.storage).toBe('kept');
    expect(podsOf(namespace, containerId)).toEqual([]);
    expect(claimsOf(containerId).map((left) => left.metadata.uid)).toEqual([claim?.metadata.uid]);

    // A re-create of the same container re-attaches the kept claim: the same files.
    await provision(apiFor(), { namespace, ...spec }, { timeoutMs });
    const again = await startLinesAt(url(), lines.length + 1);
    expect(again.slice(0, lines.length)).toEqual(lines);
    expect(again).toHaveLength(lines.length + 1);
    expect(claimsOf(containerId).map((reattached) => reattached.spec.volumeName)).toEqual([volume.name]);

    const deleted = await remove(apiFor(), providerId, { containerId, timeoutMs });
    expect(deleted.storage).toBe('deleted');
    expect(claimsOf(containerId)).toEqual([]);
  });

  it('seeds the persisted paths from the image on the first start and keeps the user’s version of a file', async () => {
    // At the first start only, the script keeps a copy of the page the volume had (the
    // image's, if the seed ran) and writes the user's own; every start copies /etc/app.conf
    // where httpd serves it.
    const script = [
      '[ -f /srv/www/mine ] || { cp /srv/www/index.html /srv/www/first-start.html; echo "the user page" > /srv/www/index.html; touch /srv/www/mine; }',
      'cp /etc/app.conf /srv/www/app.conf',
    ].join('; ');
    const spec = servingSpec(
      { dir: '/srv/www', beforeServe: script },
      { image: REAL_NODE_IMAGES.seeded, storage: { ...storage, paths: ['/etc', '/srv'], seed: 'image' } },
    );
    const containerId = Number(spec.containerId);
    offerLocalVolume();
    const { providerId } = await provision(apiFor(), { namespace, ...spec }, { timeoutMs });
    const base = (): string => `http://${onePod(containerId).ip}:${HTTPD_PORT}`;

    expect(await eventuallyServes(`${base()}/first-start.html`)).toBe(SEEDED_FILES['srv/www/index.html']);
    expect(await eventuallyServes(`${base()}/app.conf`)).toBe(SEEDED_FILES['etc/app.conf']);
    expect(await eventuallyServes(`${base()}/index.html`)).toBe('the user page\n');

    await throughLifecycle(
      apiFor(),
      providerId,
      containerId,
      async (step) => {
        // The seed never overwrites: the user's page, and the first start's copy, stay.
        expect(await eventuallyServes(`${base()}/index.html`), step).toBe('the user page\n');
        expect(await eventuallyServes(`${base()}/first-start.html`), step).toBe(SEEDED_FILES['srv/www/index.html']);
        expect(await eventuallyServes(`${base()}/app.conf`), step).toBe(SEEDED_FILES['etc/app.conf']);
      },
      timeoutMs,
    );
    await remove(apiFor(), providerId, { containerId, timeoutMs });
    expect(claimsOf(containerId)).toEqual([]);
  });
});
