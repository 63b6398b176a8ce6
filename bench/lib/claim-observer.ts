// The independent observer of a namespace's PersistentVolumeClaims: its own watch, straight
// to the API server (not through the proxy the measured clients use), made with
// client-node's Watch rather than our transport. It stamps every event's arrival
// (high-resolution wall clock, comparable across the machine's processes) and records,
// per claim, when it was first seen Bound.
import { KubeConfig, Watch, type V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { hrNow } from './stats.js';

export class ClaimObserver {
  private readonly boundAt = new Map<string, number>();
  private controller: AbortController | undefined;
  private stopped = false;
  private lastVersion = '';
  reconnects = 0;

  private constructor(
    private readonly config: KubeConfig,
    readonly namespace: string,
  ) {}

  static async start(kubeconfigPath: string, namespace: string): Promise<ClaimObserver> {
    const config = new KubeConfig();
    config.loadFromFile(kubeconfigPath);
    const observer = new ClaimObserver(config, namespace);
    await observer.connect();
    return observer;
  }

  /** When the observer first saw the claim `name` Bound. */
  bound(name: string): number | undefined {
    return this.boundAt.get(name);
  }

  stop(): void {
    this.stopped = true;
    this.controller?.abort();
    this.controller = undefined;
  }

  private async connect(): Promise<void> {
    const path = `/api/v1/namespaces/${encodeURIComponent(this.namespace)}/persistentvolumeclaims`;
    const query = { timeoutSeconds: 3600, ...(this.lastVersion ? { resourceVersion: this.lastVersion } : {}) };
    let established = false;
    let failure: unknown;
    const controller = await new Watch(this.config).watch(
      path,
      query,
      (type: string, claim: V1PersistentVolumeClaim) => this.record(type, claim),
      (error: unknown) => {
        if (!established) {
          failure = error ?? new Error('closed before it was established');
          return;
        }
        if (this.stopped) return;
        this.reconnects += 1;
        setTimeout(() => {
          if (!this.stopped) void this.connect().catch(() => undefined);
        }, 100);
      },
    );
    if (failure !== undefined) {
      throw new Error(`observer: watch on ${path} failed: ${failure instanceof Error ? failure.message : 'unknown error'}`, {
        cause: failure,
      });
    }
    established = true;
    this.controller = controller;
    if (this.stopped) controller.abort();
  }

  private record(type: string, claim: V1PersistentVolumeClaim): void {
    const at = hrNow();
    const name = claim.metadata?.name;
    const resourceVersion = claim.metadata?.resourceVersion;
    if (!name || !resourceVersion || type === 'BOOKMARK' || type === 'ERROR') return;
    this.lastVersion = resourceVersion;
    if (claim.status?.phase === 'Bound' && !this.boundAt.has(name)) this.boundAt.set(name, at);
  }
}
