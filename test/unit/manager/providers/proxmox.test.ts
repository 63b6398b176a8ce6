// Unit tests of the Proxmox provider against a recording fake of Manager's ProxmoxApi
// (see fixtures.ts). The expected call sequences are Manager's create-container script,
// written out from its source: same methods, same order, same arguments.
import { asyncScheduler, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  InvalidContainerRecordError,
  NetworkIdentityMissingError,
  NoStorageError,
  ProviderStepError,
  TemplateNotFoundError,
} from '../../../../src/manager/errors.js';
import { createProxmoxProvider } from '../../../../src/manager/providers/proxmox.js';
import type { ProxmoxProviderOptions } from '../../../../src/manager/providers/proxmox.js';
import type { ContainerRecord, ProviderEvent, StepEvent } from '../../../../src/manager/providers/types.js';
import { containerRecord, recordingClient } from './fixtures.js';
import type { RecordedCall } from './fixtures.js';

const SHORT_DIGEST = 'abc123def456';
const LXC_FEATURES = 'nesting=1,keyctl=1,fuse=1';
const SHARED_MP0 = '/mnt/pve/local/volumes/quick_and_dirty,mp=/mnt/quick_and_dirty,ro=1';

/** A healthy Proxmox node: storages exist, tasks succeed, the LXC gets a MAC and an IP. */
function healthyNode(overrides: Parameters<typeof recordingClient>[0] = {}, calls: RecordedCall[] = []) {
  return recordingClient(
    {
      nextId: async () => 104,
      datastores: async (_node, content) =>
        content === 'vztmpl' ? [{ storage: 'local', total: 100 }] : [{ storage: 'local-lvm', total: 500 }],
      storageContents: async () => [],
      pullOciImage: async () => 'UPID:pve1:pull',
      createLxc: async () => 'UPID:pve1:create',
      getLxcTemplates: async () => [
        { vmid: 900, name: 'ubuntu-24-tmpl' },
        { vmid: 901, name: 'debian-12-tmpl' },
      ],
      cloneLxc: async () => 'UPID:pve1:clone',
      updateLxcConfig: async () => undefined,
      lxcConfig: async () => ({
        env: 'PATH=/usr/bin\0APP_MODE=development',
        entrypoint: '/docker-entrypoint.sh nginx',
        cores: '2',
        memory: '2048',
        rootfs: 'local-lvm:vm-104-disk-0,size=20G',
      }),
      waitForTask: async () => ({ status: 'stopped', exitstatus: 'OK' }),
      updateAcl: async () => undefined,
      syncLdapRealm: async () => undefined,
      startLxc: async () => 'UPID:pve1:start',
      getLxcMacAddress: async () => 'BC:24:11:AA:BB:CC',
      getLxcIpAddress: async () => '10.1.2.3',
      ...overrides,
    },
    calls,
  );
}

function provider(client: ReturnType<typeof recordingClient>, options: Partial<ProxmoxProviderOptions> = {}) {
  return createProxmoxProvider({
    clientFor: () => client.api,
    imageDigest: async (...args) => {
      client.calls.push(['imageDigest', ...args]);
      return SHORT_DIGEST;
    },
    ...options,
  });
}

function run(record: ContainerRecord, client: ReturnType<typeof recordingClient>, options: Partial<ProxmoxProviderOptions> = {}) {
  return lastValueFrom(provider(client, options).provision$(record, { clock: asyncScheduler }).pipe(toArray()));
}

function steps(events: ProviderEvent[]): StepEvent[] {
  return events.filter((event): event is StepEvent => event.type === 'step');
}

/** Manager's tail after the LXC exists: env, ACL, start, MAC, read-back, IP. */
function managerTail(envUpdate: Record<string, unknown>, extra: RecordedCall[] = []): RecordedCall[] {
  return [
    ['lxcConfig', 'pve1', 104],
    ['updateLxcConfig', 'pve1', 104, envUpdate],
    ...extra,
    ['updateAcl', '/vms/104', 'PVEVMUser', null, true, null, 'alice@ldap'],
    ['startLxc', 'pve1', 104],
    ['waitForTask', 'pve1', 'UPID:pve1:start'],
    ['getLxcMacAddress', 'pve1', 104],
    ['lxcConfig', 'pve1', 104],
    ['getLxcIpAddress', 'pve1', 104],
  ];
}

