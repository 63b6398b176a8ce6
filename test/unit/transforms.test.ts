// The informers cache projections of Deployments and Pods (src/informers/transforms/). What every
// reader computes from a projection must equal what it computes from the full object, for
// every state the fixtures model; and the projections leave their input untouched.
import type { V1Deployment, V1Pod } from '../../src/kube/objects.js';
import { describe, expect, it } from 'vitest';
import { MalformedObjectError } from '../../src/errors/api.js';
import { STORAGE_VOLUME_NAME } from '../../src/input/storage.js';
import { containerIdOf, CONTAINER_ID_LABEL, MANAGED_LABEL } from '../../src/input/labels.js';
import { cachedClaimFields } from '../../src/informers/transforms/claim.js';
import { cachedDeploymentFields } from '../../src/informers/transforms/deployment.js';
import { cachedEndpointSliceFields } from '../../src/informers/transforms/endpoint-slice.js';
import { cachedPodFields } from '../../src/informers/transforms/pod.js';
import { cachedServiceFields } from '../../src/informers/transforms/service.js';
import { diagnosePod } from '../../src/rollout/pod-diagnosis.js';
import { currentRolloutPods, newReplicaSetName } from '../../src/rollout/rollout-pods.js';
import { rolloutStatus } from '../../src/rollout/rollout-status.js';
import { REVISION_ANNOTATION } from '../../src/kube/objects.js';
import { workloadStatus } from '../../src/rollout/workload-status.js';
import {
  EVICTION_MESSAGE,
  HASH,
  IMAGE,
  OLD_HASH,
  T0,
  conditions,
  containerCreatingPod,
  containerStatus,
  createdDeployment,
  deployment,
  evictedPod,
  kubeletMessages,
  pendingPod,
  pod,
  podConditions,
  progressingDeployment,
  readyPod,
  runningPod,
  states,
  terminatedPod,
  unschedulablePod,
  waitingPod,
} from '../support/fixtures.js';

/** What a watch delivers on top of the fixtures: managedFields, which the cache must drop. */
function withManagedFields<T extends V1Deployment | V1Pod>(object: T): T {
  return {
    ...object,
    metadata: {
      ...object.metadata,
      managedFields: [
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'v1',
          time: T0,
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:status': {} },
        },
      ],
    },
  };
}

const deployments: Record<string, V1Deployment> = {
  complete: deployment(),
  created: createdDeployment(),
  progressing: progressingDeployment(),
  generationBehind: deployment({ generation: 3, observedGeneration: 2 }),
  deadlineExceeded: deployment({
    readyReplicas: 0,
    availableReplicas: 0,
    conditions: [conditions.unavailable(), conditions.progressDeadlineExceeded()],
  }),
  replicaSetCreateError: deployment({ updatedReplicas: 0, conditions: [conditions.replicaSetCreateError()] }),
  replicaFailure: deployment({
    readyReplicas: 0,
    conditions: [conditions.unavailable(), conditions.replicaFailure(), conditions.replicaSetUpdated()],
  }),
  paused: deployment({ paused: true, conditions: [conditions.deploymentPaused()] }),
  oldReplicas: deployment({ replicas: 2, statusReplicas: 3 }),
  noProgressDeadline: deployment({ progressDeadlineSeconds: null, conditions: [conditions.available()] }),
  deleting: deployment({ deletionTimestamp: T0 }),
  newReplicaSetCreated: progressingDeployment({ conditions: [conditions.unavailable(), conditions.newReplicaSetCreated()] }),
};

