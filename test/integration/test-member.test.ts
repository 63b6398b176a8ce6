// A member kind added by one descriptor and one table row (test/support/members/settings-member.ts:
// a ConfigMap per container that exists only in the tests), on the real control plane
// (kube-apiserver, controller manager, scheduler; KWOK kubelets): create, adopt, drift,
// cleanup, remove, status and statuses$ by its rules alone. kubectl, an independent
// client, checks what is stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InformerRegistry } from '../../src/informers/registry.js';
import { provision } from '../../src/workload/operations/provision.js';
import { remove } from '../../src/workload/operations/remove.js';
import { status } from '../../src/workload/reads/status.js';
import type { StatusEvent } from '../../src/workload/reads/status-board.js';
import { statuses$ } from '../../src/workload/reads/statuses.js';
import { faultImage } from '../../scripts/control-plane/stages.js';
import { apiFor, createNamespace, kubectl, kubectlJson, sampleSpec } from '../support/kube.js';
import { SETTINGS_TABLE, settingsOf } from '../support/members/settings-member.js';

interface StoredConfigMap {
  metadata: { labels?: Record<string, string>; ownerReferences?: { kind: string; name: string; uid: string }[] };
  data?: Record<string, string>;
}

let namespace: string;
const informers = new InformerRegistry();
beforeAll(() => {
  namespace = createNamespace('it-member');
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

const options = () => ({ informers, members: SETTINGS_TABLE, timeoutMs: 90_000 });

function storedSettings(workload: string): StoredConfigMap | undefined {
  const found = kubectlJson<{ items: (StoredConfigMap & { metadata: { name: string } })[] }>(['get', 'configmaps', '-n', namespace]);
  return found.items.find((item) => item.metadata.name === `${workload}-settings`);
}

async function until(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a member kind that is one descriptor and one table row, on the real control plane', () => {
  it('is created, owned by the Deployment, shown by status and statuses$, adopted, judged for drift, and removed', async () => {
    const api = apiFor();
    const input = sampleSpec({ namespace });
    const name = input.hostname as string;
    await expect(provision(api, input, options())).resolves.toMatchObject({ adopted: false });
    const stored = storedSettings(name);
    const deployment = kubectlJson<{ metadata: { uid: string; labels: Record<string, string> } }>([
      'get',
      'deployment',
      name,
      '-n',
      namespace,
    ]);
    expect(stored?.data).toEqual({ image: input.image });
    expect(stored?.metadata.labels).toEqual(deployment.metadata.labels);
    expect(stored?.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Deployment', name, uid: deployment.metadata.uid })]);

    const shown = await status(api, `${namespace}/${name}`, { members: SETTINGS_TABLE });
    expect(shown.state).toBe('running');
    expect(settingsOf(shown)).toEqual({ name: `${name}-settings`, present: true, image: input.image });

    const events: StatusEvent[] = [];
    const subscription = statuses$(api, { namespace, informers, members: SETTINGS_TABLE }).subscribe((event) => {
      if (event.name === name) events.push(event);
    });
    try {
      await until(() => events.some((event) => settingsOf(event.status)?.present === true));
      // Adopted as it is; then a change of it alone is drift, named by its field and kind, and nothing is changed.
      await expect(provision(api, input, options())).resolves.toMatchObject({ adopted: true });
      kubectl(['patch', 'configmap', `${name}-settings`, '-n', namespace, '--type=merge', '-p', '{"data":{"image":"changed"}}']);
      await until(() => events.some((event) => settingsOf(event.status)?.image === 'changed'));
      const drifted = provision(api, input, options());
      await expect(drifted).rejects.toMatchObject({ name: 'WorkloadDriftError', fields: [{ field: 'image', live: 'changed' }] });
      await expect(drifted).rejects.toThrow(/ConfigMap/);
      expect(storedSettings(name)?.data).toEqual({ image: 'changed' });
    } finally {
      subscription.unsubscribe();
    }

    await expect(
      remove(api, `${namespace}/${name}`, { containerId: input.containerId as number, informers, members: SETTINGS_TABLE }),
    ).resolves.toMatchObject({
      changed: true,
    });
    expect(storedSettings(name)).toBeUndefined();
  });

  it('is deleted with the Deployment when the provisioning that created it fails', async () => {
    const input = sampleSpec({ namespace, image: faultImage('image-not-found') });
    const error = await provision(apiFor(), input, options()).catch((failure: unknown) => failure);
    expect(error).toMatchObject({
      name: 'RolloutFailedError',
      reason: 'ErrImagePull',
      cleanup: { outcome: 'deleted', kinds: ['Deployment', 'ConfigMap'] },
    });
    expect(storedSettings(input.hostname as string)).toBeUndefined();
  });
});
