// The independent observer of a namespace's EndpointSlices: its own watch, straight to the
// API server (not through the proxy the measured clients use), made with client-node's
// Watch rather than our transport. It stamps every event's arrival (high-resolution wall
// clock, comparable across the machine's processes) and records, per Service, when a slice
// first listed a ready endpoint on every port the Service asked for: the moment a
// connection to the Service's address reaches its Pod.
import { KubeConfig, Watch, type V1EndpointSlice } from '@kubernetes/client-node';
import { hrNow } from './stats.js';

const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

export interface SliceObservation {
  readonly service: string;
  readonly type: string;
  readonly resourceVersion: string;
  readonly at: number;
  /** Ready endpoints in the slice, and its ports as `port/PROTOCOL`. */
  readonly readyEndpoints: number;
  readonly ports: readonly string[];
}

export class EndpointSliceObserver {
  readonly events: SliceObservation[] = [];
  private controller: AbortController | undefined;
  private stopped = false;
  private lastVersion = '';
  reconnects = 0;

  private constructor(
    private readonly config: KubeConfig,
    readonly namespace: string,
  ) {}

  static async start(kubeconfigPath: string, namespace: string): Promise<EndpointSliceObserver> {
    const config = new KubeConfig();
    config.loadFromFile(kubeconfigPath);
    const observer = new EndpointSliceObserver(config, namespace);
    await observer.connect();
    return observer;
  }

  /**
   * When the observer first saw `service` routed: a slice with a ready endpoint that
   * carries every one of `ports` (`port/PROTOCOL`), at or after `since`.
   */
  routedAt(service: string, ports: readonly string[], since = 0): SliceObservation | undefined {
    return this.events.find(
      (event) =>
        event.service === service && event.at >= since && event.readyEndpoints > 0 && ports.every((port) => event.ports.includes(port)),
    );
  }

  stop(): void {
    this.stopped = true;
    this.controller?.abort();
    this.controller = undefined;
  }

  private async connect(): Promise<void> {
    const path = `/apis/discovery.k8s.io/v1/namespaces/${encodeURIComponent(this.namespace)}/endpointslices`;
    const query = { timeoutSeconds: 3600, ...(this.lastVersion ? { resourceVersion: this.lastVersion } : {}) };
    let established = false;
    let failure: unknown;
    const controller = await new Watch(this.config).watch(
      path,
      query,
      (type: string, object: V1EndpointSlice) => this.record(type, object),
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

  private record(type: string, slice: V1EndpointSlice): void {
    const at = hrNow();
    const service = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
    const resourceVersion = slice.metadata?.resourceVersion;
    if (!service || !resourceVersion || type === 'BOOKMARK' || type === 'ERROR') return;
    this.lastVersion = resourceVersion;
    const readyEndpoints =
      type === 'DELETED' ? 0 : (slice.endpoints ?? []).filter((endpoint) => endpoint.conditions?.ready !== false).length;
    const ports = (slice.ports ?? []).map((port) => `${port.port ?? ''}/${port.protocol ?? 'TCP'}`);
    this.events.push({ service, type, resourceVersion, at, readyEndpoints, ports });
  }
}
