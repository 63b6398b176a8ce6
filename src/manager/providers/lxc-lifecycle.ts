// The lifecycle of a container on a Proxmox node, or a Docker node through Manager's
// DockerApi, over Manager's own client calls: getLxcStatus, startLxc, stopLxc,
// updateLxcConfig, deleteContainer (each task awaited with waitForTask), then MAC and IP
// read back after a start. The provider ID is the VMID (Docker: the engine's container
// ID, which a reconfigure may replace, since Docker recreates a container to change it).
//
// The same rules as on Kubernetes: starting a running container and stopping a stopped one
// write nothing; a restart or reconfigure of a stopped container leaves it stopped.
import { defer, type Observable } from 'rxjs';
import { NetworkIdentityMissingError } from '../errors.js';
import { isoTime } from '../../index.js';
import { dockerContainerIdOf } from './docker-task.js';
import { effectiveEntrypoint, effectiveEnvironment } from './environment.js';
import { requireProviderId } from './lifecycle-record.js';
import { lxcEnvironmentConfig } from './lxc-environment.js';
import type { LxcLifecycleApi, NodeApiFactory, LxcStatus } from './node-api.js';
import { runStepsTo, type StepRunner } from './step-runner.js';
import type {
  ContainerLifecycle,
  ContainerLifecycleEvent,
  ContainerRecord,
  ContainerState,
  ContainerStatus,
  LifecycleCompletedEvent,
  LifecycleOperation,
  ProviderContext,
} from './types.js';

export interface LxcLifecycleOptions {
  readonly nodeType: string;
  readonly clientFor: NodeApiFactory<LxcLifecycleApi>;
  /** Docker: updateLxcConfig recreates the container and answers with its new ID. */
  readonly recreatesOnUpdate?: boolean;
}

type Network = NonNullable<LifecycleCompletedEvent['network']>;
interface Outcome {
  readonly providerId: string;
  readonly changed: boolean;
  readonly network?: Network;
}

/** The node's word for a container's state, in Manager's. */
export function lxcState(status: LxcStatus): ContainerState {
  if (status.status === 'running') return 'running';
  if (status.status === 'stopped') return 'offline';
  return 'unknown';
}