const pods: Record<string, V1Pod> = {
  pending: pendingPod(),
  unschedulable: unschedulablePod(),
  containerCreating: containerCreatingPod(),
  imageNotFound: waitingPod('ErrImagePull', kubeletMessages.imageNotFound()),
  backOff: waitingPod('ImagePullBackOff', kubeletMessages.backOffPulling()),
  crashLoop: waitingPod('CrashLoopBackOff', 'back-off 40s restarting failed container', {
    restartCount: 4,
    lastState: states.terminated(1, 'OOMKilled'),
  }),
  running: runningPod(),
  restarted: runningPod({ restartCount: 1, lastState: states.terminated(137, 'OOMKilled') }),
  ready: readyPod(),
  exited: terminatedPod(1),
  evicted: evictedPod(EVICTION_MESSAGE),
  terminating: readyPod({ deletionTimestamp: T0 }),
  initRunning: pod({
    initContainerStatuses: [containerStatus({ name: 'init', state: states.running() })],
    containerStatuses: [containerStatus({ state: states.waiting('PodInitializing') })],
  }),
  sidecar: pod({
    initContainers: [{ name: 'proxy', restartPolicy: 'Always' }],
    initContainerStatuses: [containerStatus({ name: 'proxy', ready: true, state: states.running() })],
    containerStatuses: [containerStatus({ ready: true })],
  }),
  oldRevision: waitingPod('CrashLoopBackOff', 'back-off', { hash: OLD_HASH, restartCount: 5 }),
  labelled: readyPod({ labels: { [CONTAINER_ID_LABEL]: '42' } }),
};

describe('cachedDeploymentFields', () => {
  it.each(Object.entries(deployments))('gives rolloutStatus() and newReplicaSetName() the same answers: %s', (_, full) => {
    const cached = cachedDeploymentFields(withManagedFields(full));
    expect(rolloutStatus(cached)).toEqual(rolloutStatus(full));
    expect(newReplicaSetName(cached)).toEqual(newReplicaSetName(full));
  });

  it('keeps what awaitRollout() and the informer read, and drops the rest', () => {
    const full = withManagedFields(
      progressingDeployment({ resourceVersion: '77', labels: { app: 'web', [MANAGED_LABEL]: 'true', [CONTAINER_ID_LABEL]: '42' } }),
    );
    const cached = cachedDeploymentFields(full);
    expect(cached.metadata).toMatchObject({
      name: full.metadata?.name,
      namespace: full.metadata?.namespace,
      uid: full.metadata?.uid,
      resourceVersion: '77',
    });
    expect(cached.metadata).not.toHaveProperty('managedFields');
    // Of the annotations, the revision only; of the pod template, each container's name, image and resources.
    expect(cached.metadata?.annotations).toEqual({ [REVISION_ANNOTATION]: '1' });
    // Of the labels, those read (ownership).
    expect(cached.metadata?.labels).toEqual({ [MANAGED_LABEL]: 'true', [CONTAINER_ID_LABEL]: '42' });
    expect(cached.spec?.template).toEqual({ spec: { containers: [{ name: 'manager', image: IMAGE, resources: undefined }] } });
    expect(cached.status?.conditions?.[0]).toEqual({
      type: 'Available',
      status: 'False',
      reason: 'MinimumReplicasUnavailable',
      message: 'Deployment does not have minimum availability.',
    });
    // This fixture is small (a watched Deployment is far larger); labels, revision and image stay.
    expect(JSON.stringify(cached).length).toBeLessThan(JSON.stringify(full).length * 0.6);
  });

  it("names the template's volumes when they are not a list, or when a volume after the claim's is not an object", () => {
    const junk = (volumes: unknown) => {
      const full = deployment();
      (full.spec!.template.spec as { volumes?: unknown }).volumes = volumes;
      return () => cachedDeploymentFields(full);
    };
    expect(junk('data')).toThrow(MalformedObjectError);
    expect(junk('data')).toThrow(/spec\.template\.spec\.volumes must be a list \(got a string\)/);
    const claim = { name: STORAGE_VOLUME_NAME, persistentVolumeClaim: { claimName: 'web-data' } };
    expect(junk([claim, 7])).toThrow(/spec\.template\.spec\.volumes\[\] must be an object \(got a number\)/);
    expect(cachedDeploymentFields(deploymentWithVolumes([claim, { name: 'other', emptyDir: {} }])).spec?.template.spec?.volumes).toEqual([
      { name: STORAGE_VOLUME_NAME, persistentVolumeClaim: { claimName: 'web-data' } },
    ]);

    function deploymentWithVolumes(volumes: unknown[]): V1Deployment {
      const full = deployment();
      (full.spec!.template.spec as { volumes?: unknown }).volumes = volumes;
      return full;
    }
  });

  it('leaves its input untouched and gives every Deployment the same shape', () => {
    const full = withManagedFields(deployment());
    const before = structuredClone(full);
    const cached = cachedDeploymentFields(full);
    expect(full).toEqual(before);
    const other = cachedDeploymentFields(deployment({ deletionTimestamp: T0, paused: true }));
    expect(Object.keys(other.metadata ?? {})).toEqual(Object.keys(cached.metadata ?? {}));
    expect(Object.keys(other.spec ?? {})).toEqual(Object.keys(cached.spec ?? {}));
    expect(Object.keys(other.status ?? {})).toEqual(Object.keys(cached.status ?? {}));
  });
});