describe('Existing providers continue to work: proxmox, OCI image path', () => {
  it("calls Manager's methods in Manager's order with Manager's arguments", async () => {
    const client = healthyNode();
    await run(containerRecord(), client);

    expect(client.calls).toEqual([
      ['nextId'],
      ['datastores', 'pve1', 'vztmpl', true],
      ['datastores', 'pve1', 'rootdir', true],
      ['imageDigest', 'docker.io', 'library/nginx', 'latest'],
      ['storageContents', 'pve1', 'local', 'vztmpl'],
      [
        'pullOciImage',
        'pve1',
        'local',
        { reference: 'docker.io/library/nginx:latest', filename: `docker.io_library_nginx_latest_${SHORT_DIGEST}` },
      ],
      ['waitForTask', 'pve1', 'UPID:pve1:pull'],
      [
        'createLxc',
        'pve1',
        {
          vmid: 104,
          hostname: 'web-42',
          ostemplate: `local:vztmpl/docker.io_library_nginx_latest_${SHORT_DIGEST}.tar`,
          description: 'Created from Docker image docker.io/library/nginx:latest',
          cores: 2,
          features: LXC_FEATURES,
          memory: 2048,
          net0: 'name=eth0,ip=dhcp,bridge=vmbr0',
          searchdomain: 'main.internal',
          swap: 512,
          onboot: 1,
          tags: 'alice',
          unprivileged: 1,
          rootfs: 'local-lvm:20',
          mp0: SHARED_MP0,
        },
      ],
      ['waitForTask', 'pve1', 'UPID:pve1:create'],
      // system default < template < user: the user's APP_MODE wins over the template's.
      ...managerTail({ env: 'TZ=UTC\0PATH=/usr/bin\0APP_MODE=production', entrypoint: '/docker-entrypoint.sh nginx' }),
    ]);
  });

  it('ends with the VMID as provider ID, MAC, IP, the template defaults and the real resources', async () => {
    const events = await run(containerRecord(), healthyNode());
    const last = events.at(-1);
    expect(last).toMatchObject({
      type: 'provisioned',
      provider: 'proxmox',
      providerId: '104',
      macAddress: 'BC:24:11:AA:BB:CC',
      ipAddress: '10.1.2.3',
      templateDefaults: {
        environment: { PATH: '/usr/bin', APP_MODE: 'production' },
        entrypoint: '/docker-entrypoint.sh nginx',
      },
      resources: { cores: 2, memoryMb: 2048, diskGb: 20 },
    });
    expect(events.filter((event) => event.type === 'provisioned')).toHaveLength(1);
  });

  it('skips the pull when the archive for this digest is already in template storage', async () => {
    const client = healthyNode({
      storageContents: async () => [{ volid: `local:vztmpl/docker.io_library_nginx_latest_${SHORT_DIGEST}.tar` }],
    });
    await run(containerRecord(), client);
    expect(client.methods()).not.toContain('pullOciImage');
    expect(client.methods().slice(4, 7)).toEqual(['storageContents', 'createLxc', 'waitForTask']);
  });

  it('names the archive after a registry with a port without breaking the tag', async () => {
    const client = healthyNode();
    await run(containerRecord({ template: 'registry.local:5000/team/app:1.2' }), client);
    expect(client.calls).toContainEqual(['imageDigest', 'registry.local:5000', 'team/app', '1.2']);
    expect(client.calls).toContainEqual([
      'pullOciImage',
      'pve1',
      'local',
      { reference: 'registry.local:5000/team/app:1.2', filename: `registry.local_5000_team_app_1.2_${SHORT_DIGEST}` },
    ]);
  });

  it('falls back to the largest storage that supports the content, with a warning', async () => {
    const client = healthyNode({
      datastores: async (_node, content) =>
        content === 'vztmpl'
          ? [
              { storage: 'nfs-small', total: 10 },
              { storage: 'nfs-big', total: 99 },
            ]
          : [{ storage: 'local-lvm', total: 500 }],
    });
    const events = await run(containerRecord(), client);
    expect(client.calls).toContainEqual(['storageContents', 'pve1', 'nfs-big', 'vztmpl']);
    const warnings = steps(events).filter((event) => event.severity === 'warning');
    expect(warnings.map((event) => event.message)).toEqual([expect.stringContaining('falling back to "nfs-big"')]);
  });

  it('fails with NoStorageError when no storage supports the content, creating nothing', async () => {
    const client = healthyNode({ datastores: async () => [] });
    await expect(run(containerRecord(), client)).rejects.toBeInstanceOf(NoStorageError);
    expect(client.methods()).not.toContain('createLxc');
  });

  it('omits the shared volume mount when configured off', async () => {
    const client = healthyNode();
    await run(containerRecord(), client, { sharedVolume: null });
    const create = client.calls.find(([method]) => method === 'createLxc');
    expect(create?.[2]).not.toHaveProperty('mp0');
  });
});

