// The Role in docs/kube-provisioner-role.yaml, applied as a cluster admin would, is all a user
// needs: the `restricted` user of the test cluster (no grants of its own) runs every
// operation with only that Role bound to it. And each verb in it is needed: with one taken
// out, the operation that uses it fails with a ForbiddenError naming that verb.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForbiddenError } from '../../src/errors/api.js';
import { provision } from '../../src/workload/operations/provision.js';
import { reconfigure } from '../../src/workload/operations/reconfigure.js';
import { remove } from '../../src/workload/operations/remove.js';
import { restart } from '../../src/workload/operations/restart.js';
import { setPorts } from '../../src/workload/operations/set-ports.js';
import { start } from '../../src/workload/operations/start.js';
import { stop } from '../../src/workload/operations/stop.js';
import { apiFor, createNamespace, kubectl, sampleSpec } from '../support/kube.js';

const ROLE_FILE = fileURLToPath(new URL('../../docs/kube-provisioner-role.yaml', import.meta.url));
const TIMEOUT = { timeoutMs: 60_000 };

const namespaces: string[] = [];
function namespaceWithRole(roleYaml: string): string {
  const namespace = createNamespace('it-rbac');
  namespaces.push(namespace);
  kubectl(['apply', '-n', namespace, '-f', '-'], { input: roleYaml });
  kubectl(['create', 'rolebinding', 'kube-provisioner', '-n', namespace, '--role', 'kube-provisioner', '--user', 'restricted']);
  return namespace;
}

afterAll(() => {
  for (const namespace of namespaces) kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

describe('RBAC: the documented Role', () => {
  let namespace: string;
  beforeAll(() => {
    namespace = namespaceWithRole(readFileSync(ROLE_FILE, 'utf8'));
  });

  it('without it, the restricted user may not even read: ForbiddenError naming the verb', async () => {
    const bare = createNamespace('it-rbac-none');
    namespaces.push(bare);
    const error = await start(apiFor('restricted'), `${bare}/anything`, TIMEOUT).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error).toMatchObject({ verb: 'get', resource: 'deployments' });
  });

  it('with it bound, every operation works for the restricted user', async () => {
    const api = apiFor('restricted');
    const spec = sampleSpec({ namespace, ports: [{ port: 22 }] });
    const { providerId, address } = await provision(api, spec, TIMEOUT);
    expect(address).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    await expect(setPorts(api, providerId, [{ port: 22 }, { port: 8080 }], TIMEOUT)).resolves.toMatchObject({ changed: true, address });
    await expect(stop(api, providerId, TIMEOUT)).resolves.toMatchObject({ changed: true });
    await expect(reconfigure(api, providerId, { env: { MODE: 'x' } }, TIMEOUT)).resolves.toMatchObject({ changed: true, replicas: 0 });
    await expect(start(api, providerId, TIMEOUT)).resolves.toMatchObject({ changed: true });
    await expect(restart(api, providerId, TIMEOUT)).resolves.toMatchObject({ changed: true, running: true });
    await expect(reconfigure(api, providerId, { cpus: 0.5 }, { ...TIMEOUT, rollbackOnFailure: true })).resolves.toMatchObject({
      changed: true,
    });
    await expect(
      provision(
        api,
        { ...spec, image: 'docker.io/library/nginx:1.28', env: { MODE: 'x' }, ports: [{ port: 22 }] },
        { ...TIMEOUT, onDrift: 'reconfigure' },
      ),
    ).resolves.toMatchObject({ adopted: true });
    await expect(remove(api, providerId, { containerId: spec.containerId as number, ...TIMEOUT })).resolves.toMatchObject({
      changed: true,
    });
  });
});

describe('RBAC: each verb of the Role is needed', () => {
  const without = (verb: string): string =>
    readFileSync(ROLE_FILE, 'utf8').replace(
      "verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete']",
      `verbs: [${['get', 'list', 'watch', 'create', 'patch', 'delete']
        .filter((each) => each !== verb)
        .map((each) => `'${each}'`)
        .join(', ')}]`,
    );

  it('without patch: create still works, stop fails naming patch and changes nothing', async () => {
    const namespace = namespaceWithRole(without('patch'));
    const api = apiFor('restricted');
    const { providerId, name } = await provision(api, sampleSpec({ namespace }), TIMEOUT);
    const error = await stop(api, providerId, TIMEOUT).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error).toMatchObject({ verb: 'patch', resource: 'deployments' });
    expect(kubectl(['get', 'deployment', name, '-n', namespace, '-o', 'jsonpath={.spec.replicas}'])).toBe('1');
  });

  it('without delete: remove fails naming delete and the workload stays', async () => {
    const namespace = namespaceWithRole(without('delete'));
    const api = apiFor('restricted');
    const spec = sampleSpec({ namespace });
    const { providerId, name } = await provision(api, spec, TIMEOUT);
    const error = await remove(api, providerId, { containerId: spec.containerId as number, ...TIMEOUT }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ForbiddenError', verb: 'delete', resource: 'deployments' });
    expect(kubectl(['get', 'deployment', name, '-n', namespace, '-o', 'name']).trim()).toBe(`deployment.apps/${name}`);
  });

  it('without watch: an operation that waits fails at once naming watch (never waits out its timeout)', async () => {
    const namespace = namespaceWithRole(without('watch'));
    const admin = apiFor('admin');
    const { providerId } = await provision(admin, sampleSpec({ namespace }), TIMEOUT);
    const error = await stop(apiFor('restricted'), providerId, TIMEOUT).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ForbiddenError', verb: 'watch' });
  });
});
