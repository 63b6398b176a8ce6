// Unit tests of the Docker provider against a recording fake of Manager's DockerApi (see
// fixtures.ts). The fake answers the way Manager's DockerApi does: `docker:<kind>:<id>`
// task handles, and a new container ID when an env/entrypoint update recreates it.
import { asyncScheduler, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  InvalidContainerRecordError,
  NetworkIdentityMissingError,
  ProviderStepError,
  UnsupportedTemplateError,
} from '../../../../src/manager/errors.js';
import { createDockerProvider } from '../../../../src/manager/providers/docker.js';
import type { ContainerRecord } from '../../../../src/manager/providers/types.js';
import { containerRecord, recordingClient } from './fixtures.js';

const IMAGE = 'docker.io/library/nginx:latest';

function dockerNode(overrides: Parameters<typeof recordingClient>[0] = {}) {
  return recordingClient({
    pullOciImage: async (_node, _storage, options) => `docker:pull:${options.reference}`,
    createLxc: async () => 'docker:create:c0ffee01',
    waitForTask: async () => ({ status: 'stopped', exitstatus: 'OK' }),
    lxcConfig: async () => ({
      env: 'PATH=/usr/local/bin\0NGINX_VERSION=1.27',
      entrypoint: '/docker-entrypoint.sh nginx -g daemon off;',
      cores: 2,
      memory: 2048,
      rootfs: null,
    }),
    updateLxcConfig: async () => 'docker:recreate:beef0002',
    startLxc: async (_node, id) => `docker:start:${String(id)}`,
    getLxcMacAddress: async () => '02:42:AC:11:00:02',
    getLxcIpAddress: async () => '172.17.0.2',
    ...overrides,
  });
}

function dockerRecord(overrides: Partial<ContainerRecord> = {}): ContainerRecord {
  return containerRecord({ template: IMAGE, site: null, node: { id: 9, name: 'dock1', nodeType: 'docker' }, ...overrides });
}

function run(record: ContainerRecord, client: ReturnType<typeof recordingClient>) {
  const provider = createDockerProvider({ clientFor: () => client.api });
  return lastValueFrom(provider.provision$(record, { clock: asyncScheduler }).pipe(toArray()));
}

describe('Existing providers continue to work: docker', () => {
  it("calls DockerApi in Manager's order; the engine's ID (after recreation) is the provider ID", async () => {
    const client = dockerNode();
    const events = await run(dockerRecord(), client);

    expect(client.calls).toEqual([
      ['pullOciImage', 'dock1', 'docker', { reference: IMAGE }],
      ['waitForTask', 'dock1', `docker:pull:${IMAGE}`],
      ['createLxc', 'dock1', { hostname: 'web-42', description: `Created from Docker image ${IMAGE}`, cores: 2, memory: 2048 }],
      ['waitForTask', 'dock1', 'docker:create:c0ffee01'],
      ['lxcConfig', 'dock1', 'c0ffee01'],
      [
        'updateLxcConfig',
        'dock1',
        'c0ffee01',
        {
          env: 'TZ=UTC\0PATH=/usr/local/bin\0NGINX_VERSION=1.27\0APP_MODE=production',
          entrypoint: '/docker-entrypoint.sh nginx -g daemon off;',
        },
      ],
      ['startLxc', 'dock1', 'beef0002'],
      ['waitForTask', 'dock1', 'docker:start:beef0002'],
      ['getLxcMacAddress', 'dock1', 'beef0002'],
      ['lxcConfig', 'dock1', 'beef0002'],
      ['getLxcIpAddress', 'dock1', 'beef0002'],
    ]);
    expect(events.at(-1)).toMatchObject({
      type: 'provisioned',
      provider: 'docker',
      providerId: 'beef0002',
      macAddress: '02:42:AC:11:00:02',
      ipAddress: '172.17.0.2',
      resources: { cores: 2, memoryMb: 2048, diskGb: null },
    });
  });

  it('never runs the Proxmox-only steps (VMID, storage, archive, ACL, LDAP, clone)', async () => {
    const client = dockerNode();
    await run(dockerRecord({ nvidiaRequested: true }), client);
    for (const method of ['nextId', 'datastores', 'storageContents', 'updateAcl', 'syncLdapRealm', 'cloneLxc', 'getLxcTemplates']) {
      expect(client.methods()).not.toContain(method);
    }
  });

  it('keeps the created ID when there is nothing to apply', async () => {
    const client = dockerNode({ lxcConfig: async () => ({}) });
    const events = await run(dockerRecord({ environment: {}, defaultEnvironment: {} }), client);
    expect(client.methods()).not.toContain('updateLxcConfig');
    expect(client.calls).toContainEqual(['startLxc', 'dock1', 'c0ffee01']);
    expect(events.at(-1)).toMatchObject({ providerId: 'c0ffee01' });
  });

  it('warns that GPU passthrough is not configured, and sets the NVIDIA variables', async () => {
    const client = dockerNode();
    const events = await run(dockerRecord({ nvidiaRequested: true }), client);
    expect(events).toContainEqual(expect.objectContaining({ type: 'step', step: 'nvidia-hook', severity: 'warning' }));
    const update = client.calls.find(([method]) => method === 'updateLxcConfig');
    expect((update?.[3] as { env: string }).env).toContain('NVIDIA_VISIBLE_DEVICES=all');
  });

  it('refuses an LXC template name without calling the engine', async () => {
    const client = dockerNode();
    await expect(run(dockerRecord({ template: 'debian-12-tmpl' }), client)).rejects.toBeInstanceOf(UnsupportedTemplateError);
    await expect(run(dockerRecord({ template: null }), client)).rejects.toBeInstanceOf(InvalidContainerRecordError);
    expect(client.calls).toEqual([]);
  });

  it('fails when create returns no container ID', async () => {
    const client = dockerNode({ createLxc: async () => 'UPID:not-docker' });
    await expect(run(dockerRecord(), client)).rejects.toMatchObject({ name: 'ProviderStepError', step: 'create' });
    expect(client.methods()).toEqual(['pullOciImage', 'waitForTask', 'createLxc']);
  });

  it('a failure after recreation names the new container ID', async () => {
    const client = dockerNode({ startLxc: async () => Promise.reject(new Error('port is already allocated')) });
    const failure = run(dockerRecord(), client);
    await expect(failure).rejects.toBeInstanceOf(ProviderStepError);
    await expect(failure).rejects.toMatchObject({ step: 'start', providerId: 'beef0002' });
  });

  it('a null MAC is fatal, as in Manager', async () => {
    const client = dockerNode({ getLxcMacAddress: async () => null });
    await expect(run(dockerRecord(), client)).rejects.toBeInstanceOf(NetworkIdentityMissingError);
  });
});