describe('Existing providers continue to work: proxmox, template clone path', () => {
  it("clones, configures and attaches the NVIDIA hook in Manager's order", async () => {
    const client = healthyNode({
      storageContents: async () => [{ volid: 'local:snippets/nvidia' }],
      lxcConfig: async () => ({ cores: 2, memory: 2048, rootfs: 'local-lvm:vm-104-disk-0,size=20G' }),
    });
    const record = containerRecord({ template: 'debian-12-tmpl', nvidiaRequested: true, entrypoint: '/sbin/init' });
    const events = await run(record, client);

    const configure = {
      cores: 2,
      features: LXC_FEATURES,
      memory: 2048,
      net0: 'name=eth0,ip=dhcp,bridge=vmbr0',
      searchdomain: 'main.internal',
      swap: 512,
      onboot: 1,
      tags: 'alice',
      mp0: SHARED_MP0,
    };
    expect(client.calls).toEqual([
      ['nextId'],
      ['getLxcTemplates', 'pve1'],
      ['datastores', 'pve1', 'rootdir', true],
      ['datastores', 'pve1', 'vztmpl', true],
      [
        'cloneLxc',
        'pve1',
        901,
        104,
        { hostname: 'web-42', description: 'Cloned from template debian-12-tmpl', full: 1, storage: 'local-lvm' },
      ],
      ['waitForTask', 'pve1', 'UPID:pve1:clone'],
      ['updateLxcConfig', 'pve1', 104, configure],
      ...managerTail(
        {
          env: 'TZ=UTC\0NVIDIA_VISIBLE_DEVICES=all\0NVIDIA_DRIVER_CAPABILITIES=utility compute\0APP_MODE=production',
          entrypoint: '/sbin/init',
        },
        [
          ['storageContents', 'pve1', 'local', 'snippets'],
          ['updateLxcConfig', 'pve1', 104, { hookscript: 'local:snippets/nvidia' }],
        ],
      ),
    ]);
    expect(steps(events).some((event) => event.severity === 'warning')).toBe(false);
  });

  it('warns but still attaches the hook when the hook script is missing', async () => {
    const client = healthyNode();
    const events = await run(containerRecord({ template: 'debian-12-tmpl', nvidiaRequested: true }), client);
    expect(client.calls).toContainEqual(['updateLxcConfig', 'pve1', 104, { hookscript: 'local:snippets/nvidia' }]);
    expect(
      steps(events)
        .filter((event) => event.severity === 'warning')
        .map((event) => event.step),
    ).toEqual(['nvidia-hook']);
  });

  it('fails with TemplateNotFoundError naming template and node, cloning nothing', async () => {
    const client = healthyNode();
    const failure = run(containerRecord({ template: 'centos-7' }), client);
    await expect(failure).rejects.toBeInstanceOf(TemplateNotFoundError);
    await expect(failure).rejects.toThrow('Template "centos-7" not found on node pve1');
    expect(client.methods()).not.toContain('cloneLxc');
  });

  it('skips the shared volume when no template storage exists, as Manager does', async () => {
    const client = healthyNode({
      datastores: async (_node, content) => (content === 'vztmpl' ? [] : [{ storage: 'local-lvm', total: 500 }]),
    });
    const events = await run(containerRecord({ template: 'debian-12-tmpl' }), client);
    const configure = client.calls.find(([method, , , config]) => method === 'updateLxcConfig' && 'cores' in (config as object));
    expect(configure?.[3]).not.toHaveProperty('mp0');
    expect(events.at(-1)).toMatchObject({ type: 'provisioned', providerId: '104' });
  });
});

