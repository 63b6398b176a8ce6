// A member kind added by one descriptor and one table row (test/support/members/settings-member.ts:
// a ConfigMap per container that exists only in the tests) goes through create, adopt,
// drift, cleanup, remove, status and statuses$ by its rules alone. FakeKubernetes, an
// in-memory stand-in for the API server (unit test: test/integration/test-member.test.ts
// runs the same on the real control plane).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import { InformerRegistry } from '../../../src/informers/registry.js';
import { KINDS } from '../../../src/kube/kinds.js';
import { provision, provision$ } from '../../../src/workload/operations/provision.js';
import { remove } from '../../../src/workload/operations/remove.js';
import { status } from '../../../src/workload/reads/status.js';
import { statuses$ } from '../../../src/workload/reads/statuses.js';
import type { StatusEvent } from '../../../src/workload/reads/status-board.js';
import { FakeKubernetes, completeRollout, podOf, startRollout } from '../../support/fake-kube.js';
import { SETTINGS_TABLE, settingsOf } from '../../support/members/settings-member.js';

const input = { containerId: 42, nodeId: 7, hostname: 'web', image: 'nginx:1.27', cpus: 0.5, memoryMb: 256 };
const fastInformers = () => new InformerRegistry({ backoff: { initialMs: 5, maxMs: 20, factor: 2, jitter: 0 } });

/** Provisions `input` with the settings member, rolling the Deployment out as the controllers would. */
async function provisioned(fake: FakeKubernetes, informers: InformerRegistry): Promise<void> {
  const done = provision(fake, input, { informers, members: SETTINGS_TABLE });
  await vi.waitFor(() => expect(fake.get('deployments', 'web')).toBeDefined());
  startRollout(fake, 'web');
  const deployment = completeRollout(fake, 'web');
  fake.addPod(
    podOf(deployment, {
      phase: 'Running',
      podIP: '10.1.0.5',
      conditions: [{ type: 'Ready', status: 'True' }],
      containerStatuses: [{ name: 'web', image: 'nginx:1.27', imageID: '', ready: true, restartCount: 0, state: { running: {} } }],
    }),
  );
  await expect(done).resolves.toMatchObject({ providerId: 'apps/web', adopted: false });
}

