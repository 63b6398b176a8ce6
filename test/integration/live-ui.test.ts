/// <reference lib="dom" />
// The live page in a real headless Chromium (Debian's package, driven by playwright-core)
// against the real control plane: the UI server, its LiveHub and the page's script as they
// ship. Statuses come from the library's statuses$; operations are the real provision$
// (the action-button test uses recording stand-ins, so it checks the page's wiring only).
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { AppsV1Api, KubeConfig, type V1Deployment as ClientNodeDeployment } from '@kubernetes/client-node';
import type { Browser, Page } from 'playwright-core';
import { concat, lastValueFrom, map, of, timer, toArray, type Observable } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultImage } from '../../scripts/control-plane/stages.js';
import { KubernetesApi } from '../../src/kube/kubernetes-api.js';
import { parseWorkloadSpec } from '../../src/input/workload-spec.js';
import type { OperationEvent, UiBackend } from '../../src/ui/backend.js';
import { LiveHub } from '../../src/ui/live-hub.js';
import { startUiServer, type UiServer } from '../../src/ui/server.js';
import { buildDeployment } from '../../src/members/deployment/manifest.js';
import { libraryBackend } from '../../src/ui/library-backend.js';
import { launchBrowser } from '../support/browser.js';
import { unreachableKubeconfig } from '../support/unreachable-kubeconfig.js';
import { clusterEnv } from '../support/cluster-env.js';

const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(clusterEnv().kubeconfigPath);
/** A second, independent client for the test's own writes. */
const apps = kubeConfig.makeApiClient(AppsV1Api);
import { apiFor, createNamespace, kubectl, sampleSpec, uniqueName } from '../support/kube.js';
import { statuses$ } from '../../src/workload/reads/statuses.js';
import { claimOf, localStorage } from '../support/storage.js';
import { start } from '../../src/workload/operations/start.js';
import { stop } from '../../src/workload/operations/stop.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
// KUBE_PROVISIONER_UPDATE_SCREENSHOT=1 writes the committed docs/ui-screenshot.png.
const screenshotPath =
  process.env.KUBE_PROVISIONER_UPDATE_SCREENSHOT === '1'
    ? `${root}docs/ui-screenshot.png`
    : `${tmpdir()}/kube-provisioner-ui-screenshot.png`;

// Statuses, the cluster's reachability and provisioning from the library.
const backend: UiBackend = { statuses$, connection$: libraryBackend().connection$!, provision$: libraryBackend().provision$! };

/** The page's words for an event: the same mapping web/live.js uses. */
function describeForPage(event: OperationEvent & { message?: string; durationMs?: number }): string {
  if (event.type === 'created') return 'created Deployment';
  if (event.type === 'adopted') return 'adopted existing Deployment (same container-id)';
  if (event.type === 'ready') return `ready in ${((event.durationMs ?? 0) / 1000).toFixed(1)}s`;
  return event.message ?? event.type;
}

interface Setup {
  readonly namespace: string;
  readonly api: KubernetesApi;
  readonly hub: LiveHub;
  server: UiServer;
}

async function setUp(prefix: string): Promise<Setup> {
  const namespace = createNamespace(prefix);
  const api = apiFor('admin', { namespace });
  const hub = new LiveHub({ api, namespace, backend });
  const server = await startUiServer({ hub, port: 0 });
  return { namespace, api, hub, server };
}

async function tearDown(setup: Setup | undefined): Promise<void> {
  if (!setup) return;
  await setup.server.close();
  setup.hub.close();
  kubectl(['delete', 'namespace', setup.namespace, '--wait=false']);
}

async function openPage(browser: Browser, url: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1360, height: 820 } });
  await page.goto(url);
  await page.waitForSelector('body[data-connection="live"]', { timeout: 15_000 });
  await page.waitForFunction(() => document.body.dataset.snapshots === '1');
  return page;
}

