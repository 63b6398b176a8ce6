// The live page's server and `kube-provision ui` on the real control plane, over plain
// HTTP (no browser): what it prints, what it serves, the guards a loopback server without
// authentication needs, and that it stops cleanly. Also the Express example in
// docs/live-ui.md, run as written. Statuses come from the stand-in (test/support).
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultImage } from '../../scripts/control-plane/stages.js';
import { runUiCommand } from '../../src/cli/commands/ui.js';
import type { UiBackend } from '../../src/ui/backend.js';
import { provision$ } from '../../src/workload/operations/provision.js';
import { clusterEnv } from '../support/cluster-env.js';
import { createNamespace, kubectl, kubectlJson, sampleSpec, uniqueName } from '../support/kube.js';
import { readEventStream, type SseEvent } from '../support/sse-client.js';
import { statuses$ } from '../../src/workload/reads/statuses.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const backend: UiBackend = { statuses$, provision$ };

let namespace: string;
beforeAll(() => {
  namespace = createNamespace('it-ui-server');
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

/** An HTTP request with full control of the Host header (fetch does not allow setting it). */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

function startUi(argv: string[]) {
  const controller = new AbortController();
  const stdout: string[] = [];
  const stderr: string[] = [];
  let onUrl: (url: string) => void = () => {};
  const listening = new Promise<string>((resolve) => (onUrl = resolve));
  const exit = runUiCommand(
    argv,
    { stdout: (line) => stdout.push(line), stderr: (line) => stderr.push(line), signal: controller.signal },
    { backend, onListening: onUrl },
  );
  return { controller, stdout, stderr, listening: Promise.race([listening, exit.then((code) => `exited ${code}`)]), exit };
}

describe('kube-provision ui (in-process, stand-in statuses)', () => {
  it('serves the page on 127.0.0.1, says it has no authentication, and stops cleanly', async () => {
    const ui = startUi(['--port', '0', '--kubeconfig', clusterEnv().kubeconfigPath, '-n', namespace]);
    const url = await ui.listening;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(ui.stdout[0]).toBe(`Live page for namespace ${namespace}: ${url}`);
    expect(ui.stdout[1]).toMatch(/^No authentication: listening on 127\.0\.0\.1 only/);

    const page = await raw(url);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).toContain('No authentication');
    expect((await raw(`${url}live.js`)).status).toBe(200);
    expect((await raw(`${url}live.css`)).headers['content-type']).toBe('text/css; charset=utf-8');

    const state = JSON.parse((await raw(`${url}api/state`)).body) as { namespace: string; actions: string[]; canProvision: boolean };
    expect(state).toMatchObject({ namespace, actions: [], canProvision: true });

    // Another site's name for this address (DNS rebinding) gets nothing.
    const rebound = await raw(url, { headers: { Host: `evil.example:${new URL(url).port}` } });
    expect(rebound.status).toBe(403);
    // A POST without the header a cross-origin page cannot send without a preflight.
    const forged = await raw(`${url}api/workloads/${namespace}/x/start`, { method: 'POST' });
    expect(forged.status).toBe(403);
    const headers = { 'X-Kube-Provision-UI': '1', 'Content-Type': 'application/json' };
    // This backend has no start$: the action is refused with its name.
    const missing = await raw(`${url}api/workloads/${namespace}/x/start`, { method: 'POST', headers });
    expect(missing.status).toBe(501);
    expect(JSON.parse(missing.body)).toMatchObject({ name: 'InvalidOptionError', message: expect.stringContaining('start$') });
    // Bad input names its fields, and nothing is created.
    const invalid = await raw(`${url}api/workloads`, { method: 'POST', headers, body: JSON.stringify({ hostname: 'Not_A_Name' }) });
    expect(invalid.status).toBe(400);
    expect(JSON.parse(invalid.body)).toMatchObject({
      name: 'InvalidSpecError',
      issues: expect.arrayContaining([expect.objectContaining({ path: 'hostname' })]),
    });
    expect(kubectlJson<{ items: unknown[] }>(['get', 'deployments', '-n', namespace]).items).toEqual([]);

    // A provisioning through the server, watched over its event stream.
    const hostname = uniqueName('via-post');
    const created = await raw(`${url}api/workloads`, { method: 'POST', headers, body: JSON.stringify(sampleSpec({ hostname })) });
    expect(created.status).toBe(202);
    const { operationId } = JSON.parse(created.body) as { operationId: string };
    const stream = await readEventStream(`${url}api/events`, {
      stop: (event) => event.event === 'operation-ended' && (JSON.parse(event.data) as { operationId: string }).operationId === operationId,
    });
    expect(stream.contentType).toBe('text/event-stream; charset=utf-8');
    expect(stream.events[0]!.event).toBe('snapshot');
    expect(JSON.parse(stream.events.at(-1)!.data)).toMatchObject({ operationId, state: 'succeeded' });

    ui.controller.abort();
    expect(await ui.exit).toBe(0);
    await expect(raw(url)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('rejects a bad --port, and a port in use, with exit code 2 before serving anything', async () => {
    const bad = startUi(['--port', '99999', '--kubeconfig', clusterEnv().kubeconfigPath]);
    expect(await bad.exit).toBe(2);
    expect(bad.stderr[0]).toMatch(/--port must be a whole number from 0 to 65535/);

    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const busy = startUi(['--port', String(port), '--kubeconfig', clusterEnv().kubeconfigPath]);
      expect(await busy.exit).toBe(2);
      expect(busy.stderr[0]).toContain(`port ${port} on 127.0.0.1 is in use`);
    } finally {
      taken.close();
    }
  });
});

describe('kube-provision ui (the built command, as a process)', () => {
  it('prints the loopback URL, serves the page, and exits 0 on its own after SIGINT', async () => {
    const child = spawn(
      process.execPath,
      ['dist/cli/main.js', 'ui', '--port', '0', '--kubeconfig', clusterEnv().kubeconfigPath, '-n', namespace],
      {
        cwd: root,
      },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        // Lines may arrive in separate chunks: wait for the last one.
        const match = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(stdout);
        if (match && stdout.includes('Press Ctrl-C to stop.')) resolve(match[1]!);
      });
      void exited.then((code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    expect(stdout).toContain('No authentication');
    expect((await raw(url)).status).toBe(200);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(stderr).toBe('');
  });
});

describe('examples/express-live.cjs (the Express example in docs/live-ui.md)', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill('SIGKILL');
  });

  it('streams one provisioning to several viewers (one create: all see the same events and IDs); a viewer leaving aborts nothing', async () => {
    child = spawn(process.execPath, ['examples/express-live.cjs', clusterEnv().kubeconfigPath, namespace], {
      cwd: root,
      env: { ...process.env, PORT: '0' },
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const base = await new Promise<string>((resolve, reject) => {
      child!.stdout!.on('data', (chunk: Buffer) => {
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(chunk.toString());
        if (match) resolve(match[1]!);
      });
      child!.once('exit', (code) => reject(new Error(`example exited ${code}: ${stderr}`)));
    });

    const invalid = await fetch(`${base}/jobs`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"cpus":-1}' });
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as { name: string }).name).toBe('InvalidSpecError');

    const hostname = uniqueName('express');
    // One pull back-off first: long enough for a viewer to leave in the middle.
    const spec = sampleSpec({ hostname, image: faultImage('transient-pull-backoff') });
    const posted = await fetch(`${base}/jobs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(spec),
    });
    expect(posted.status).toBe(202);
    const { events: path } = (await posted.json()) as { events: string };

    const isEnd = (event: SseEvent) => event.event === 'stream-end' || event.event === 'stream-error';
    const [leaver, ...stayers] = await Promise.all([
      readEventStream(`${base}${path}`, { stop: (event) => event.event === 'created' }),
      readEventStream(`${base}${path}`, { stop: isEnd }),
      readEventStream(`${base}${path}`, { stop: isEnd }),
    ]);
    expect(leaver.events.map((event) => event.event)).toEqual(['created']);
    for (const stayer of stayers) {
      const names = stayer.events.map((event) => event.event);
      expect(names[0]).toBe('created');
      expect(names.slice(-2)).toEqual(['ready', 'stream-end']);
    }
    expect(stayers[0].events).toEqual(stayers[1].events); // the same events, the same IDs
    const live = kubectlJson<{ status: { availableReplicas?: number } }>(['get', 'deployment', hostname, '-n', namespace]);
    expect(live.status.availableReplicas).toBe(1);

    // A tab that reconnects after the end is told there is nothing more (204).
    const again = await readEventStream(`${base}${path}`, { lastEventId: stayers[0].events.at(-1)!.id! });
    expect(again.status).toBe(204);
    // One that missed the middle gets exactly the rest.
    const resumed = await readEventStream(`${base}${path}`, { lastEventId: leaver.events[0]!.id!, stop: isEnd });
    expect(resumed.events).toEqual(stayers[0].events.slice(1));

    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child!.once('exit', resolve));
    expect(code).toBe(0);
    expect(stderr).toBe('');
  });
});