describe('a member kind that is one descriptor and one table row', () => {
  it('is created after the Deployment, with the workload labels and the Deployment as its owner; status shows it', async () => {
    const fake = new FakeKubernetes('apps');
    await provisioned(fake, fastInformers());
    const settings = fake.get('configmaps', 'web-settings');
    const deployment = fake.get('deployments', 'web');
    expect(settings?.data).toEqual({ image: 'nginx:1.27' });
    expect(settings?.metadata?.labels).toEqual(deployment?.metadata?.labels);
    expect(settings?.metadata?.ownerReferences).toEqual([
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: deployment?.metadata?.uid },
    ]);
    const creates = fake.calls.filter((call) => call.method === 'create').map((call) => call.kind);
    expect(creates).toEqual(['deployments', 'configmaps']);
    const shown = await status(fake, 'apps/web', { members: SETTINGS_TABLE });
    expect(shown.state).toBe('running');
    expect(settingsOf(shown)).toEqual({ name: 'web-settings', present: true, image: 'nginx:1.27' });
    // The library's own table knows nothing of it.
    expect(settingsOf(await status(fake, 'apps/web'))).toBeUndefined();
  });

  it('is adopted when it is the same container’s; drift in it fails by its field and kind, nothing changed', async () => {
    const fake = new FakeKubernetes('apps');
    const informers = fastInformers();
    await provisioned(fake, informers);
    const again = await lastValueFrom(provision$(fake, input, { informers, members: SETTINGS_TABLE }).pipe(toArray()));
    expect(again.at(-1)).toMatchObject({ type: 'ready', adopted: true });
    fake.update('configmaps', 'web-settings', (map) => {
      map.data = { image: 'nginx:1.26' };
    });
    const drifted = provision(fake, input, { informers, members: SETTINGS_TABLE });
    await expect(drifted).rejects.toMatchObject({
      name: 'WorkloadDriftError',
      fields: [{ field: 'image', live: 'nginx:1.26', desired: 'nginx:1.27' }],
    });
    await expect(drifted).rejects.toThrow(/ConfigMap/);
    expect(fake.get('configmaps', 'web-settings')?.data).toEqual({ image: 'nginx:1.26' });
  });

  it('is deleted with the Deployment when the provisioning that created it fails', async () => {
    const fake = new FakeKubernetes('apps');
    const failed = provision(fake, input, { informers: fastInformers(), members: SETTINGS_TABLE, timeoutMs: 200 });
    await expect(failed).rejects.toMatchObject({
      name: 'RolloutTimeoutError',
      cleanup: { outcome: 'deleted', kinds: ['Deployment', 'ConfigMap'] },
    });
    expect(fake.get('configmaps', 'web-settings')).toBeUndefined();
    expect(fake.get('deployments', 'web')).toBeUndefined();
  });

  it('is removed with the workload; one of the name that is not the container’s is left untouched', async () => {
    const fake = new FakeKubernetes('apps');
    const informers = fastInformers();
    await provisioned(fake, informers);
    await expect(remove(fake, 'apps/web', { containerId: 42, informers, members: SETTINGS_TABLE })).resolves.toMatchObject({
      changed: true,
    });
    expect(fake.get('configmaps', 'web-settings')).toBeUndefined();
    expect(fake.get('deployments', 'web')).toBeUndefined();

    await provisioned(fake, informers);
    fake.update('configmaps', 'web-settings', (map) => {
      map.metadata = { ...map.metadata, labels: { team: 'b' } };
    });
    const removed = await remove(fake, 'apps/web', { containerId: 42, informers, members: SETTINGS_TABLE });
    expect(removed.left).toEqual([expect.objectContaining({ kind: 'ConfigMap', object: 'web-settings' })]);
    expect(fake.get('configmaps', 'web-settings')?.metadata?.labels).toEqual({ team: 'b' });
  });

  it('statuses$ follows it: its watch opens, and a change of it alone is a new status', async () => {
    const fake = new FakeKubernetes('apps');
    const informers = fastInformers();
    await provisioned(fake, informers);
    const events: StatusEvent[] = [];
    const subscription = statuses$(fake, { informers, members: SETTINGS_TABLE }).subscribe((event) => events.push(event));
    try {
      await vi.waitFor(() => expect(events.map((event) => settingsOf(event.status)?.present)).toEqual([true]));
      expect(fake.calls.some((call) => call.method === 'watch' && call.kind === 'configmaps')).toBe(true);
      fake.removeObject('configmaps', 'web-settings');
      await vi.waitFor(() => expect(events.map((event) => settingsOf(event.status)?.present)).toEqual([true, false]));
      expect(events.map((event) => event.status.state)).toEqual(['running', 'running']);
    } finally {
      subscription.unsubscribe();
    }
  });
});

describe("the README's list of where a new object goes", () => {
  const root = join(import.meta.dirname, '../../..');
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('### Where a new object of a workload goes');
  const section = readme.slice(start, readme.indexOf('The rest of the repository:', start));

  it('names files that exist', () => {
    const paths = [...section.matchAll(/\b((?:src|test)\/[\w./-]+\.ts)\b/g)].map((match) => match[1]!);
    expect(paths.length).toBeGreaterThan(5);
    for (const path of paths) expect(existsSync(join(root, path)), path).toBe(true);
  });

  it('names every rule of a descriptor, its status part included', () => {
    const source = readFileSync(join(root, 'src/members/member.ts'), 'utf8');
    const fieldsOf = (name: string): string[] => {
      const body = source.slice(
        source.indexOf(`export interface ${name}`),
        source.indexOf('\n}\n', source.indexOf(`export interface ${name}`)),
      );
      return [...body.matchAll(/^ {2}(?:readonly )?(\w+)\??[:(]/gm)].map((match) => match[1]!);
    };
    const rules = [...fieldsOf('MemberRules'), ...fieldsOf('MemberStatusRules'), ...fieldsOf('MemberWatch')];
    expect(rules).toEqual(expect.arrayContaining(['build', 'drift', 'watches', 'gate', 'fields', 'find']));
    for (const rule of rules) expect(section, rule).toContain(`\`${rule}\``);
  });

  it('is all the test kind needed: its descriptor reads only the kind table, the members and their types', () => {
    const descriptor = readFileSync(join(root, 'test/support/members/settings-member.ts'), 'utf8');
    const imports = [...descriptor.matchAll(/^import (type )?.* from '([^']+)';$/gm)];
    for (const [, typeOnly, path] of imports) {
      if (typeOnly) continue;
      expect(path, `a value import of ${path}`).toMatch(/^\.\.\/\.\.\/\.\.\/src\/(kube|members)\//);
    }
    expect(SETTINGS_TABLE.kinds.at(-1)).toBe('configmaps');
    expect(KINDS.configmaps.kind).toBe('ConfigMap');
  });
});