describe('workloadStatus() on cached objects', () => {
  const managed = { app: 'web', [MANAGED_LABEL]: 'true', [CONTAINER_ID_LABEL]: '42' };
  it.each(Object.entries(deployments))('gives the same status as on full objects, with every Pod state: %s Deployment', (_, owner) => {
    const full = { ...owner, metadata: { ...owner.metadata, labels: managed } };
    for (const [state, one] of Object.entries(pods)) {
      const cached = workloadStatus(cachedDeploymentFields(withManagedFields(full)), [cachedPodFields(withManagedFields(one))]);
      expect(cached, state).toEqual(workloadStatus(full, [one]));
    }
  });
});

describe('cachedPodFields', () => {
  it.each(Object.entries(pods))('gives diagnosePod() the same answer: %s', (_, full) => {
    expect(diagnosePod(cachedPodFields(withManagedFields(full)))).toEqual(diagnosePod(full));
  });

  it.each(Object.entries(deployments))('gives currentRolloutPods() the same Pods for the %s Deployment', (_, owner) => {
    const all = Object.values(pods);
    const cached = all.map((full) => cachedPodFields(withManagedFields(full)));
    const names = (selected: readonly { metadata?: { name?: string } }[]) => selected.map((selectedPod) => selectedPod.metadata?.name);
    expect(names(currentRolloutPods(cachedDeploymentFields(owner), cached))).toEqual(names(currentRolloutPods(owner, all)));
    // A single revision: the pod-template-hash label decides when no ReplicaSet is named yet.
    const oneRevision = [pods.running!, pods.ready!];
    expect(names(currentRolloutPods(cachedDeploymentFields(owner), oneRevision.map(cachedPodFields)))).toEqual(
      names(currentRolloutPods(owner, oneRevision)),
    );
  });

  it('keeps the routing label and drops managedFields and the container spec', () => {
    const full = withManagedFields(pods.labelled!);
    const cached = cachedPodFields(full);
    expect(containerIdOf(cached)).toBe('42');
    expect(cached.metadata).not.toHaveProperty('managedFields');
    expect(cached.spec?.containers).toEqual([{ name: 'manager' }]);
  });

  it("keeps of a container's status what is read, not its image ID", () => {
    const cached = cachedPodFields(withManagedFields(pods.ready!));
    expect(pods.ready!.status?.containerStatuses?.[0]?.imageID).toBeTruthy();
    expect(cached.status?.containerStatuses?.[0]).not.toHaveProperty('imageID');
  });

  it('keeps the conditions read (PodScheduled, Ready) and drops the others', () => {
    const full = pods.ready!;
    expect(full.status?.conditions?.map((condition) => condition.type)).toEqual([
      'Initialized',
      'Ready',
      'ContainersReady',
      'PodScheduled',
    ]);
    expect(cachedPodFields(full).status?.conditions?.map((condition) => condition.type)).toEqual(['Ready', 'PodScheduled']);
  });

  it('keeps the labels read (ownership, template hash) and drops the others', () => {
    const full = readyPod({ labels: { [CONTAINER_ID_LABEL]: '42', [MANAGED_LABEL]: 'true', 'app.kubernetes.io/name': 'web' } });
    expect(full.metadata?.labels).toHaveProperty(['app.kubernetes.io/name']);
    expect(cachedPodFields(full).metadata?.labels).toEqual({
      [CONTAINER_ID_LABEL]: '42',
      [MANAGED_LABEL]: 'true',
      'pod-template-hash': HASH,
    });
  });

  it('leaves its input untouched', () => {
    const full = withManagedFields(pods.crashLoop!);
    const before = structuredClone(full);
    cachedPodFields(full);
    expect(full).toEqual(before);
  });
});

