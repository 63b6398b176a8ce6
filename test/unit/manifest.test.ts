import type { V1Container, V1Deployment } from '../../src/kube/objects.js';
import { describe, expect, it } from 'vitest';
import { InvalidOptionError, InvalidSpecError } from '../../src/errors/input.js';
import {
  CONTAINER_ID_LABEL,
  MANAGED_LABEL,
  MANAGED_SELECTOR,
  NODE_ID_LABEL,
  containerIdOf,
  ownershipLabels,
} from '../../src/input/labels.js';
import { buildDeployment } from '../../src/members/deployment/manifest.js';
import { parseWorkloadSpec } from '../../src/input/workload-spec.js';
import type { WorkloadSpec } from '../../src/input/workload-spec.js';

const DIGEST = `sha256:${'9f'.repeat(32)}`;

function spec(overrides: Record<string, unknown> = {}): WorkloadSpec {
  return parseWorkloadSpec({
    containerId: 1234,
    nodeId: 5,
    hostname: 'my-app',
    image: 'registry.example.com:5000/team/app:v1.2.3',
    cpus: 2,
    memoryMb: 1024,
    env: { PORT: '8080' },
    entrypoint: "docker-entrypoint.sh postgres -c 'shared_buffers=256MB'",
    ...overrides,
  });
}

function onlyContainer(deployment: V1Deployment): V1Container {
  const containers = deployment.spec?.template.spec?.containers ?? [];
  expect(containers).toHaveLength(1);
  return containers[0] as V1Container;
}

