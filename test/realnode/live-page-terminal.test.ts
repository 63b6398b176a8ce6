/// <reference lib="dom" />
// The live page's terminal and log pane in a real headless Chromium against a real container
// on the real node (kubelet, containerd), through the UI server and the library backend as
// `kube-provision ui` runs them: the terminal answers `echo $HOSTNAME`, follows the page's
// size (`stty size`), survives 90 s idle, and closing the tab ends the shell in the container
// (seen from another exec); a page for another namespace cannot open one; the Logs pane
// shows a line the container writes.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execCommand, provision } from '../../src/index.js';
import { libraryBackend } from '../../src/ui/library-backend.js';
import { LiveHub } from '../../src/ui/live-hub.js';
import { startUiServer, type UiServer } from '../../src/ui/server.js';
import { launchBrowser } from '../support/browser.js';
import { apiFor, kubectl } from '../support/kube.js';
import { createRealNodeNamespace, realSpec, shellEntrypoint } from '../support/real-node.js';

const api = apiFor('admin');
// A container that writes a numbered line every second until deleted.
const WRITER = 'i=0; while true; do echo "page-log-line $i"; i=$((i+1)); sleep 1; done';

let browser: Browser;
let namespace: string;
let otherNamespace: string;
let providerId: string;
let hub: LiveHub;
let server: UiServer;
const serverLog: string[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  namespace = createRealNodeNamespace('rn-page');
  otherNamespace = createRealNodeNamespace('rn-page-other');
  providerId = (await provision(api, realSpec({ namespace, entrypoint: shellEntrypoint(WRITER) }), { timeoutMs: 120_000 })).providerId;
  hub = new LiveHub({ api, namespace, backend: libraryBackend() });
  server = await startUiServer({ hub, port: 0, log: (line) => serverLog.push(line) });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  hub?.close();
  for (const name of [namespace, otherNamespace]) if (name) kubectl(['delete', 'namespace', name, '--wait=false']);
});

async function openPage(url: string, width = 1280): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.snapshots === '1');
  return page;
}

/** The terminal's screen, one string per row, trailing blanks cut. */
const screen = (page: Page): Promise<string[]> =>
  page.$$eval('.xterm-rows > div', (rows) => rows.map((row) => (row.textContent ?? '').replace(/\s+$/, '')));

/** Types a line into the terminal and waits for a screen row that `answer` accepts. */
async function ask(page: Page, line: string, answer: (row: string) => boolean, timeoutMs = 15_000): Promise<string> {
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = (await screen(page)).find(answer);
    if (found !== undefined) return found;
    await page.waitForTimeout(100);
  }
  throw new Error(`no answer to ${JSON.stringify(line)} within ${timeoutMs} ms; the screen:\n${(await screen(page)).join('\n')}`);
}

