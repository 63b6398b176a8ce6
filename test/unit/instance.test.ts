// The instance label: two Manager installations sharing a namespace own disjoint sets of
// workloads. The spec, the manifest, the selectors and the adoption check, with the fake
// API (unit test; test/integration/manager.test.ts runs two instances on the real control plane).
import { firstValueFrom } from 'rxjs';
import { vi, describe, expect, it } from 'vitest';
import { ConflictError } from '../../src/errors/api.js';
import { InvalidSpecError } from '../../src/errors/input.js';
import { InformerRegistry } from '../../src/informers/registry.js';
import { INSTANCE_LABEL, MANAGED_SELECTOR, belongsToInstance, managedSelector, ownershipLabels } from '../../src/input/labels.js';
import { parseWorkloadSpec } from '../../src/input/workload-spec.js';
import { buildDeployment } from '../../src/members/deployment/manifest.js';
import { provision } from '../../src/workload/operations/provision.js';
import { podSnapshots } from '../../src/members/deployment/member.js';
import { FakeKubernetes, completeRollout, podOf, startRollout } from '../support/fake-kube.js';

const input = { containerId: 7, nodeId: 1, hostname: 'web-a', image: 'nginx:1.27', cpus: 0.5, memoryMb: 256 };
const informers = () => new InformerRegistry({ backoff: { initialMs: 5, maxMs: 20, factor: 2, jitter: 0 } });

describe('the instance in the spec', () => {
  it('is optional, and a label value when given', () => {
    expect(parseWorkloadSpec(input)).not.toHaveProperty('instance');
    expect(parseWorkloadSpec({ ...input, instance: null })).not.toHaveProperty('instance');
    expect(parseWorkloadSpec({ ...input, instance: 'manager-prod.1' }).instance).toBe('manager-prod.1');
  });

  it.each(['', 'has space', 'x'.repeat(64), '-leading', 42])('refuses %j naming the field', (instance) => {
    let error: unknown;
    try {
      parseWorkloadSpec({ ...input, instance });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidSpecError);
    expect((error as InvalidSpecError).issues.map((issue) => issue.path)).toEqual(['instance']);
  });
});

describe('the instance in the Deployment', () => {
  it('labels the Deployment and its pod template, and is part of the pod selector', () => {
    const deployment = buildDeployment(parseWorkloadSpec({ ...input, instance: 'dev' }));
    expect(deployment.metadata?.labels?.[INSTANCE_LABEL]).toBe('dev');
    expect(deployment.spec?.template.metadata?.labels?.[INSTANCE_LABEL]).toBe('dev');
    expect(deployment.spec?.selector).toEqual({
      matchLabels: { 'org.mieweb.opensource-server.container-id': '7', [INSTANCE_LABEL]: 'dev' },
    });
  });

  it('without an instance, nothing changes: no label, the selector is the container-id alone', () => {
    const deployment = buildDeployment(parseWorkloadSpec(input));
    expect(deployment.metadata?.labels).not.toHaveProperty(INSTANCE_LABEL);
    expect(deployment.spec?.template.metadata?.labels).not.toHaveProperty(INSTANCE_LABEL);
    expect(deployment.spec?.selector).toEqual({ matchLabels: { 'org.mieweb.opensource-server.container-id': '7' } });
    expect(ownershipLabels({ containerId: '7', nodeId: '1' })).not.toHaveProperty(INSTANCE_LABEL);
  });
});

describe('selectors', () => {
  it('an instance selects its own workloads; no instance selects the managed ones without an instance label', () => {
    expect(managedSelector('dev')).toBe(`${MANAGED_SELECTOR},${INSTANCE_LABEL}=dev`);
    expect(managedSelector()).toBe(`${MANAGED_SELECTOR},!${INSTANCE_LABEL}`);
  });

  it('belongsToInstance applies the same rule to an object read by name', () => {
    const of = (labels: Record<string, string>) => ({ metadata: { labels } });
    const managed = { 'org.mieweb.opensource-server.managed': 'true' };
    expect(belongsToInstance(of({ ...managed, [INSTANCE_LABEL]: 'dev' }), 'dev')).toBe(true);
    expect(belongsToInstance(of({ ...managed, [INSTANCE_LABEL]: 'dev' }), 'test')).toBe(false);
    expect(belongsToInstance(of({ ...managed, [INSTANCE_LABEL]: 'dev' }), undefined)).toBe(false);
    expect(belongsToInstance(of(managed), undefined)).toBe(true);
    expect(belongsToInstance(of(managed), 'dev')).toBe(false);
    expect(belongsToInstance(of({ [INSTANCE_LABEL]: 'dev' }), 'dev')).toBe(false);
  });
});

describe('provisioning with an instance (fake API)', () => {
  it("an instance's Pod informer holds only its own Pods, whatever their container-id", async () => {
    const fake = new FakeKubernetes();
    for (const [hostname, instance] of [
      ['web-a', 'dev'],
      ['web-b', 'test'],
      ['web-c', undefined],
    ] as const) {
      const deployment = buildDeployment(parseWorkloadSpec({ ...input, hostname, ...(instance ? { instance } : {}) }), {
        namespace: 'default',
      });
      fake.addPod(podOf(deployment, { phase: 'Running' }, hostname));
    }
    const registry = informers();
    const podsOf = async (instance: string | undefined) =>
      (await firstValueFrom(podSnapshots(registry, fake, 'default', '7', instance))).map((pod) => pod.metadata?.name?.split('-').at(-1));
    expect(await podsOf('dev')).toEqual(['a']);
    expect(await podsOf('test')).toEqual(['b']);
    expect(await podsOf(undefined)).toEqual(['c']);
  });

  it("never sees another instance's failing Pod with the same container-id", async () => {
    const fake = new FakeKubernetes();
    // Instance "test" already has container 7, and its Pod cannot pull its image.
    const other = await fake.create(
      'deployments',
      'default',
      buildDeployment(parseWorkloadSpec({ ...input, hostname: 'web-b', instance: 'test' })),
    );
    fake.addPod(
      podOf(
        other,
        {
          phase: 'Pending',
          containerStatuses: [
            {
              name: 'web-b',
              image: 'x',
              imageID: '',
              ready: false,
              restartCount: 0,
              state: { waiting: { reason: 'ErrImagePull', message: 'not found' } },
            },
          ],
        },
        'other',
      ),
    );
    const pending = provision(fake, { ...input, instance: 'dev' }, { informers: informers() });
    await vi.waitFor(() => expect(fake.activeWatches).toBe(2));
    startRollout(fake, 'web-a');
    completeRollout(fake, 'web-a');
    await expect(pending).resolves.toMatchObject({ providerId: 'default/web-a', adopted: false });
  });

  it('adopts only a Deployment of its own instance; the same name and container-id of another instance is a ConflictError', async () => {
    const fake = new FakeKubernetes();
    await fake.create('deployments', 'default', buildDeployment(parseWorkloadSpec({ ...input, instance: 'test' })));
    const before = structuredClone(fake.get('deployments', 'web-a'));
    for (const instance of ['dev', undefined]) {
      const error = await provision(fake, { ...input, instance }, { informers: informers() }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConflictError);
      expect((error as Error).message).toContain('belongs to container-id 7 of instance test, not container-id 7');
    }
    expect(fake.get('deployments', 'web-a')).toEqual(before);
    completeRollout(fake, 'web-a');
    await expect(provision(fake, { ...input, instance: 'test' }, { informers: informers() })).resolves.toMatchObject({ adopted: true });
  });
});