describe('proxmox provider: owner access', () => {
  it('syncs the LDAP realm and retries when Proxmox does not know the user yet', async () => {
    let attempts = 0;
    const client = healthyNode({
      updateAcl: async () => {
        attempts += 1;
        if (attempts === 1) {
          throw Object.assign(new Error('Request failed with status code 400'), {
            response: { data: { errors: { users: "user 'alice@ldap' does not exist" } } },
          });
        }
      },
    });
    await run(containerRecord(), client);
    const acl = ['updateAcl', '/vms/104', 'PVEVMUser', null, true, null, 'alice@ldap'];
    const start = client.methods().indexOf('startLxc');
    expect(client.calls.slice(start - 3, start)).toEqual([acl, ['syncLdapRealm', 'ldap'], acl]);
  });

  it('continues without access (a warning) when the grant fails for another reason', async () => {
    const client = healthyNode({
      updateAcl: async () => {
        throw new Error('Request failed with status code 500');
      },
    });
    const events = await run(containerRecord(), client);
    expect(client.methods()).not.toContain('syncLdapRealm');
    expect(client.methods()).toContain('startLxc');
    expect(steps(events).find((event) => event.step === 'acl' && event.severity === 'warning')).toBeDefined();
    expect(events.at(-1)).toMatchObject({ type: 'provisioned' });
  });
});

describe('proxmox provider: failures', () => {
  it('a null MAC is fatal: NetworkIdentityMissingError naming the VMID, no IP lookup', async () => {
    const client = healthyNode({ getLxcMacAddress: async () => null });
    const failure = run(containerRecord(), client);
    await expect(failure).rejects.toBeInstanceOf(NetworkIdentityMissingError);
    await expect(failure).rejects.toMatchObject({ missing: 'MAC address', providerId: '104' });
    expect(client.methods()).not.toContain('getLxcIpAddress');
  });

  it('a null IP is fatal too, as in Manager', async () => {
    const client = healthyNode({ getLxcIpAddress: async () => null });
    await expect(run(containerRecord(), client)).rejects.toMatchObject({
      name: 'NetworkIdentityMissingError',
      missing: 'IP address',
    });
  });

  it('wraps a client failure in ProviderStepError: step, VMID, original cause, nothing after', async () => {
    const cause = new Error('Task failed with status: storage full');
    const client = healthyNode({ startLxc: async () => Promise.reject(cause) });
    const failure = run(containerRecord(), client);
    await expect(failure).rejects.toBeInstanceOf(ProviderStepError);
    await expect(failure).rejects.toMatchObject({ step: 'start', providerId: '104', cause });
    await expect(failure).rejects.not.toThrow('storage full');
    expect(client.methods().at(-1)).toBe('startLxc');
  });

  it('a failure before the LXC exists carries no provider ID', async () => {
    const client = healthyNode({ pullOciImage: async () => Promise.reject(new Error('registry down')) });
    await expect(run(containerRecord(), client)).rejects.toMatchObject({ step: 'pull-image', providerId: undefined });
  });

  it('refuses a record without template or site before connecting', async () => {
    let connected = false;
    const client = healthyNode();
    const noSite = createProxmoxProvider({
      clientFor: () => {
        connected = true;
        return client.api;
      },
      imageDigest: async () => SHORT_DIGEST,
    });
    const failure = lastValueFrom(noSite.provision$(containerRecord({ site: null, template: null }), { clock: asyncScheduler }));
    await expect(failure).rejects.toBeInstanceOf(InvalidContainerRecordError);
    await expect(failure).rejects.toMatchObject({ problems: [expect.stringContaining('template'), expect.stringContaining('site')] });
    expect(connected).toBe(false);
    expect(client.calls).toEqual([]);
  });

  it('refuses an image template the spec validation refuses, naming the rule, before connecting', async () => {
    const client = healthyNode();
    const failure = run(containerRecord({ template: 'docker.io/library/Nginx:latest' }), client);
    await expect(failure).rejects.toBeInstanceOf(InvalidContainerRecordError);
    await expect(failure).rejects.toMatchObject({
      problems: [
        'its template is not a valid image reference: the repository path "Nginx" must be lowercase (got "docker.io/library/Nginx:latest")',
      ],
    });
    expect(client.calls).toEqual([]);
  });
});
