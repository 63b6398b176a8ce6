// The lifecycle benchmark's independent observer: its own watches on a namespace's
// Deployments and Pods, straight to the API server (not through the measured clients'
// proxy), made with client-node's Watch rather than our transport. It stamps each event's
// arrival (hrNow) and keeps what detection is measured against: a Deployment's generation,
// replicas and completeness (ours and kubectl's predicates), a Pod's deletion.
import { KubeConfig, Watch, type V1Deployment, type V1Pod } from '@kubernetes/client-node';
import { rolloutStatus } from '../../src/rollout/rollout-status.js';
import { CONTAINER_ID_LABEL } from '../../src/input/labels.js';
import { kubectlComplete } from './observer.js';
import { hrNow } from './stats.js';

export interface DeploymentSeen {
  readonly name: string;
  readonly resourceVersion: string;
  readonly at: number;
  readonly generation: number;
  readonly observedGeneration: number;
  readonly specReplicas: number;
  readonly complete: boolean;
  readonly kubectlComplete: boolean;
}

export interface PodSeen {
  readonly containerId: string;
  readonly uid: string;
  readonly type: string;
  readonly at: number;
}

export class LifecycleObserver {
  readonly deployments: DeploymentSeen[] = [];
  readonly pods: PodSeen[] = [];
  private readonly controllers: AbortController[] = [];

  private constructor(private readonly config: KubeConfig) {}

  static async start(kubeconfigPath: string, namespace: string): Promise<LifecycleObserver> {
    const config = new KubeConfig();
    config.loadFromFile(kubeconfigPath);
    const observer = new LifecycleObserver(config);
    const ns = encodeURIComponent(namespace);
    await observer.watch(`/apis/apps/v1/namespaces/${ns}/deployments`, (type, object: V1Deployment) => {
      const status = object.status ?? {};
      observer.deployments.push({
        name: object.metadata?.name ?? '',
        resourceVersion: object.metadata?.resourceVersion ?? '',
        at: hrNow(),
        generation: object.metadata?.generation ?? 0,
        observedGeneration: status.observedGeneration ?? 0,
        specReplicas: object.spec?.replicas ?? 1,
        complete: type !== 'DELETED' && rolloutStatus(object).state === 'Complete',
        kubectlComplete: type !== 'DELETED' && kubectlComplete(object),
      });
    });
    await observer.watch(`/api/v1/namespaces/${ns}/pods`, (type, object: V1Pod) => {
      observer.pods.push({
        containerId: object.metadata?.labels?.[CONTAINER_ID_LABEL] ?? '',
        uid: object.metadata?.uid ?? '',
        type: type === 'MODIFIED' && object.metadata?.deletionTimestamp ? 'TERMINATING' : type,
        at: hrNow(),
      });
    });
    return observer;
  }

  /** The observation of `name` at exactly `resourceVersion`. */
  deploymentAt(name: string, resourceVersion: string): DeploymentSeen | undefined {
    return this.deployments.find((seen) => seen.name === name && seen.resourceVersion === resourceVersion);
  }

  stop(): void {
    for (const controller of this.controllers.splice(0)) controller.abort();
  }

  private async watch<T>(path: string, onEvent: (type: string, object: T) => void): Promise<void> {
    let failure: unknown;
    const controller = await new Watch(this.config).watch(
      path,
      { timeoutSeconds: 3600 },
      (type: string, object: T) => {
        if (type !== 'BOOKMARK' && type !== 'ERROR') onEvent(type, object);
      },
      (error: unknown) => (failure ??= error),
    );
    if (failure) throw new Error(`observer: watch on ${path} failed`, { cause: failure });
    this.controllers.push(controller);
  }
}