export function lxcLifecycle(options: LxcLifecycleOptions): ContainerLifecycle {
  const { nodeType } = options;

  const run = (
    operation: LifecycleOperation,
    record: ContainerRecord,
    context: ProviderContext,
    steps: (steps: StepRunner, client: LxcLifecycleApi, node: string, providerId: string) => Promise<Outcome>,
  ): Observable<ContainerLifecycleEvent> =>
    defer(() => {
      const providerId = requireProviderId(record, operation);
      return runStepsTo<Outcome, LifecycleCompletedEvent>(
        {
          provider: nodeType,
          containerId: record.id,
          providerId,
          clock: context.clock,
          run: async (runner) => {
            const client = await runner.call('connect', () => options.clientFor(record.node));
            return steps(runner, client, record.node.name, providerId);
          },
        },
        (outcome) => ({ type: 'completed', at: isoTime(context.clock), provider: nodeType, operation, ...outcome }),
      );
    });

  const isRunning = async (steps: StepRunner, client: LxcLifecycleApi, node: string, id: string) =>
    lxcState(await steps.call('status', () => client.getLxcStatus(node, id))) === 'running';

  const task = async (steps: StepRunner, client: LxcLifecycleApi, node: string, step: string, call: () => Promise<unknown>) => {
    const handle = await steps.call(step, call);
    if (typeof handle === 'string' && handle !== '') await steps.call(step, () => client.waitForTask(node, handle));
  };

  const startAndRead = async (steps: StepRunner, client: LxcLifecycleApi, node: string, id: string): Promise<Network> => {
    await task(steps, client, node, 'start', () => client.startLxc(node, id));
    steps.report('start', `Started ${id}`);
    return network(steps, client, node, id);
  };

  const network = async (steps: StepRunner, client: LxcLifecycleApi, node: string, id: string): Promise<Network> => {
    const macAddress = await steps.call('mac-address', () => client.getLxcMacAddress(node, id));
    if (!macAddress) throw new NetworkIdentityMissingError(nodeType, 'MAC address', id);
    const ipAddress = await steps.call('ip-address', () => client.getLxcIpAddress(node, id));
    if (!ipAddress) throw new NetworkIdentityMissingError(nodeType, 'IP address', id);
    steps.report('ip-address', `MAC ${macAddress}, IP ${ipAddress}`);
    return { macAddress, ipAddress };
  };

  const stop = async (steps: StepRunner, client: LxcLifecycleApi, node: string, id: string) => {
    await task(steps, client, node, 'stop', () => client.stopLxc(node, id));
    steps.report('stop', `Stopped ${id}`);
  };

  return {
    async status(record): Promise<ContainerStatus> {
      const providerId = requireProviderId(record, 'status');
      try {
        const client = await options.clientFor(record.node);
        const current = await client.getLxcStatus(record.node.name, providerId);
        const state = lxcState(current);
        const word = current.status ?? 'no status';
        return { state, reason: word, message: `${nodeType} reports ${providerId} ${word}`, ipAddress: record.ipAddress };
      } catch (error) {
        // The client's own error may embed request details: it is not copied into the text.
        if (isContainerGone(error)) {
          const message = `node ${record.node.name} has no container ${providerId}`;
          return { state: 'missing', reason: 'NotFound', message, ipAddress: null };
        }
        const message = `could not read the status of ${providerId} from node ${record.node.name}`;
        return { state: 'unknown', reason: 'StatusUnavailable', message, ipAddress: record.ipAddress };
      }
    },

    start$: (record, context) =>
      run('start', record, context, async (steps, client, node, id) => {
        if (await isRunning(steps, client, node, id)) {
          steps.report('start', `${id} is already running`);
          return { providerId: id, changed: false, network: await network(steps, client, node, id) };
        }
        return { providerId: id, changed: true, network: await startAndRead(steps, client, node, id) };
      }),

    stop$: (record, context) =>
      run('stop', record, context, async (steps, client, node, id) => {
        if (!(await isRunning(steps, client, node, id))) {
          steps.report('stop', `${id} is already stopped`);
          return { providerId: id, changed: false };
        }
        await stop(steps, client, node, id);
        return { providerId: id, changed: true };
      }),

    restart$: (record, context) =>
      run('restart', record, context, async (steps, client, node, id) => {
        if (!(await isRunning(steps, client, node, id))) {
          steps.report('restart', `${id} is stopped and stays stopped`);
          return { providerId: id, changed: false };
        }
        await stop(steps, client, node, id);
        return { providerId: id, changed: true, network: await startAndRead(steps, client, node, id) };
      }),

    reconfigure$: (record, context) =>
      run('reconfigure', record, context, async (steps, client, node, id) => {
        const wasRunning = await isRunning(steps, client, node, id);
        const config = {
          cores: record.resources.cpus,
          memory: record.resources.memoryMb,
          swap: record.resources.swapMb,
          ...lxcEnvironmentConfig(effectiveEnvironment(record), effectiveEntrypoint(record.entrypoint, null)),
        };
        const result = await steps.call('configure', () => client.updateLxcConfig(node, id, config));
        const newId = options.recreatesOnUpdate ? (dockerContainerIdOf(result) ?? id) : id;
        steps.report('configure', newId === id ? `Configured ${id}` : `Configured; recreated as ${newId}`);
        if (!wasRunning) return { providerId: newId, changed: true };
        // The new settings apply from the next start.
        if (await isRunning(steps, client, node, newId)) await stop(steps, client, node, newId);
        return { providerId: newId, changed: true, network: await startAndRead(steps, client, node, newId) };
      }),

    remove$: (record, context) =>
      run('remove', record, context, async (steps, client, node, id) => {
        if (await isRunning(steps, client, node, id)) await stop(steps, client, node, id);
        await task(steps, client, node, 'delete', () => client.deleteContainer(node, id));
        steps.report('delete', `Deleted ${id}`);
        return { providerId: id, changed: true };
      }),
  };
}

/**
 * The node says the container does not exist: Docker answers 404 ("No such container"),
 * Proxmox 500 with "Configuration file '.../lxc/<vmid>.conf' does not exist" as the
 * status text. Anything else (a timeout, 401) leaves the state unknown.
 */
export function isContainerGone(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const response = (error as { response?: { status?: unknown; statusText?: unknown; data?: unknown } }).response;
  if (response?.status === 404) return true;
  const data = response?.data as { message?: unknown; errors?: unknown } | undefined;
  const texts = [response?.statusText, data?.message, typeof data?.errors === 'string' ? data.errors : undefined, (error as Error).message];
  return texts.some((text) => typeof text === 'string' && /\.conf' does not exist|no such container/i.test(text));
}
