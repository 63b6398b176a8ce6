// connection$(): whether the namespace's shared informers (the ones statuses$ reads) reach
// the API server, for a page that must not say "live, no workloads" while it cannot:
// `connecting` until both have listed once, `unreachable` (with the client's words) while
// either retries, `connected` otherwise. Each change once. It opens no watch of its own:
// it observes the informers statuses$ holds (and holds them while subscribed).
import { Observable, Subscription, defer, distinctUntilChanged } from 'rxjs';
import { defaultInformerRegistry, type InformerRegistry } from '../../informers/registry.js';
import type { InformerNotice } from '../../informers/shared-informer.js';
import type { KubernetesClient } from '../../kube/client.js';
import { namespaceOption } from '../toolkit/read-options.js';
import { namespaceInformers } from '../../members/namespace-informers.js';

export interface InformerConnection {
  readonly state: 'connecting' | 'connected' | 'unreachable';
  readonly message?: string;
}

export interface ConnectionOptions {
  readonly namespace?: string;
  readonly instance?: string;
  readonly informers?: InformerRegistry;
}

export function connection$(client: KubernetesClient, options: ConnectionOptions = {}): Observable<InformerConnection> {
  return defer(() => {
    const namespace = namespaceOption(options.namespace, client);
    const informers = namespaceInformers({
      registry: options.informers ?? defaultInformerRegistry,
      client,
      namespace,
      instance: options.instance,
    });
    return new Observable<InformerConnection>((subscriber) => {
      const synced = new Set<string>();
      const failing = new Map<string, string>();
      const emit = (): void => {
        const message = [...failing.values()][0];
        if (message !== undefined) subscriber.next({ state: 'unreachable', message });
        else subscriber.next({ state: synced.size === 2 ? 'connected' : 'connecting' });
      };
      const follow = (kind: string) => (notice: InformerNotice<unknown>) => {
        if (notice.type === 'changed') return;
        if (notice.type === 'synced') synced.add(kind);
        if (notice.type === 'disconnected') failing.set(kind, notice.error instanceof Error ? notice.error.message : String(notice.error));
        if (notice.type === 'connected' || notice.type === 'synced') failing.delete(kind);
        emit();
      };
      emit();
      const subscription = new Subscription();
      // A fatal informer error (401, 403, TLS) ends statuses$; here it is one more reason it cannot be reached.
      const onError = (kind: string) => (error: unknown) => {
        failing.set(kind, error instanceof Error ? error.message : String(error));
        emit();
      };
      subscription.add(informers.deployments.observeAll().subscribe({ next: follow('deployments'), error: onError('deployments') }));
      subscription.add(informers.pods.observeAll().subscribe({ next: follow('pods'), error: onError('pods') }));
      return subscription;
    }).pipe(distinctUntilChanged((a, b) => a.state === b.state && a.message === b.message));
  });
}