describe('owner references', () => {
  const owner = { apiVersion: 'v1', kind: 'Service', name: 'web', uid: 'uid-7', controller: true, blockOwnerDeletion: true };

  it("keep a Pod's owner by kind and name", () => {
    const full = readyPod();
    expect(full.metadata?.ownerReferences?.[0]).toHaveProperty('uid');
    expect(cachedPodFields(full).metadata?.ownerReferences).toEqual([
      { kind: 'ReplicaSet', name: full.metadata?.ownerReferences?.[0]?.name },
    ]);
  });

  it("keep an EndpointSlice's owner by kind and uid, and no Service's", () => {
    const slice = cachedEndpointSliceFields({
      metadata: { name: 'web-abcde', ownerReferences: [owner] },
      addressType: 'IPv4',
      endpoints: [],
    });
    expect(slice.metadata?.ownerReferences).toEqual([{ kind: 'Service', uid: 'uid-7' }]);
    const service = cachedServiceFields({ metadata: { name: 'web', ownerReferences: [{ ...owner, kind: 'Deployment' }] } });
    expect(service.metadata).not.toHaveProperty('ownerReferences');
  });
});

describe('parts many cached objects carry alike', () => {
  it("are one frozen copy: a Pod's conditions without a message, a running or completed container's state", () => {
    const completedInit = () => pod({ initContainerStatuses: [containerStatus({ name: 'seed', state: states.terminated(0) })] });
    const [one, other] = [cachedPodFields(readyPod()), cachedPodFields(completedInit())];
    expect(one.status?.conditions).toEqual([
      { type: 'Ready', status: 'True', reason: undefined, message: undefined },
      { type: 'PodScheduled', status: 'True', reason: undefined, message: undefined },
    ]);
    expect(one.status?.conditions?.[1]).toBe(other.status?.conditions?.[1]);
    expect(Object.isFrozen(one.status?.conditions?.[1])).toBe(true);
    expect(one.status?.containerStatuses?.[0]?.state).toBe(other.status?.containerStatuses?.[0]?.state);
    const seed = cachedPodFields(completedInit()).status?.initContainerStatuses?.[0]?.state;
    expect(seed).toEqual({ waiting: undefined, running: undefined, terminated: { exitCode: 0, reason: 'Completed', message: undefined } });
    expect(seed).toBe(other.status?.initContainerStatuses?.[0]?.state);
    expect(Object.isFrozen(seed?.terminated)).toBe(true);
  });

  it('are not shared when they carry a message (it often names its object): each keeps its own', () => {
    const unready = () => cachedPodFields(pod({ conditions: [podConditions.ready(false)] })).status?.conditions?.[0];
    expect(unready()).toEqual({
      type: 'Ready',
      status: 'False',
      reason: 'ContainersNotReady',
      message: 'containers with unready status: [manager]',
    });
    expect(unready()).not.toBe(unready());
    const crashing = () => cachedPodFields(waitingPod('CrashLoopBackOff', 'back-off 40s')).status?.containerStatuses?.[0]?.state;
    expect(crashing()).toEqual({
      waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s' },
      running: undefined,
      terminated: undefined,
    });
    expect(crashing()).not.toBe(crashing());
  });

  it("are one frozen copy: a revision, a claim's selected node, an endpoint's conditions, a Service status without an address", () => {
    expect(cachedDeploymentFields(deployment()).metadata?.annotations).toBe(cachedDeploymentFields(deployment()).metadata?.annotations);
    const claim = () =>
      cachedClaimFields({ metadata: { name: 'web', annotations: { 'volume.kubernetes.io/selected-node': 'worker-1', other: 'x' } } });
    expect(claim().metadata?.annotations).toEqual({ 'volume.kubernetes.io/selected-node': 'worker-1' });
    expect(claim().metadata?.annotations).toBe(claim().metadata?.annotations);
    const endpoint = () =>
      cachedEndpointSliceFields({
        metadata: { name: 'web-abcde' },
        addressType: 'IPv4',
        endpoints: [{ addresses: ['10.0.0.9'], conditions: { ready: true, serving: true, terminating: false } }],
      }).endpoints?.[0];
    expect(endpoint()?.conditions).toEqual({ ready: true, serving: true, terminating: false });
    expect(endpoint()?.conditions).toBe(endpoint()?.conditions);
    const service = (status: object) => cachedServiceFields({ metadata: { name: 'web' }, status }).status;
    expect(service({ loadBalancer: {} })).toEqual({ loadBalancer: { ingress: undefined } });
    expect(service({ loadBalancer: {} })).toBe(service({ loadBalancer: {} }));
    const balanced = { loadBalancer: { ingress: [{ ip: '192.0.2.7' }] } };
    expect(service(balanced)).toEqual({ loadBalancer: { ingress: [{ ip: '192.0.2.7', hostname: undefined }] } });
    expect(service(balanced)).not.toBe(service(balanced));
  });
});

