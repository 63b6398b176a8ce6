// STAND-IN, to be replaced by the library's statuses$ (issue 13, "statuses$(api, { namespace })"),
// which is being built on another branch. It exists only so the live page can be tested
// before that lands, and it is deliberately simple: every change of any managed Deployment
// or Pod in the namespace recomputes every workload's status (no failure-policy grace
// windows: a Pod diagnosis of severity `failed` reads as `failed` at once).
//
// It reads the same shared informers provisioning uses (a Deployment watch and a Pod watch,
// label-selected on managed=true), with a routing key of its own that puts every object
// under one key, and maps them with rolloutStatus, currentRolloutPods and diagnosePod.
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { combineLatest, defer, map, mergeMap, scan, from, type Observable } from 'rxjs';
import type { KubernetesClient } from '../../src/kube/client.js';
import { defaultInformerRegistry, type InformerRegistry } from '../../src/informers/registry.js';
import { diagnosePod } from '../../src/rollout/pod-diagnosis.js';
import { currentRolloutPods } from '../../src/rollout/rollout-pods.js';
import { rolloutStatus } from '../../src/rollout/rollout-status.js';
import { CONTAINER_ID_LABEL, MANAGED_SELECTOR, NODE_ID_LABEL, containerIdOf } from '../../src/spec/labels.js';
import type { WorkloadState, WorkloadStatus, WorkloadStatusEvent } from '../../src/ui/backend.js';
import { cachedDeploymentFields, cachedPodFields } from '../../src/workload/cached-fields.js';

const ALL = 'all';

export function standInStatuses$(
  api: KubernetesClient,
  options: { readonly namespace: string; readonly informers?: InformerRegistry },
): Observable<WorkloadStatusEvent> {
  const registry = options.informers ?? defaultInformerRegistry;
  const { namespace } = options;
  const deployments$ = defer(() =>
    registry
      .informer(api, {
        kind: 'deployments',
        namespace,
        labelSelector: MANAGED_SELECTOR,
        routingKeyName: 'standin-statuses-all',
        routingKey: () => ALL,
        transformName: 'standin-statuses',
        transform: deploymentFields,
      })
      .observe(ALL),
  );
  const pods$ = defer(() =>
    registry
      .informer(api, {
        kind: 'pods',
        namespace,
        labelSelector: MANAGED_SELECTOR,
        routingKeyName: 'standin-statuses-all',
        routingKey: () => ALL,
        transformName: 'standin-statuses',
        transform: podFields,
      })
      .observe(ALL),
  );

  interface Step {
    readonly seen: ReadonlyMap<string, string>;
    readonly changes: readonly WorkloadStatusEvent[];
  }
  return combineLatest([deployments$, pods$]).pipe(
    map(([deployments, pods]) => statusesOf(namespace, deployments, pods)),
    scan<WorkloadStatusEvent[], Step>(
      (previous, current) => {
        const seen = new Map<string, string>();
        const changes: WorkloadStatusEvent[] = [];
        for (const event of current) {
          const key = JSON.stringify(event.status);
          seen.set(event.providerId, key);
          if (previous.seen.get(event.providerId) !== key) changes.push(event);
        }
        for (const providerId of previous.seen.keys()) {
          if (!seen.has(providerId)) changes.push(missing(namespace, providerId));
        }
        return { seen, changes };
      },
      { seen: new Map(), changes: [] },
    ),
    mergeMap((step) => from(step.changes)),
  );
}

