// Test fixtures shared by the provider, create-flow and store tests: a Manager container
// record, and a recording fake of Manager's node client (NodeApi). The fake is a stand-in
// for Manager's ProxmoxApi/DockerApi: it records every method called, with its arguments,
// in order, and answers only what a test scripts; anything else throws.
import { of, type Observable } from 'rxjs';
import type { NodeApi } from '../../../../src/manager/providers/node-api.js';
import type { KubernetesOperations } from '../../../../src/manager/providers/kubernetes-lifecycle.js';
import type { WorkloadStatusValue } from '../../../../src/rollout/workload-status.js';
import type { LifecycleEvent } from '../../../../src/workload/toolkit/lifecycle-events.js';
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

const operationBase = { namespace: 'team-a', name: 'web-42', providerId: 'team-a/web-42', at: '2025-01-01T00:00:00.000Z' };

/**
 * Recording stand-ins for the library's lifecycle operations (the Kubernetes provider's
 * `operations` option): each call is pushed to `calls`; status answers running with `podIp`.
 */
/** `address`: the Service's (null: a container without ports); the Pod IP is another. */
export function recordingOperations(calls: unknown[][], address: string | null): KubernetesOperations {
  const outcome = (type: string, changed: boolean): Observable<LifecycleEvent> =>
    of({ ...operationBase, type, changed, durationMs: 10 } as LifecycleEvent);
  return {
    status: async (_api, providerId, options) => {
      calls.push(['status', providerId, options?.containerId, ...(options?.instance !== undefined ? [options.instance] : [])]);
      const podIp = address === null ? null : '10.244.0.7';
      return { state: 'running', reason: 'NewReplicaSetAvailable', message: '1 of 1 available', podIp, address } as WorkloadStatusValue;
    },
    start$: (_api, providerId, options) => (
      calls.push(['start$', providerId, options?.containerId, ...(options?.instance !== undefined ? [options.instance] : [])]),
      outcome('started', true)
    ),
    stop$: (_api, providerId, options) => (
      calls.push(['stop$', providerId, options?.containerId, ...(options?.instance !== undefined ? [options.instance] : [])]),
      outcome('stopped', false)
    ),
    restart$: (_api, providerId) => (calls.push(['restart$', providerId]), outcome('restarted', true)),
    reconfigure$: (_api, providerId, changes, options) => (
      calls.push([
        'reconfigure$',
        providerId,
        changes,
        ...(options?.rollbackOnFailure !== undefined ? [{ rollbackOnFailure: options.rollbackOnFailure }] : []),
      ]),
      outcome('reconfigured', true)
    ),
    remove$: (_api, providerId, options) => (calls.push(['remove$', providerId, options.containerId]), outcome('removed', true)),
    setPorts$: (_api, providerId, ports, options) => (
      calls.push(['setPorts$', providerId, ports, options?.containerId, ...(options?.serviceType ? [options.serviceType] : [])]),
      outcome('portsSet', true)
    ),
  };
}
