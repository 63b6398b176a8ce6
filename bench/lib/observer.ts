// The independent observer: its own watch on a namespace's Deployments, straight to the
// API server (not through the proxy the measured clients use), made with client-node's
// Watch rather than our transport. It records, for every event, when it arrived
// (high-resolution wall clock) and which resourceVersion it carried, and classifies the
// object with two predicates: ours (rolloutStatus) and kubectl rollout status's.
import { KubeConfig, Watch, type V1Deployment } from '@kubernetes/client-node';
import type { RolloutState } from '../../src/rollout/events.js';
import { rolloutStatus } from '../../src/rollout/rollout-status.js';
import { hrNow } from './stats.js';

export interface Observation {
  readonly name: string;
  readonly type: string;
  readonly resourceVersion: string;
  readonly at: number;
  /** rolloutStatus(object).state */
  readonly state: RolloutState;
  /** kubectl rollout status's own predicate (see kubectlComplete). */
  readonly kubectlComplete: boolean;
}

/** kubectl rollout status's predicate, as docs/readiness.md states it. */
export function kubectlComplete(deployment: V1Deployment): boolean {
  const status = deployment.status ?? {};
  const desired = deployment.spec?.replicas ?? 1;
  const progressing = status.conditions?.find((condition) => condition.type === 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded') return false;
  return (
    (deployment.metadata?.generation ?? 0) <= (status.observedGeneration ?? 0) &&
    (status.updatedReplicas ?? 0) >= desired &&
    (status.replicas ?? 0) <= (status.updatedReplicas ?? 0) &&
    (status.availableReplicas ?? 0) >= (status.updatedReplicas ?? 0)
  );
}

export class DeploymentObserver {
  readonly events: Observation[] = [];
  private readonly byKey = new Map<string, Observation>();
  private controller: AbortController | undefined;
  private stopped = false;
  private lastVersion = '';
  /** Watch connections the observer had to re-open (server closes); ideally 0. */
  reconnects = 0;

  private constructor(
    private readonly config: KubeConfig,
    readonly namespace: string,
  ) {}

  /** Resolves once the watch is established (the server answered 200). */
  static async start(kubeconfigPath: string, namespace: string): Promise<DeploymentObserver> {
    const config = new KubeConfig();
    config.loadFromFile(kubeconfigPath);
    const observer = new DeploymentObserver(config, namespace);
    await observer.connect();
    return observer;
  }

  /** The observation of `name` at exactly `resourceVersion`. */
  at(name: string, resourceVersion: string): Observation | undefined {
    return this.byKey.get(`${name}\u0000${resourceVersion}`);
  }

  /** The first observation of `name` that satisfies `predicate`. */
  first(name: string, predicate: (observation: Observation) => boolean): Observation | undefined {
    return this.events.find((observation) => observation.name === name && predicate(observation));
  }

  stop(): void {
    this.stopped = true;
    this.controller?.abort();
    this.controller = undefined;
  }

  private async connect(): Promise<void> {
    const path = `/apis/apps/v1/namespaces/${encodeURIComponent(this.namespace)}/deployments`;
    const query = {
      // Long enough for any run; a server close is re-watched from the last version.
      timeoutSeconds: 3600,
      ...(this.lastVersion ? { resourceVersion: this.lastVersion } : {}),
    };
    let established = false;
    let failure: unknown;
    const controller = await new Watch(this.config).watch(
      path,
      query,
      (type: string, object: V1Deployment) => this.record(type, object),
      (error: unknown) => {
        if (!established) {
          failure = error ?? new Error('closed before it was established');
          return;
        }
        if (this.stopped) return;
        // The server ended the watch: resume from the last version seen.
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

  private record(type: string, object: V1Deployment): void {
    const at = hrNow();
    const name = object.metadata?.name;
    const resourceVersion = object.metadata?.resourceVersion;
    if (!name || !resourceVersion || type === 'BOOKMARK' || type === 'ERROR') return;
    this.lastVersion = resourceVersion;
    const observation: Observation = {
      name,
      type,
      resourceVersion,
      at,
      state: rolloutStatus(object).state,
      kubectlComplete: kubectlComplete(object),
    };
    this.events.push(observation);
    this.byKey.set(`${name}\u0000${resourceVersion}`, observation);
  }
}