/** The lines the page shows for these events: like the CLI, a repeat of the line before is left out. */
function pageLines(events: readonly OperationEvent[]): string[] {
  return events.map(describeForPage).filter((text, index, all) => text !== all[index - 1]);
}

/** The lines of an operation's card, without their times. */
async function operationLines(page: Page, operationId: string): Promise<string[]> {
  return page.$$eval(`[data-operation-id="${operationId}"] li`, (items) =>
    items.map((item) => item.childNodes[1]?.textContent ?? item.textContent ?? ''),
  );
}

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe('live page: a cluster that cannot be reached (issue 26, item 9)', () => {
  it('says so in the client words within seconds, and never "live" nor "No managed workloads"', async () => {
    const { dir, path: kubeconfigPath } = unreachableKubeconfig({ token: 'kq7ZtW2xVb9LmN4pRs8e', namespace: 'nowhere' });
    const api = KubernetesApi.fromConfig({ kubeconfigPath });
    const hub = new LiveHub({ api, namespace: 'nowhere', backend: libraryBackend() });
    const server = await startUiServer({ hub, port: 0 });
    const page = await browser.newPage();
    try {
      // From the first script on: was "No managed workloads" or "live" ever shown?
      await page.addInitScript(() => {
        const seen = { noWorkloads: false, live: false };
        (window as unknown as { seen: typeof seen }).seen = seen;
        setInterval(() => {
          const empty = document.getElementById('no-workloads');
          if (empty && !empty.hidden) seen.noWorkloads = true;
          if (document.body?.dataset.connection === 'live') seen.live = true;
        }, 10);
      });
      const started = Date.now();
      await page.goto(server.url);
      await page.waitForSelector('body[data-connection="unreachable"]', { timeout: 15_000 });
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(await page.textContent('#connection')).toMatch(/^cannot reach the cluster: .*127\.0\.0\.1:1.*unreachable.*\(retrying\)$/);
      expect(await page.isHidden('#no-workloads')).toBe(true);
      // A second, to be sure it stays so while the informers retry.
      await page.waitForTimeout(1_000);
      expect(await page.getAttribute('body', 'data-connection')).toBe('unreachable');
      expect(await page.evaluate(() => (window as unknown as { seen: { noWorkloads: boolean; live: boolean } }).seen)).toEqual({
        noWorkloads: false,
        live: false,
      });
    } finally {
      await page.close();
      await server.close();
      hub.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('live page: one namespace, one page', () => {
  let setup: Setup;
  let page: Page;
  let navigations = 0;

  beforeAll(async () => {
    setup = await setUp('it-ui');
    page = await openPage(browser, setup.server.url);
    page.on('framenavigated', () => (navigations += 1));
    // Every change of a row's state, in order, for the "flips without a reload" check.
    await page.evaluate(() => {
      const log: string[] = [];
      (window as unknown as { stateLog: string[] }).stateLog = log;
      new MutationObserver((records) => {
        for (const record of records) {
          const row = record.target as HTMLElement;
          if (record.attributeName === 'data-state' && row.tagName === 'TR') log.push(`${row.dataset.providerId} ${row.dataset.state}`);
        }
      }).observe(document.querySelector('#workloads tbody')!, { attributes: true, subtree: true, attributeFilter: ['data-state'] });
    });
  });
  afterAll(async () => {
    await page?.close();
    await tearDown(setup);
  });

  it('shows a provisioning’s progress lines in order and flips its status to running without a reload', async () => {
    const spec = sampleSpec({ hostname: 'web' });
    const operation = setup.hub.provision(spec);
    const events = await lastValueFrom(operation.events$.pipe(toArray()));
    expect(events.at(-1)?.type).toBe('ready');

    const card = `[data-operation-id="${operation.id}"]`;
    await page.waitForSelector(`${card}[data-state="succeeded"]`, { timeout: 15_000 });
    expect(await operationLines(page, operation.id)).toEqual(pageLines(events));

    const row = `tr[data-provider-id="${operation.providerId}"]`;
    await page.waitForSelector(`${row}[data-state="running"]`, { timeout: 15_000 });
    const log = await page.evaluate(() => (window as unknown as { stateLog: string[] }).stateLog);
    const states = log.filter((line) => line.startsWith(`${operation.providerId} `)).map((line) => line.split(' ')[1]);
    // The row appeared while the rollout was under way, then flipped in place.
    expect(states[0]).toBe('creating');
    expect(states.at(-1)).toBe('running');
    expect(await page.$eval(`${row} td:nth-child(4)`, (cell) => cell.textContent)).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(navigations).toBe(0);
  });

  it("shows a container's volume in its Volume cell: the claim's phase, size and class, as kubectl sees the claim", async () => {
    const storage = localStorage({ volumes: 1, sizeGi: 1, prefix: 'it-ui-vol' });
    try {
      const operation = setup.hub.provision(
        sampleSpec({ hostname: 'pet', storage: { sizeGb: 1, storageClass: storage.className, paths: ['/srv'] } }),
      );
      expect((await lastValueFrom(operation.events$.pipe(toArray()))).at(-1)?.type).toBe('ready');
      const row = `tr[data-provider-id="${operation.providerId}"]`;
      await page.waitForSelector(`${row}[data-state="running"] td.volume[data-phase="Bound"]`, { timeout: 15_000 });
      const claim = claimOf(setup.namespace, 'pet')!;
      const cell = await page.$eval(`${row} td.volume`, (node) => ({
        phase: node.querySelector('.volume-phase')?.textContent,
        size: node.querySelector('.volume-size')?.textContent,
        storageClass: node.querySelector('.volume-class')?.textContent,
        resize: (node as HTMLElement).dataset.resize,
        title: (node as HTMLElement).title,
      }));
      expect(cell).toEqual({
        phase: claim.status.phase,
        size: claim.status.capacity?.storage,
        storageClass: claim.spec.storageClassName,
        resize: 'none',
        title: `bound to ${claim.spec.volumeName}: ${claim.status.capacity?.storage} of ${storage.className}`,
      });
      // A container without storage has no volume to show.
      const plain = `tr[data-provider-id="${setup.namespace}/web"] td.volume .volume-phase`;
      expect(await page.$eval(plain, (node) => node.textContent)).toBe('–');
      expect(navigations).toBe(0);
    } finally {
      storage.remove();
    }
  });

  it('shows each row’s Service address, its ports and whether its endpoint is ready, through stop and start (issue 23)', async () => {
    const spec = sampleSpec({ hostname: uniqueName('ported'), ports: [{ port: 22 }, { port: 8080, name: 'web' }] });
    const operation = setup.hub.provision(spec);
    const events = await lastValueFrom(operation.events$.pipe(toArray()));
    expect(events.at(-1)?.type).toBe('ready');
    const name = String(spec.hostname);
    const clusterIp = kubectl(['get', 'service', name, '-n', setup.namespace, '-o', 'jsonpath={.spec.clusterIP}']).trim();
    expect(clusterIp).toMatch(/^\d+\.\d+\.\d+\.\d+$/);

    const row = `tr[data-provider-id="${operation.providerId}"]`;
    const cell = `${row} td.service`;
    const shown = () =>
      page.$eval(cell, (node) => ({
        endpoint: (node as HTMLElement).dataset.endpoint,
        address: node.querySelector('.address')?.textContent,
        ports: node.querySelector('.ports')?.textContent,
        words: node.querySelector('.endpoint')?.textContent,
      }));
    await page.waitForSelector(`${row}[data-state="running"] td.service[data-endpoint="ready"]`, { timeout: 15_000 });
    expect(await shown()).toEqual({ endpoint: 'ready', address: clusterIp, ports: '22/tcp, 8080/tcp (web)', words: 'endpoint ready' });
    // The Pod IP column shows the Pod's, which is not the address.
    const podIp = await page.$eval(`${row} td:nth-child(4)`, (node) => node.textContent);
    expect(podIp).not.toBe(clusterIp);

    // Stopped: the same address, and the page says no endpoint is ready (the controller's slice agrees).
    await stop(setup.api, operation.providerId, { timeoutMs: 60_000 });
    await page.waitForSelector(`${row}[data-state="offline"] td.service[data-endpoint="not-ready"]`, { timeout: 15_000 });
    expect(await shown()).toMatchObject({ address: clusterIp, words: 'no ready endpoint' });
    const ready = kubectl(['get', 'endpointslices', '-n', setup.namespace, '-l', `kubernetes.io/service-name=${name}`, '-o', 'json']);
    expect(ready).not.toMatch(/"ready":\s*true/);

    // Started again: ready at the same address.
    await start(setup.api, operation.providerId, { timeoutMs: 60_000 });
    await page.waitForSelector(`${row}[data-state="running"] td.service[data-endpoint="ready"]`, { timeout: 15_000 });
    expect(await shown()).toMatchObject({ address: clusterIp, words: 'endpoint ready' });

    // A container without ports: the page says it has no address, never its Pod IP.
    const portless = `tr[data-provider-id="${setup.namespace}/web"] td.service`;
    expect(await page.$eval(portless, (node) => [(node as HTMLElement).dataset.endpoint, node.textContent])).toEqual([
      'none',
      'no addressno ports, no Service',
    ]);
    expect(navigations).toBe(0);
  });

  it('shows a failing image’s reason, in the kubelet’s words, within seconds', async () => {
    const operation = setup.hub.provision(sampleSpec({ hostname: 'broken', image: faultImage('image-not-found') }));
    const card = `[data-operation-id="${operation.id}"]`;
    await page.waitForSelector(`${card}[data-state="failed"]`, { timeout: 15_000 });
    expect(await page.$eval(`${card} .error`, (node) => node.textContent)).toMatch(/^RolloutFailedError: .*ErrImagePull.*not found/);
    const row = `tr[data-provider-id="${operation.providerId}"]`;
    await page.waitForSelector(`${row}[data-state="failed"]`, { timeout: 15_000 });
    expect(await page.$eval(`${row} .detail`, (node) => node.textContent)).toMatch(/ErrImagePull.*not found/);
    expect(navigations).toBe(0);

    await page.waitForTimeout(300); // let the last frame paint
    mkdirSync(`${root}docs`, { recursive: true });
    const png = await page.screenshot({ path: screenshotPath, fullPage: true });
    expect(png.subarray(1, 4).toString()).toBe('PNG');
  });

  it('after the UI server restarts, the page reconnects and shows the events it missed', async () => {
    const port = setup.server.port;
    const appliedBefore = Number(await page.evaluate(() => document.body.dataset.appliedEvents));
    await setup.server.close();
    await page.waitForSelector('body[data-connection="reconnecting"]', { timeout: 15_000 });

    // While no server runs, a whole provisioning happens.
    const operation = setup.hub.provision(sampleSpec({ hostname: uniqueName('missed') }));
    const events = await lastValueFrom(operation.events$.pipe(toArray()));
    expect(await page.$(`[data-operation-id="${operation.id}"]`)).toBeNull();

    setup.server = await startUiServer({ hub: setup.hub, port });
    await page.waitForSelector('body[data-connection="live"]', { timeout: 15_000 });
    await page.waitForSelector(`[data-operation-id="${operation.id}"][data-state="succeeded"]`, { timeout: 15_000 });
    expect(await operationLines(page, operation.id)).toEqual(pageLines(events));
    await page.waitForSelector(`tr[data-provider-id="${operation.providerId}"][data-state="running"]`, { timeout: 15_000 });
    // Resumed after its Last-Event-ID: the missed events arrived one by one, no snapshot.
    expect(await page.evaluate(() => document.body.dataset.snapshots)).toBe('1');
    expect(Number(await page.evaluate(() => document.body.dataset.appliedEvents))).toBeGreaterThanOrEqual(
      appliedBefore + events.length + 2,
    );
    expect(await page.evaluate(() => document.body.dataset.lastEventId)).toBe(setup.hub.channel.lastEventId);
    expect(navigations).toBe(0);
  });

  it('closing the tab leaves the provisioning running and the server with no viewer left', async () => {
    const viewersBefore = setup.hub.channel.viewerCount;
    const tab = await openPage(browser, setup.server.url);
    expect(setup.hub.channel.viewerCount).toBe(viewersBefore + 1);

    // One pull back-off, then success: several seconds in which to close the tab.
    const operation = setup.hub.provision(sampleSpec({ hostname: uniqueName('kept'), image: faultImage('transient-pull-backoff') }));
    const done = lastValueFrom(operation.events$.pipe(toArray()));
    await tab.waitForSelector(`[data-operation-id="${operation.id}"] li[data-type="created"]`, { timeout: 15_000 });
    await tab.close();
    expect(setup.hub.runningOperations).toBe(1);

    await expect.poll(() => setup.hub.channel.viewerCount, { timeout: 5_000 }).toBe(viewersBefore);
    const events = await done;
    expect(events.at(-1)?.type).toBe('ready');
    expect(
      events.some(
        (event) =>
          (event as { pod?: { reason?: string } }).pod?.reason === 'ImagePullBackOff' ||
          (event as { pod?: { reason?: string } }).pod?.reason === 'ErrImagePull',
      ),
    ).toBe(true);
    expect(setup.hub.runningOperations).toBe(0);
    expect(setup.hub.channel.subscribed).toBe(true);

    await page.close();
    await expect.poll(() => setup.hub.channel.viewerCount, { timeout: 5_000 }).toBe(0);
  });
});

describe('live page: action buttons', () => {
  // The buttons' wiring (page -> POST -> backend operation -> operation card), with
  // STAND-IN lifecycle operations that only report: the library's start$/stop$/restart$/
  // remove$ replace them when they land.
  const calls: string[] = [];
  const standInOperation =
    (action: string) =>
    (_api: unknown, providerId: string): Observable<OperationEvent> => {
      calls.push(`${action} ${providerId}`);
      const [namespace = '', name = ''] = providerId.split('/');
      const base = { namespace, name, providerId };
      return concat(
        of({ type: 'progress', at: new Date().toISOString(), ...base, message: `${action} requested (stand-in)` }),
        timer(1500).pipe(map(() => ({ type: 'progress', at: new Date().toISOString(), ...base, message: `${action} done (stand-in)` }))),
      );
    };
  let setup: Setup;
  let page: Page;
  let providerId: string;

  beforeAll(async () => {
    const namespace = createNamespace('it-ui-actions');
    const api = apiFor('admin', { namespace });
    const hub = new LiveHub({
      api,
      namespace,
      backend: {
        ...backend,
        start$: standInOperation('start'),
        stop$: standInOperation('stop'),
        restart$: standInOperation('restart'),
        remove$: standInOperation('remove'),
      },
    });
    setup = { namespace, api, hub, server: await startUiServer({ hub, port: 0 }) };
    const operation = hub.provision(sampleSpec({ hostname: 'acted-on' }));
    providerId = operation.providerId;
    await lastValueFrom(operation.events$.pipe(toArray()));
    page = await openPage(browser, setup.server.url);
  });
  afterAll(async () => {
    await page?.close();
    await tearDown(setup);
  });

  it('each button runs its operation once and shows it; Delete asks first', async () => {
    const row = `tr[data-provider-id="${providerId}"]`;
    await page.waitForSelector(`${row}[data-state="running"]`, { timeout: 15_000 });
    // A running workload: no Start (and no Terminal nor Logs: this backend has neither).
    expect(
      await page.$$eval(`${row} button`, (buttons) =>
        buttons.filter((button) => !(button as HTMLButtonElement).hidden).map((button) => button.textContent),
      ),
    ).toEqual(['Stop', 'Restart', 'Delete']);

    await page.click(`${row} button[data-action="restart"]`);
    const card = '.operation:has(.kind:text-is("restart"))';
    await page.waitForSelector(`${card}[data-state="running"]`, { timeout: 5_000 });
    // While it runs, the row's buttons are off.
    expect(await page.$eval(`${row} button[data-action="stop"]`, (button) => (button as HTMLButtonElement).disabled)).toBe(true);
    await page.waitForSelector(`${card}[data-state="succeeded"]`, { timeout: 5_000 });
    expect(await page.$$eval(`${card} li`, (items) => items.map((item) => item.childNodes[1]?.textContent))).toEqual([
      'restart requested (stand-in)',
      'restart done (stand-in)',
    ]);
    await page.waitForSelector(`${row} button[data-action="stop"]:not([disabled])`, { timeout: 5_000 });

    // Delete asks; dismissing runs nothing, accepting runs it.
    page.once('dialog', (dialog) => void dialog.dismiss());
    await page.click(`${row} button[data-action="remove"]`);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click(`${row} button[data-action="remove"]`);
    await page.waitForSelector('.operation:has(.kind:text-is("remove"))[data-state="succeeded"]', { timeout: 5_000 });
    expect(calls).toEqual([`restart ${providerId}`, `remove ${providerId}`]);
  });
});

describe('live page: 200 workloads', () => {
  let setup: Setup;
  let page: Page;

  beforeAll(async () => {
    setup = await setUp('it-ui-many');
    page = await openPage(browser, setup.server.url);
  });
  afterAll(async () => {
    await page?.close();
    await tearDown(setup);
  });

  it('render and update without the page falling behind', async () => {
    const count = 200;
    const items = Array.from({ length: count }, (_, i) =>
      buildDeployment(parseWorkloadSpec(sampleSpec({ containerId: 10_000 + i, hostname: `many-${String(i).padStart(3, '0')}` })), {
        namespace: setup.namespace,
      }),
    );
    await Promise.all(
      items.map((body) => apps.createNamespacedDeployment({ namespace: setup.namespace, body: body as ClientNodeDeployment })),
    );

    const allIn = (state: string) =>
      page.waitForFunction(
        ([n, s]) => document.querySelectorAll(`#workloads tbody tr[data-state="${s}"]`).length === n,
        [count, state] as const,
        { timeout: 90_000, polling: 250 },
      );
    await allIn('running');

    expect(await page.$$eval('#workloads tbody tr', (rows) => rows.length)).toBe(count);
    expect(await page.$eval('#workload-count', (node) => node.textContent)).toBe(String(count));

    // 200 scale writes at once, from this process, while the hub streams.
    await Promise.all(
      items.map((item) =>
        apps.replaceNamespacedDeploymentScale({
          name: item.metadata!.name!,
          namespace: setup.namespace,
          body: { metadata: { name: item.metadata!.name!, namespace: setup.namespace }, spec: { replicas: 0 } },
        }),
      ),
    );
    await allIn('offline');

    // Caught up: the page has applied the server's newest event, and never had to resync.
    await expect
      .poll(() => page.evaluate(() => document.body.dataset.lastEventId), { timeout: 10_000 })
      .toBe(setup.hub.channel.lastEventId);
    expect(await page.evaluate(() => [document.body.dataset.snapshots, document.body.dataset.gaps])).toEqual(['1', '0']);
    const shown = await page.$$eval('#workloads tbody tr', (rows) => rows.map((row) => [row.dataset.providerId, row.dataset.state]));
    expect(Object.fromEntries(shown)).toEqual(
      Object.fromEntries(
        items.map((item) => [
          `${setup.namespace}/${item.metadata!.name}`,
          setup.hub.status(`${setup.namespace}/${item.metadata!.name}`)?.status.state,
        ]),
      ),
    );

    await apps.deleteCollectionNamespacedDeployment({ namespace: setup.namespace });
    await page.waitForFunction(() => document.querySelectorAll('#workloads tbody tr').length === 0, undefined, { timeout: 60_000 });
  });
});