describe('the live page on the real node', () => {
  it('its terminal answers echo $HOSTNAME, follows the page size, survives 90 s idle, and closing the tab ends the shell', async () => {
    const hostname = (await execCommand(api, providerId, ['sh', '-c', 'echo $HOSTNAME'])).stdout.trim();
    expect(hostname).not.toBe('');
    const page = await openPage(server.url);
    const row = `tr[data-provider-id="${providerId}"]`;
    await page.waitForSelector(`${row}[data-state="running"] button[data-action="terminal"]:not([hidden])`, { timeout: 30_000 });
    await page.click(`${row} button[data-action="terminal"]`);
    await page.waitForSelector('tr.pane-row[data-kind="terminal"][data-state="open"]', { timeout: 30_000 });
    // busybox has no bash: the terminal fell back to sh, and says so once it answered.
    await page.waitForFunction(
      () => /^sh in /.test(document.querySelector('tr.pane-row[data-kind="terminal"] .pane-status')?.textContent ?? ''),
      undefined,
      { timeout: 15_000 },
    );

    expect(await ask(page, 'echo $HOSTNAME', (text) => text === hostname)).toBe(hostname);

    const size = async (marker: string) => {
      const answer = await ask(page, `echo ${marker}=$(stty size)`, (text) => text.startsWith(`${marker}=`) && /^\S+=\d+ \d+$/.test(text));
      const [rows, columns] = answer.split('=')[1]!.split(' ').map(Number);
      return { rows: rows!, columns: columns! };
    };
    const wide = await size('wide');
    await page.setViewportSize({ width: 900, height: 900 });
    await expect.poll(async () => (await size(`narrow${Date.now()}`)).columns, { timeout: 15_000 }).toBeLessThan(wide.columns);

    // 95 s with nothing typed and nothing shown: the session is still there.
    await page.waitForTimeout(95_000);
    expect(await page.getAttribute('tr.pane-row[data-kind="terminal"]', 'data-state')).toBe('open');
    expect(await ask(page, 'echo alive-$((6*7))', (text) => text === 'alive-42')).toBe('alive-42');

    const pid = (await ask(page, 'echo shell-pid=$$', (text) => /^shell-pid=\d+$/.test(text))).split('=')[1]!;
    const alive = async () =>
      (await execCommand(api, providerId, ['sh', '-c', `test -d /proc/${pid} && echo alive || echo gone`])).stdout.trim();
    expect(await alive()).toBe('alive');
    await page.close();
    await expect.poll(alive, { timeout: 15_000, interval: 500 }).toBe('gone');
    await expect
      .poll(() => serverLog.find((line) => line.startsWith(`terminal ${providerId} `)), { timeout: 5_000 })
      .toMatch(/^terminal \S+ for 127\.0\.0\.1:\d+: \d+\.\ds, closed by the page$/);
    expect(serverLog.join('\n')).not.toContain('HOSTNAME');
  }, 240_000);

  it('its Logs pane shows a line the container writes', async () => {
    const page = await openPage(server.url);
    try {
      const row = `tr[data-provider-id="${providerId}"]`;
      await page.waitForSelector(`${row}[data-state="running"]`, { timeout: 30_000 });
      await page.click(`${row} button[data-action="logs"]`);
      await page.waitForFunction(
        () =>
          Array.from(document.querySelectorAll('.log-lines li')).some((item) =>
            /^page-log-line \d+$/.test(item.childNodes[1]?.textContent ?? ''),
          ),
        undefined,
        { timeout: 30_000 },
      );
      // Followed: a line written after the pane opened shows too.
      const last = await page.$$eval('.log-lines li', (items) => Number((items.at(-1)?.childNodes[1]?.textContent ?? '').split(' ')[1]));
      await page.waitForFunction(
        (after) =>
          Array.from(document.querySelectorAll('.log-lines li')).some(
            (item) => item.childNodes[1]?.textContent === `page-log-line ${after + 2}`,
          ),
        last,
        { timeout: 15_000 },
      );
    } finally {
      await page.close();
    }
  }, 60_000);

  it('a page for another namespace cannot open a terminal or a log of this one', async () => {
    const otherHub = new LiveHub({ api, namespace: otherNamespace, backend: libraryBackend() });
    const otherLog: string[] = [];
    const otherServer = await startUiServer({ hub: otherHub, port: 0, log: (line) => otherLog.push(line) });
    const page = await openPage(otherServer.url);
    try {
      const [name] = providerId.split('/').slice(1);
      const tried = await page.evaluate(
        async ([namespaceOfWorkload, workload]) => {
          const path = `/api/workloads/${namespaceOfWorkload}/${workload}`;
          const closed = await new Promise<number>((resolve) => {
            const socket = new WebSocket(`ws://${location.host}${path}/terminal`);
            socket.addEventListener('close', (event) => resolve(event.code));
          });
          const logs = await fetch(`${path}/logs`);
          return { closed, logs: { status: logs.status, body: (await logs.json()) as { name: string } } };
        },
        [namespace, name!] as const,
      );
      // The upgrade is answered 403 (a browser sees that as 1006) and the log 403, by name.
      expect(tried.closed).toBe(1006);
      expect(tried.logs).toEqual({ status: 403, body: expect.objectContaining({ name: 'OtherNamespaceError' }) });
      // No session was opened: the server logged none.
      expect(otherLog).toEqual([]);
    } finally {
      await page.close();
      await otherServer.close();
      otherHub.close();
    }
  }, 60_000);
});
