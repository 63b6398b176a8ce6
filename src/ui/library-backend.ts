// The backend `kube-provisioner ui` runs on: the library's own functions. This is the one
// place the live page is wired to them.
import { defer, from, switchMap } from 'rxjs';
import { CONTAINER_ID_LABEL } from '../input/labels.js';
import { parseProviderId } from '../input/provider-id.js';
import { connection$ } from '../workload/reads/connection.js';
import { provision$ } from '../workload/operations/provision.js';
import { remove$ } from '../workload/operations/remove.js';
import { restart$ } from '../workload/operations/restart.js';
import { start$ } from '../workload/operations/start.js';
import { statuses$ } from '../workload/reads/statuses.js';
import { stop$ } from '../workload/operations/stop.js';
import { logs$ } from '../workload/reads/logs.js';
import { openTerminal } from '../workload/reads/terminal.js';
import type { LifecycleOperation, UiBackend } from './backend.js';

// remove$ refuses a Deployment whose container-id differs from the one named; the page
// names workloads by provider ID only, so the label is read first and the delete then
// carries that object's UID as its precondition.
const removeListed: LifecycleOperation = (api, providerId, options = {}) =>
  defer(() => {
    const { namespace, name } = parseProviderId(providerId);
    return from(api.read('deployments', namespace, name, options.signal ? { signal: options.signal } : {})).pipe(
      switchMap((deployment) =>
        remove$(api, providerId, { ...options, containerId: deployment.metadata?.labels?.[CONTAINER_ID_LABEL] ?? '' }),
      ),
    );
  });

// A failed provisioning started from the page keeps its Deployment, so its row shows why
// it failed until someone deletes it with the row's button.
const provisionKeepingFailures: NonNullable<UiBackend['provision$']> = (api, spec, options = {}) =>
  provision$(api, spec, { ...options, keepOnFailure: true });

export function libraryBackend(): UiBackend {
  return {
    statuses$,
    connection$,
    provision$: provisionKeepingFailures,
    start$,
    stop$,
    restart$,
    remove$: removeListed,
    openTerminal,
    logs$,
  };
}
