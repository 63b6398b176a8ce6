// One create flow for every node type: load the record, refuse one that was provisioned
// already, let the node type's provider do its own steps, and store the provider ID (with
// MAC and IP; null is valid) only once the provider has succeeded. On failure the record
// is left as it was and the provider's typed error is rethrown.
import { asyncScheduler, concat, defer, from, switchMap, tap } from 'rxjs';
import type { Observable, SchedulerLike } from 'rxjs';
import { ProvisionAbortedError, abortOn } from '../index.js';
import { AlreadyProvisionedError, ProviderIdNotSavedError, ProviderOutcomeMissingError } from './errors.js';
import { isoTime } from '../index.js';
import type { ProviderRegistry } from './providers/registry.js';
import type {
  ActualResources,
  ContainerId,
  ContainerRecord,
  ProviderEvent,
  ProvisionedEvent,
  ProvisionedIdentity,
} from './providers/types.js';
import type { ContainerStore } from './store/container-store.js';
import { loadRecord } from './store/load-record.js';

export interface CreateContainerOptions {
  readonly providers: ProviderRegistry;
  readonly store: ContainerStore;
  /** Time source for event stamps and provider delays. Default: rxjs asyncScheduler. */
  readonly clock?: SchedulerLike;
  /** Aborting stops the provider before its next step; the record stays unchanged. */
  readonly signal?: AbortSignal;
}

/** The flow's last event: the provider ID is stored. */
export interface SavedEvent {
  readonly type: 'saved';
  readonly at: string;
  readonly containerId: ContainerId;
  readonly providerId: string;
  readonly macAddress: string | null;
  readonly ipAddress: string | null;
}

export type CreateFlowEvent = ProviderEvent | SavedEvent;

export interface CreateContainerResult extends ProvisionedIdentity {
  readonly containerId: ContainerId;
  /** The node type whose provider ran. */
  readonly provider: string;
  readonly resources?: ActualResources;
}

/**
 * Cold: subscribing starts the creation. Emits the provider's events, then `saved`, then
 * completes. Errors with ContainerNotFoundError, AlreadyProvisionedError (no provider is
 * called), UnknownNodeTypeError, the provider's typed error, ProvisionAbortedError, or
 * ProviderIdNotSavedError (the resource exists but its ID could not be stored).
 */
export function createContainer$(containerId: ContainerId, options: CreateContainerOptions): Observable<CreateFlowEvent> {
  const clock = options.clock ?? asyncScheduler;
  return defer(() => {
    let outcome: ProvisionedEvent | undefined;
    let nodeType = '';
    // Lazy, so an already aborted signal stops the flow before the record is even read.
    const provision$ = defer(() => loadUnprovisioned(options.store, containerId)).pipe(
      switchMap((record) => {
        nodeType = record.node.nodeType;
        const provider = options.providers.providerFor(nodeType);
        return provider.provision$(record, { clock, ...(options.signal ? { signal: options.signal } : {}) });
      }),
      tap((event) => {
        if (event.type === 'provisioned') outcome = event;
      }),
      abortOn(options.signal, (reason) => new ProvisionAbortedError(undefined, reason)),
    );
    // Once the provider is done, storing its ID is the only way not to orphan what it
    // made, so an abort no longer applies to the save.
    const save$ = defer(() => {
      if (!outcome) throw new ProviderOutcomeMissingError(containerId, nodeType);
      return from(saveOutcome(options.store, containerId, outcome, clock));
    });
    return concat(provision$, save$);
  });
}

/** The Promise form; `onEvent` sees every event (for a log or a progress UI). */
export async function createContainer(
  containerId: ContainerId,
  options: CreateContainerOptions & { onEvent?: (event: CreateFlowEvent) => void },
): Promise<CreateContainerResult> {
  let provisioned: ProvisionedEvent | undefined;
  let saved = false;
  await new Promise<void>((resolve, reject) => {
    createContainer$(containerId, options).subscribe({
      next: (event) => {
        if (event.type === 'provisioned') provisioned = event;
        if (event.type === 'saved') saved = true;
        options.onEvent?.(event);
      },
      error: reject,
      complete: resolve,
    });
  });
  // createContainer$ completes only after `provisioned` and `saved`; this narrows types.
  if (!provisioned || !saved) throw new ProviderOutcomeMissingError(containerId, provisioned?.provider ?? 'unknown');
  return resultOf(containerId, provisioned);
}

/** @deprecated Renamed `createContainer` (the Promise form); this alias goes in the next release. */
export const createContainerAsync = createContainer;

async function loadUnprovisioned(store: ContainerStore, containerId: ContainerId): Promise<ContainerRecord> {
  const record = await loadRecord(store, containerId);
  if (record.providerId) throw new AlreadyProvisionedError(containerId, record.providerId);
  return record;
}

async function saveOutcome(
  store: ContainerStore,
  containerId: ContainerId,
  outcome: ProvisionedEvent,
  clock: SchedulerLike,
): Promise<SavedEvent> {
  let written: boolean;
  try {
    written = await store.saveProvisioned(containerId, identityOf(outcome));
  } catch (error) {
    throw new ProviderIdNotSavedError(containerId, outcome.providerId, 'the store failed', { cause: error });
  }
  if (!written) {
    throw new ProviderIdNotSavedError(containerId, outcome.providerId, 'the record was provisioned by another run or deleted meanwhile');
  }
  const { providerId, macAddress, ipAddress } = outcome;
  return { type: 'saved', at: isoTime(clock), containerId, providerId, macAddress, ipAddress };
}

function identityOf(outcome: ProvisionedEvent): ProvisionedIdentity {
  const { providerId, macAddress, ipAddress, templateDefaults } = outcome;
  return templateDefaults ? { providerId, macAddress, ipAddress, templateDefaults } : { providerId, macAddress, ipAddress };
}

function resultOf(containerId: ContainerId, provisioned: ProvisionedEvent): CreateContainerResult {
  const { provider, resources } = provisioned;
  return { containerId, provider, ...identityOf(provisioned), ...(resources ? { resources } : {}) };
}