describe('buildDeployment: a Manager Container maps to a Deployment', () => {
  it('Manager Container maps to an apps/v1 Deployment named after the hostname', () => {
    const deployment = buildDeployment(spec());
    expect(deployment.apiVersion).toBe('apps/v1');
    expect(deployment.kind).toBe('Deployment');
    expect(deployment.metadata?.name).toBe('my-app');
    expect(onlyContainer(deployment).name).toBe('my-app');
    expect(deployment.spec?.template.spec?.hostname).toBe('my-app');
  });

  it('Deployment starts with one replica, recreated (never two copies at once)', () => {
    const deployment = buildDeployment(spec());
    expect(deployment.spec?.replicas).toBe(1);
    expect(deployment.spec?.strategy).toEqual({ type: 'Recreate' });
    expect(deployment.spec?.revisionHistoryLimit).toBe(2);
  });

  it('OCI image is passed directly to Kubernetes, without a pull policy override', () => {
    const container = onlyContainer(buildDeployment(spec()));
    expect(container.image).toBe('registry.example.com:5000/team/app:v1.2.3');
    expect(container).not.toHaveProperty('imagePullPolicy');
  });

  it('OCI image is passed directly to Kubernetes: a digest reference is kept verbatim', () => {
    const image = `ghcr.io/org/app:1.0@${DIGEST}`;
    expect(onlyContainer(buildDeployment(spec({ image }))).image).toBe(image);
  });

  it('CPU is mapped correctly (limits and requests, Guaranteed QoS)', () => {
    expect(onlyContainer(buildDeployment(spec({ cpus: 2 }))).resources?.limits?.cpu).toBe('2000m');
    const container = onlyContainer(buildDeployment(spec({ cpus: 0.5 })));
    expect(container.resources?.limits?.cpu).toBe('500m');
    expect(container.resources?.requests?.cpu).toBe('500m');
  });

  it('Memory is mapped correctly (limits and requests, Guaranteed QoS)', () => {
    const container = onlyContainer(buildDeployment(spec({ memoryMb: 4096 })));
    expect(container.resources?.limits?.memory).toBe('4096Mi');
    expect(container.resources?.requests?.memory).toBe('4096Mi');
    expect(container.resources?.requests).toEqual(container.resources?.limits);
  });

  it('Environment variables are applied, sorted by name, empty values kept', () => {
    const container = onlyContainer(buildDeployment(spec({ env: { ZED: 'z', ALPHA: '', MID: 'm=1' } })));
    expect(container.env).toEqual([
      { name: 'ALPHA', value: '' },
      { name: 'MID', value: 'm=1' },
      { name: 'ZED', value: 'z' },
    ]);
  });

  it('Environment variables: none given means no env field', () => {
    expect(onlyContainer(buildDeployment(spec({ env: {} })))).not.toHaveProperty('env');
  });

  it('Entrypoint/command is applied as command, quotes respected', () => {
    const container = onlyContainer(buildDeployment(spec({ args: ['--verbose'] })));
    expect(container.command).toEqual(['docker-entrypoint.sh', 'postgres', '-c', 'shared_buffers=256MB']);
    expect(container.args).toEqual(['--verbose']);
  });

  it('Entrypoint/command: no entrypoint means no command (the image Entrypoint runs) and no args', () => {
    const container = onlyContainer(buildDeployment(spec({ entrypoint: null })));
    expect(container).not.toHaveProperty('command');
    expect(container).not.toHaveProperty('args');
  });

  it('Manager ownership labels are added to the Deployment AND the pod template', () => {
    const deployment = buildDeployment(spec());
    const expected = {
      [MANAGED_LABEL]: 'true',
      [NODE_ID_LABEL]: '5',
      [CONTAINER_ID_LABEL]: '1234',
      'app.kubernetes.io/name': 'my-app',
      'app.kubernetes.io/managed-by': 'kube-provisioner',
    };
    expect(deployment.metadata?.labels).toEqual(expected);
    expect(deployment.spec?.template.metadata?.labels).toEqual(expected);
    expect(MANAGED_LABEL).toBe('org.mieweb.opensource-server.managed');
  });

  it('selector matches the template labels and keys only on the container-id label', () => {
    const deployment = buildDeployment(spec());
    const selector = deployment.spec?.selector.matchLabels ?? {};
    expect(selector).toEqual({ [CONTAINER_ID_LABEL]: '1234' });
    const templateLabels = deployment.spec?.template.metadata?.labels ?? {};
    for (const [key, value] of Object.entries(selector)) expect(templateLabels[key]).toBe(value);
  });

  it('configured namespace: the spec namespace wins, then options.namespace, then "default"', () => {
    expect(buildDeployment(spec({ namespace: 'from-spec' }), { namespace: 'from-config' }).metadata?.namespace).toBe('from-spec');
    expect(buildDeployment(spec(), { namespace: 'from-config' }).metadata?.namespace).toBe('from-config');
    expect(buildDeployment(spec()).metadata?.namespace).toBe('default');
  });

  it('configured namespace: an invalid configured namespace is rejected', () => {
    expect(() => buildDeployment(spec(), { namespace: 'Not_Valid' })).toThrow(InvalidSpecError);
  });

  it('progressDeadlineSeconds defaults to 600 and can be set; non-positive or fractional values throw', () => {
    expect(buildDeployment(spec()).spec?.progressDeadlineSeconds).toBe(600);
    expect(buildDeployment(spec(), { progressDeadlineSeconds: 120 }).spec?.progressDeadlineSeconds).toBe(120);
    for (const bad of [0, -5, 1.5, Number.NaN]) {
      expect(() => buildDeployment(spec(), { progressDeadlineSeconds: bad })).toThrow(InvalidOptionError);
    }
  });

  it('minReadySeconds defaults to 3 (a Pod must stay Ready that long to count) and can be set; a bad value throws naming it', () => {
    expect(buildDeployment(spec()).spec?.minReadySeconds).toBe(3);
    expect(buildDeployment(spec(), { minReadySeconds: 0 }).spec?.minReadySeconds).toBe(0);
    expect(buildDeployment(spec(), { minReadySeconds: 30 }).spec?.minReadySeconds).toBe(30);
    // The API server wants the progress deadline above it: a 1 s deadline gets 0 by default.
    expect(buildDeployment(spec(), { progressDeadlineSeconds: 1 }).spec?.minReadySeconds).toBe(0);
    expect(buildDeployment(spec(), { progressDeadlineSeconds: 2 }).spec?.minReadySeconds).toBe(1);
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 31]) {
      expect(() => buildDeployment(spec(), { minReadySeconds: bad })).toThrow(/^minReadySeconds must be/);
    }
    const error = (() => {
      try {
        buildDeployment(spec(), { minReadySeconds: 120, progressDeadlineSeconds: 120 });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as InvalidOptionError).option).toBe('minReadySeconds');
    expect((error as Error).message).toBe('minReadySeconds must be less than progressDeadlineSeconds (120 >= 120)');
  });

  it('keeps the workload away from Service env vars and API credentials', () => {
    const podSpec = buildDeployment(spec()).spec?.template.spec;
    expect(podSpec?.enableServiceLinks).toBe(false);
    expect(podSpec?.automountServiceAccountToken).toBe(false);
  });

  it('is deterministic: two builds are deep-equal, whatever the env key order', () => {
    const first = buildDeployment(spec({ env: { B: '2', A: '1', C: '3' } }));
    const second = buildDeployment(spec({ env: { C: '3', A: '1', B: '2' } }));
    expect(second).toEqual(first);
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
  });

  it('equals its JSON round trip (no undefined fields)', () => {
    for (const deployment of [buildDeployment(spec()), buildDeployment(spec({ entrypoint: null, env: {} }))]) {
      expect(JSON.parse(JSON.stringify(deployment))).toStrictEqual(deployment);
    }
  });

  it('does not share mutable state with the spec or between builds', () => {
    const input = spec();
    const deployment = buildDeployment(input);
    onlyContainer(deployment).command?.push('extra');
    deployment.metadata!.labels!.extra = 'x';
    expect(input.entrypoint).toEqual(['docker-entrypoint.sh', 'postgres', '-c', 'shared_buffers=256MB']);
    expect(buildDeployment(input).metadata?.labels).not.toHaveProperty('extra');
    expect(deployment.spec?.template.metadata?.labels).not.toHaveProperty('extra');
  });
});

describe('ownership labels', () => {
  it('selects exactly the managed=true objects and reads the container ID back', () => {
    expect(MANAGED_SELECTOR).toBe('org.mieweb.opensource-server.managed=true');
    expect(ownershipLabels({ containerId: '9', nodeId: '3' })).toEqual({
      'org.mieweb.opensource-server.managed': 'true',
      'org.mieweb.opensource-server.node-id': '3',
      'org.mieweb.opensource-server.container-id': '9',
    });
    expect(containerIdOf(buildDeployment(spec()))).toBe('1234');
    expect(containerIdOf({ metadata: { labels: { other: 'x' } } })).toBeUndefined();
    expect(containerIdOf({})).toBeUndefined();
  });
});