function statusesOf(namespace: string, deployments: readonly V1Deployment[], pods: readonly V1Pod[]): WorkloadStatusEvent[] {
  const podsByContainer = new Map<string, V1Pod[]>();
  for (const pod of pods) {
    const id = containerIdOf(pod);
    if (id === undefined) continue;
    const list = podsByContainer.get(id);
    if (list) list.push(pod);
    else podsByContainer.set(id, [pod]);
  }
  const at = new Date().toISOString();
  return deployments.flatMap((deployment) => {
    const name = deployment.metadata?.name;
    const containerId = deployment.metadata?.labels?.[CONTAINER_ID_LABEL];
    if (!name || containerId === undefined) return [];
    return [
      {
        type: 'status' as const,
        at,
        namespace,
        name,
        providerId: `${namespace}/${name}`,
        containerId,
        nodeId: deployment.metadata?.labels?.[NODE_ID_LABEL] ?? '',
        status: statusOf(deployment, podsByContainer.get(containerId) ?? []),
      },
    ];
  });
}

function statusOf(deployment: V1Deployment, pods: readonly V1Pod[]): WorkloadStatus {
  const rollout = rolloutStatus(deployment);
  const live = pods.filter((pod) => !pod.metadata?.deletionTimestamp);
  const readyPod = live.find((pod) =>
    pod.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True'),
  );
  const diagnoses = currentRolloutPods(deployment, pods).flatMap((pod) => diagnosePod(pod) ?? []);
  const failure = diagnoses.find((diagnosis) => diagnosis.severity === 'failed');
  const generation = deployment.metadata?.generation ?? 0;
  const detail = {
    podIp: readyPod?.status?.podIP ?? null,
    nodeName: (readyPod ?? live[0])?.spec?.nodeName ?? null,
    restarts: pods.reduce((sum, pod) => sum + (pod.status?.containerStatuses ?? []).reduce((n, c) => n + (c.restartCount ?? 0), 0), 0),
    image: deployment.spec?.template?.spec?.containers?.[0]?.image ?? null,
    generation,
  };
  const status = (state: WorkloadState, reason: string, message: string, pod = diagnoses[0]): WorkloadStatus => ({
    state,
    reason,
    message,
    ...detail,
    ...(pod ? { pod } : {}),
  });

  if (deployment.metadata?.deletionTimestamp) return status('stopping', 'Deleting', 'the Deployment is being deleted');
  if ((deployment.spec?.replicas ?? 1) === 0) {
    return pods.length > 0
      ? status('stopping', 'PodsTerminating', `${pods.length} pod(s) terminating`)
      : status('offline', 'ScaledToZero', 'stopped');
  }
  if (rollout.state === 'Failed') return status('failed', rollout.reason, rollout.message);
  if (failure) return status('failed', failure.reason, failure.message, failure);
  if (rollout.state === 'Complete') return status('running', rollout.reason, rollout.message);
  const waiting = diagnoses[0];
  return status(generation <= 1 ? 'creating' : 'updating', waiting?.reason ?? rollout.reason, waiting?.message ?? rollout.message);
}

function missing(namespace: string, providerId: string): WorkloadStatusEvent {
  const name = providerId.slice(namespace.length + 1);
  return {
    type: 'status',
    at: new Date().toISOString(),
    namespace,
    name,
    providerId,
    containerId: '',
    nodeId: '',
    status: {
      state: 'missing',
      reason: 'NotFound',
      message: 'the Deployment is gone',
      podIp: null,
      nodeName: null,
      restarts: 0,
      image: null,
      generation: 0,
    },
  };
}

/** The rollout fields, plus the labels and the image the status shows. */
function deploymentFields(deployment: V1Deployment): V1Deployment {
  const cached = cachedDeploymentFields(deployment);
  return {
    ...cached,
    metadata: { ...cached.metadata, labels: deployment.metadata?.labels },
    spec: cached.spec && {
      ...cached.spec,
      template: { spec: { containers: (deployment.spec?.template?.spec?.containers ?? []).map(({ name, image }) => ({ name, image })) } },
    },
  };
}

/** The rollout fields, plus the Pod IP. */
function podFields(pod: V1Pod): V1Pod {
  const cached = cachedPodFields(pod);
  return { ...cached, status: cached.status && { ...cached.status, podIP: pod.status?.podIP } };
}
