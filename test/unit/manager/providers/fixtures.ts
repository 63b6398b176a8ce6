// Test fixtures shared by the provider, create-flow and store tests: a Manager container
// record, and a recording fake of Manager's node client (NodeApi). The fake is a stand-in
// for Manager's ProxmoxApi/DockerApi: it records every method called, with its arguments,
// in order, and answers only what a test scripts; anything else throws.
import type { NodeApi } from '../../../../src/manager/providers/node-api.js';
import type { ContainerRecord, NodeRecord } from '../../../../src/manager/providers/types.js';

export type RecordedCall = [method: string, ...args: unknown[]];

export function containerRecord(overrides: Omit<Partial<ContainerRecord>, 'node'> & { node?: Partial<NodeRecord> } = {}): ContainerRecord {
  const { node, ...rest } = overrides;
  return {
    id: 42,
    hostname: 'web-42',
    username: 'alice',
    template: 'docker.io/library/nginx:latest',
    providerId: null,
    macAddress: null,
    ipAddress: null,
    nvidiaRequested: false,
    environment: { APP_MODE: 'production' },
    defaultEnvironment: { TZ: 'UTC' },
    entrypoint: null,
    resources: { cpus: 2, memoryMb: 2048, swapMb: 512, rootfsGb: 20 },
    site: { name: 'Main', internalDomain: 'main.internal' },
    ...rest,
    node: {
      id: 7,
      name: 'pve1',
      nodeType: 'proxmox',
      imageStorage: 'local',
      volumeStorage: 'local-lvm',
      networkBridge: 'vmbr0',
      ...node,
    },
  };
}

type Script = { [Method in keyof NodeApi]?: (...args: Parameters<NodeApi[Method]>) => unknown };

export interface RecordingClient {
  readonly api: NodeApi;
  readonly calls: RecordedCall[];
  /** Method names only, for order assertions. */
  methods(): string[];
}

/**
 * A fake node client. Every property read is a method that records its call; methods the
 * script leaves out throw, so an unexpected call fails the provider (and shows in `calls`).
 * `then` is left undefined so the fake can be returned from an async factory.
 */
export function recordingClient(script: Script = {}, calls: RecordedCall[] = []): RecordingClient {
  const api = new Proxy({} as NodeApi, {
    get(_target, property) {
      if (property === 'then' || typeof property === 'symbol') return undefined;
      return async (...args: unknown[]) => {
        calls.push([property, ...args]);
        const answer = (script as Record<string, ((...a: unknown[]) => unknown) | undefined>)[property];
        if (!answer) throw new Error(`unexpected call: ${property}`);
        return answer(...args);
      };
    },
  });
  return { api, calls, methods: () => calls.map(([method]) => method) };
}