describe('lists and sizes many cached objects carry alike', () => {
  const withResources = () => {
    const full = deployment();
    full.spec!.template.spec!.containers[0]!.resources = { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '500m' } };
    return full;
  };

  it("are one frozen copy: a template container's resources, and the input stays as it was", () => {
    const full = withResources();
    const cached = cachedDeploymentFields(full).spec?.template?.spec?.containers[0]?.resources;
    expect(cached).toEqual({ limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '500m' } });
    expect(cached).toBe(cachedDeploymentFields(withResources()).spec?.template?.spec?.containers[0]?.resources);
    expect(Object.isFrozen(cached?.limits)).toBe(true);
    expect(Object.isFrozen(full.spec?.template?.spec?.containers[0]?.resources?.limits)).toBe(false);
  });

  it("are one frozen copy: a Service's ports, an EndpointSlice's ports, a claim's request and capacity", () => {
    const service = () =>
      cachedServiceFields({ metadata: { name: 'web' }, spec: { ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 80 }] } })
        .spec?.ports;
    expect(service()).toEqual([{ name: 'http', protocol: 'TCP', port: 80, nodePort: undefined, targetPort: 80 }]);
    expect(service()).toBe(service());
    const slice = () =>
      cachedEndpointSliceFields({
        metadata: { name: 'web-abcde' },
        addressType: 'IPv4',
        endpoints: [],
        ports: [{ name: 'http', port: 80 }],
      }).ports;
    expect(slice()).toEqual([{ name: 'http', protocol: undefined, port: 80 }]);
    expect(slice()).toBe(slice());
    const claim = () =>
      cachedClaimFields({
        metadata: { name: 'web' },
        spec: { resources: { requests: { storage: '1Gi' } } },
        status: { phase: 'Bound', capacity: { storage: '1Gi' } },
      });
    expect(claim().spec?.resources).toEqual({ requests: { storage: '1Gi' } });
    expect(claim().spec?.resources).toBe(claim().spec?.resources);
    expect(claim().status?.capacity).toBe(claim().status?.capacity);
  });

  it("are one frozen copy: a Pod's init containers, and their statuses while no state carries a message", () => {
    const seeded = (state: ReturnType<typeof states.terminated>) =>
      cachedPodFields(pod({ initContainers: [{ name: 'seed' }], initContainerStatuses: [containerStatus({ name: 'seed', state })] }));
    const [one, other] = [seeded(states.terminated(0)), seeded(states.terminated(0))];
    expect(one.spec?.initContainers).toEqual([{ name: 'seed', restartPolicy: undefined }]);
    expect(one.spec?.initContainers).toBe(other.spec?.initContainers);
    expect(one.status?.initContainerStatuses).toEqual([
      {
        name: 'seed',
        image: IMAGE,
        ready: false,
        restartCount: 0,
        state: { waiting: undefined, running: undefined, terminated: { exitCode: 0, reason: 'Completed', message: undefined } },
        lastState: { waiting: undefined, running: undefined, terminated: undefined },
      },
    ]);
    expect(one.status?.initContainerStatuses).toBe(other.status?.initContainerStatuses);
    const failing = () => seeded(states.terminated(1, 'Error', 'disk full')).status?.initContainerStatuses;
    expect(failing()?.[0]?.state?.terminated).toEqual({ exitCode: 1, reason: 'Error', message: 'disk full' });
    expect(failing()).not.toBe(failing());
  });
});
