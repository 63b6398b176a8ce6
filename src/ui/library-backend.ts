// The backend `kube-provision ui` runs on: the library's own functions. This is the one
// place the live page is wired to them.
//
// Pending the lifecycle issue (13): statuses$, start$, stop$, restart$ and remove$ are
// being built on other branches. Until they are merged here, the status feed reports that
// it is missing (the page shows the notice and retries) and the page offers no actions;
// provisioning works. When they land: statuses$ from the library replaces statusesPending$,
// and start$/stop$/restart$/remove$ are added below.
import { throwError, type Observable } from 'rxjs';
import { KubeProvisionerError } from '../errors.js';
import { provision$ } from '../workload/provision.js';
import type { UiBackend, WorkloadStatusEvent } from './backend.js';

export function libraryBackend(): UiBackend {
  return { statuses$: statusesPending$, provision$ };
}

function statusesPending$(): Observable<WorkloadStatusEvent> {
  return throwError(
    () => new KubeProvisionerError("live status needs the library's statuses$ (lifecycle issue), which this build does not have yet"),
  );
}
