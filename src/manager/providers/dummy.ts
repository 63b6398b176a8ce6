// A simulated provider for development: no hypervisor, no cluster. Walks through the
// usual steps with a delay each, taken from the injected clock (so tests run it in
// virtual time), and derives its provider ID, MAC and IP from the container ID, so the
// same record always yields the same result.
import { concat, concatMap, defer, map, of, throwError, timer } from 'rxjs';
import type { Observable } from 'rxjs';
import { OperationAbortedError, ProvisionAbortedError, abortOn } from '../../index.js';
import { ContainerMissingError, OPERATION_NOUNS } from '../errors.js';
import { isoTime } from '../../index.js';
import { requireProviderId } from './lifecycle-record.js';
import type {
  ContainerLifecycle,
  ContainerLifecycleEvent,
  ContainerRecord,
  ContainerState,
  LifecycleOperation,
  Provider,
  ProviderContext,
  ProviderEvent,
} from './types.js';

export interface DummyProviderOptions {
  /** Simulated duration of each step. Default 250 ms. */
  readonly stepDelayMs?: number;
  readonly nodeType?: string;
}

export const DEFAULT_DUMMY_STEP_DELAY_MS = 250;

const SIMULATED_STEPS: readonly { step: string; message: (record: ContainerRecord) => string }[] = [
  { step: 'allocate', message: (record) => `Allocated ${dummyProviderId(record)} (simulated)` },
  { step: 'create', message: (record) => `Created ${record.hostname} from ${record.template ?? 'no template'} (simulated)` },
  {
    step: 'configure',
    message: (record) => `Configured ${record.resources.cpus} cores, ${record.resources.memoryMb} MB (simulated)`,
  },
  { step: 'start', message: (record) => `Started ${record.hostname} (simulated)` },
];

export function createDummyProvider(options: DummyProviderOptions = {}): Provider {
  const nodeType = options.nodeType ?? 'dummy';
  const delayMs = options.stepDelayMs ?? DEFAULT_DUMMY_STEP_DELAY_MS;
  return {
    nodeType,
    provision$: (record, context) => simulate(record, context, nodeType, delayMs),
    lifecycle: simulatedLifecycle(nodeType, delayMs),
  };
}

/**
 * The lifecycle, simulated: each operation is one step after the delay, and the provider
 * remembers each container's state (a container it has not seen is running). A removed
 * container stays removed: every operation but another remove fails with
 * ContainerMissingError, and status answers `missing`. An aborted signal stops the
 * operation before its step (already aborted: before anything), as on a real node.
 */
function simulatedLifecycle(provider: string, delayMs: number): ContainerLifecycle {
  const states = new Map<string, ContainerState>();
  const stateOf = (providerId: string): ContainerState => states.get(providerId) ?? 'running';

  const operate =
    (operation: LifecycleOperation, next: (current: ContainerState) => ContainerState) =>
    (record: ContainerRecord, { clock, signal }: ProviderContext): Observable<ContainerLifecycleEvent> =>
      defer(() => {
        const providerId = requireProviderId(record, operation);
        const before = stateOf(providerId);
        if (before === 'missing' && operation !== 'remove') {
          return throwError(() => new ContainerMissingError(record.id, operation, providerId, record.node.name));
        }
        const after = next(before);
        return timer(delayMs, clock).pipe(
          concatMap((): ContainerLifecycleEvent[] => {
            states.set(providerId, after);
            const at = isoTime(clock);
            const running = after === 'running';
            const changed = operation === 'reconfigure' ? true : operation === 'restart' ? before === 'running' : before !== after;
            return [
              {
                type: 'step',
                at,
                provider,
                step: operation,
                message: `${operation} ${record.hostname}: ${after}${changed ? '' : ', nothing to do'} (simulated)`,
                severity: 'info',
              },
              {
                type: 'completed',
                at,
                provider,
                operation,
                providerId,
                changed,
                ...(running && operation !== 'stop' ? { network: dummyNetworkIdentity(record.id) } : {}),
              },
            ];
          }),
        );
      }).pipe(
        abortOn(signal, (reason) => new OperationAbortedError(operation, `container ${record.id}`, reason, OPERATION_NOUNS[operation])),
      );

  return {
    status: async (record) => {
      const state = stateOf(requireProviderId(record, 'status'));
      const ipAddress = state === 'running' ? dummyNetworkIdentity(record.id).ipAddress : null;
      const message = state === 'missing' ? `${record.hostname} was removed (simulated)` : `${record.hostname} is ${state} (simulated)`;
      return { state, reason: state === 'missing' ? 'NotFound' : 'Simulated', message, ipAddress };
    },
    start$: operate('start', () => 'running'),
    stop$: operate('stop', () => 'offline'),
    restart$: operate('restart', (current) => current),
    reconfigure$: operate('reconfigure', (current) => current),
    remove$: operate('remove', () => 'missing'),
  };
}

function simulate(
  record: ContainerRecord,
  { clock, signal }: ProviderContext,
  provider: string,
  delayMs: number,
): Observable<ProviderEvent> {
  const steps = SIMULATED_STEPS.map(({ step, message }) =>
    timer(delayMs, clock).pipe(
      map((): ProviderEvent => ({ type: 'step', at: isoTime(clock), provider, step, message: message(record), severity: 'info' })),
    ),
  );
  const outcome = defer(() => {
    const { macAddress, ipAddress } = dummyNetworkIdentity(record.id);
    return of<ProviderEvent>({
      type: 'provisioned',
      at: isoTime(clock),
      provider,
      providerId: dummyProviderId(record),
      macAddress,
      ipAddress,
    });
  });
  return concat(...steps, outcome).pipe(abortOn(signal, (reason) => new ProvisionAbortedError(undefined, reason)));
}

export function dummyProviderId(record: Pick<ContainerRecord, 'id'>): string {
  return `dummy-${record.id}`;
}

/** A locally administered unicast MAC (02:00:00:..) and a 10.x address, both from the ID. */
export function dummyNetworkIdentity(containerId: number | string): { macAddress: string; ipAddress: string } {
  const hash = fnv1a24(String(containerId));
  const bytes = [(hash >> 16) & 0xff, (hash >> 8) & 0xff, hash & 0xff];
  const hex = bytes.map((byte) => byte.toString(16).padStart(2, '0').toUpperCase());
  return {
    macAddress: `02:00:00:${hex.join(':')}`,
    ipAddress: `10.${bytes[0]}.${bytes[1]}.${((bytes[2] ?? 0) % 254) + 1}`,
  };
}

/** 32-bit FNV-1a folded to 24 bits: a stable, well-spread hash of a short string. */
function fnv1a24(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return ((hash >>> 24) ^ hash) & 0xffffff;
}
