// bench/heap.ts: the heap statuses$() holds per workload, without a cluster, in seconds.
// FAKES: the objects live in the unit tests' fake client (test/support/fake-kube.ts), not in
// an API server. To be representative of the real transport anyway, every object a list or
// watch delivers is serialised to JSON text and decoded by the transport's own watch stream
// reader (src/kube/watch-stream.ts: the line splitter and JSON.parse, in 16 KiB chunks as a
// socket delivers them), so the informers project fresh JSON.parse objects, as they do on a
// cluster. Each workload is what bench/soak.ts creates (our manifests: Deployment, Service
// with one port, claim with storage), with the fields a real API server and its controllers
// add: uid, resourceVersion, creationTimestamp, managedFields, defaults, statuses with
// conditions; plus a running Pod (an init container that seeded the volume) and the
// Service's EndpointSlice. A Pod is about 5 KB of JSON.
//
// Method: a warm-up namespace is watched and left first (so code compiled on first use is
// not counted), then heapUsed after a forced full GC is read before subscribing statuses$
// on the measured namespace and again once every workload has had its first status, with a
// consumer that keeps each workload's last status (as bench/lib/soak-child.ts does); the
// difference divided by N is the figure. Deterministic: fixed names, uids and times.
//
// Run: bash scripts/dev-node.sh node_modules/tsx/dist/cli.mjs bench/heap.ts (npm run bench:heap)
//   --workloads N        default 1000
//   --snapshot PREFIX    also write heap snapshots (node:v8) PREFIX-before and PREFIX-after.heapsnapshot
//                        at the two points measured (node ids are stable between them: diff them)
//   --json               print the figures as JSON
// Prints figures only; asserts nothing and writes no results file.
import { parseArgs } from 'node:util';
import { setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Subscription } from 'rxjs';
import { FakeKubernetes } from '../test/support/fake-kube.js';
import { InformerRegistry } from '../src/informers/registry.js';
import type { KindMap, ListRequestOptions, ObjectList, WatchHandle, WatchHandlers, WatchParams, WatchedKind } from '../src/kube/client.js';
import { WatchStreamReader } from '../src/kube/watch-stream.js';
import type { V1Deployment, V1EndpointSlice, V1PersistentVolumeClaim, V1Pod, V1Service } from '../src/kube/objects.js';
import { SOAK_IMAGE as IMAGE, soakWorkloadSpec } from './lib/soak-workload.js';
import { buildDeployment, workloadLabels } from '../src/members/deployment/manifest.js';
import { buildService, deploymentOwner } from '../src/members/service/manifest.js';
import { buildClaim } from '../src/members/claim/manifest.js';
import { statuses$ } from '../src/workload/reads/statuses.js';
import type { WorkloadStatusValue } from '../src/rollout/workload-status.js';

const { values } = parseArgs({
  options: { workloads: { type: 'string' }, snapshot: { type: 'string' }, json: { type: 'boolean' } },
  strict: true,
});
const WORKLOADS = Number(values.workloads ?? 1000);
// Named as bench/soak.ts names them (a prefix and a random suffix; ct-00000, ...): a string's
// length decides whether JSON.parse shares one copy of it.
const NAMESPACE = 'soak-big-5f0c3a';
const WARM_UP_NAMESPACE = 'soak-warm-9e1d7b';
const WARM_UP_WORKLOADS = 50;
const CHUNK = 16 * 1024;
const STORAGE_CLASS = 'local-wait';
const NODE = 'kwok-node-0';
const HASH = '6d4cf56db6';

// A real full GC without --expose-gc on the command line (tsx starts node itself).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

// ---- the fake client, with the transport's decoding -----------------------------------------

/** The fake client, but every listed and watched object arrives as JSON text decoded by the transport's reader. */
class DecodingFake extends FakeKubernetes {
  override watch<K extends WatchedKind>(kind: K, namespace: string, params: WatchParams, handlers: WatchHandlers<KindMap[K]>): WatchHandle {
    const reader = new WatchStreamReader(
      this.server,
      { verb: 'watch', resource: kind, namespace },
      {
        onEvent: (type, object) => handlers.onEvent(type, object),
        onClose: (error) => handlers.onClose(error),
      },
    );
    return super.watch(kind, namespace, params, {
      onEvent: (type, object) => {
        const text = `${JSON.stringify({ type, object })}\n`;
        for (let at = 0; at < text.length; at += CHUNK) reader.push(text.slice(at, at + CHUNK));
      },
      onClose: (error) => (error ? reader.fail(error) : reader.end(true)),
      ...(handlers.onOpen ? { onOpen: () => handlers.onOpen?.() } : {}),
    });
  }

  override async list<K extends WatchedKind>(
    kind: K,
    namespace: string,
    labelSelector: string | undefined,
    options?: ListRequestOptions,
  ): Promise<ObjectList<KindMap[K]>> {
    return JSON.parse(JSON.stringify(await super.list(kind, namespace, labelSelector, options))) as ObjectList<KindMap[K]>;
  }
}

// ---- objects as a real API server holds them ---------------------------------------------------

const CREATED = '2026-12-01T19:23:00Z';
const STARTED = '2026-12-01T19:23:04Z';
const READY = '2026-12-01T19:23:09Z';

function uid(kind: number, index: number): string {
  const hex = (kind * 1_000_000 + index).toString(16).padStart(12, '0');
  return `5f0c${hex.slice(0, 4)}-9a1e-4b7d-8c3f-${hex}`;
}

/** A FieldsV1 tree for `value`, as the server records a manager's fields: `f:` keys, `k:` for keyed list items. */
function fieldsOf(value: unknown): unknown {
  if (Array.isArray(value)) {
    const out: Record<string, unknown> = { '.': {} };
    for (const item of value) {
      const keyed = item as Record<string, unknown>;
      const key = keyed.name ?? keyed.type ?? keyed.port;
      if (key === undefined) return {};
      out[`k:${JSON.stringify({ [keyed.name !== undefined ? 'name' : keyed.type !== undefined ? 'type' : 'port']: key })}`] =
        fieldsOf(item);
    }
    return out;
  }
  if (value === null || typeof value !== 'object') return {};
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[`f:${key}`] = fieldsOf(item);
  return out;
}

function managed(manager: string, apiVersion: string, time: string, fields: Record<string, unknown>, subresource?: string) {
  return {
    manager,
    operation: 'Update',
    apiVersion,
    time,
    fieldsType: 'FieldsV1',
    fieldsV1: fieldsOf(fields),
    ...(subresource ? { subresource } : {}),
  };
}

interface Workload {
  readonly deployment: V1Deployment;
  readonly pod: V1Pod;
  readonly service: V1Service;
  readonly slice: V1EndpointSlice;
  readonly claim: V1PersistentVolumeClaim;
}

function workload(namespace: string, index: number): Workload {
  const name = `ct-${String(index).padStart(5, '0')}`;
  const spec = soakWorkloadSpec(namespace, name, String(1000 + index), STORAGE_CLASS);
  const built = buildDeployment(spec, { namespace });
  const deploymentUid = uid(1, index);
  const podIp = `10.244.${Math.floor(index / 250)}.${(index % 250) + 2}`;
  const template = structuredClone(built.spec!.template);
  const podSpec = {
    ...template.spec!,
    initContainers: template.spec!.initContainers?.map((container) => ({
      ...container,
      imagePullPolicy: 'IfNotPresent',
      terminationMessagePath: '/dev/termination-log',
    })),
    containers: template.spec!.containers.map((container) => ({
      ...container,
      imagePullPolicy: 'IfNotPresent',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: container.terminationMessagePolicy ?? 'File',
    })),
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    securityContext: {},
    schedulerName: 'default-scheduler',
  };
  const deployment = {
    ...built,
    metadata: {
      ...built.metadata,
      uid: deploymentUid,
      generation: 1,
      creationTimestamp: CREATED,
      annotations: { 'deployment.kubernetes.io/revision': '1' },
      managedFields: [
        managed('kube-provisioner', 'apps/v1', CREATED, { metadata: { labels: built.metadata!.labels }, spec: built.spec }),
        managed('kube-controller-manager', 'apps/v1', READY, { metadata: { annotations: {} }, status: {} }, 'status'),
      ],
    },
    spec: { ...built.spec!, template: { metadata: template.metadata!, spec: podSpec } },
    status: {
      observedGeneration: 1,
      replicas: 1,
      updatedReplicas: 1,
      readyReplicas: 1,
      availableReplicas: 1,
      conditions: [
        {
          type: 'Available',
          status: 'True',
          lastUpdateTime: READY,
          lastTransitionTime: READY,
          reason: 'MinimumReplicasAvailable',
          message: 'Deployment has minimum availability.',
        },
        {
          type: 'Progressing',
          status: 'True',
          lastUpdateTime: READY,
          lastTransitionTime: CREATED,
          reason: 'NewReplicaSetAvailable',
          message: `ReplicaSet "${name}-${HASH}" has successfully progressed.`,
        },
      ],
    },
  } as unknown as V1Deployment;
  const podName = `${name}-${HASH}-${(index * 7919).toString(36).padStart(5, 'x').slice(-5)}`;
  const podLabels = { ...template.metadata!.labels, 'pod-template-hash': HASH };
  const containerStatus = (container: { name: string }, init: boolean) => ({
    name: container.name,
    state: init
      ? {
          terminated: {
            exitCode: 0,
            reason: 'Completed',
            startedAt: STARTED,
            finishedAt: STARTED,
            containerID: `containerd://${uid(9, index)}`,
          },
        }
      : { running: { startedAt: STARTED } },
    lastState: {},
    ready: !init,
    restartCount: 0,
    image: IMAGE,
    imageID: `${IMAGE.split(':')[0]}@sha256:4f1d2c3b5a6978e0f1d2c3b4a5968e7f0d1c2b3a4958e6f7d0c1b2a3948e5f6d`,
    containerID: `containerd://${uid(init ? 8 : 7, index)}`,
    started: !init,
    volumeMounts: [{ name: 'storage', mountPath: init ? '/seed' : '/srv' }],
  });
  const podStatus = {
    phase: 'Running',
    conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({
      type,
      status: 'True',
      lastProbeTime: null,
      lastTransitionTime: type === 'PodScheduled' ? CREATED : READY,
    })),
    hostIP: '10.0.0.2',
    hostIPs: [{ ip: '10.0.0.2' }],
    podIP: podIp,
    podIPs: [{ ip: podIp }],
    startTime: STARTED,
    initContainerStatuses: (podSpec.initContainers ?? []).map((container) => containerStatus(container, true)),
    containerStatuses: podSpec.containers.map((container) => containerStatus(container, false)),
    qosClass: 'Guaranteed',
  };
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName,
      generateName: `${name}-${HASH}-`,
      namespace,
      uid: uid(2, index),
      creationTimestamp: CREATED,
      labels: podLabels,
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: `${name}-${HASH}`,
          uid: uid(3, index),
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      managedFields: [
        managed('kube-controller-manager', 'v1', CREATED, {
          metadata: { generateName: '', labels: podLabels, ownerReferences: [] },
          spec: podSpec,
        }),
        managed('kubelet', 'v1', READY, { status: podStatus }, 'status'),
      ],
    },
    spec: {
      ...podSpec,
      nodeName: NODE,
      serviceAccountName: 'default',
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
      priority: 0,
      preemptionPolicy: 'PreemptLowerPriority',
    },
    status: podStatus,
  } as unknown as V1Pod;
  const builtService = buildService(spec, { namespace, owner: deploymentOwner(deployment) });
  const serviceSpec = {
    ...builtService.spec!,
    clusterIP: `10.96.${Math.floor(index / 250)}.${(index % 250) + 1}`,
    clusterIPs: [`10.96.${Math.floor(index / 250)}.${(index % 250) + 1}`],
    ports: builtService.spec!.ports!.map((port) => ({ ...port, targetPort: port.targetPort ?? port.port })),
    sessionAffinity: 'None',
    ipFamilies: ['IPv4'],
    ipFamilyPolicy: 'SingleStack',
    internalTrafficPolicy: 'Cluster',
  };
  const service = {
    ...builtService,
    metadata: {
      ...builtService.metadata,
      uid: uid(4, index),
      creationTimestamp: CREATED,
      managedFields: [managed('kube-provisioner', 'v1', CREATED, { metadata: builtService.metadata, spec: builtService.spec })],
    },
    spec: serviceSpec,
    status: { loadBalancer: {} },
  } as unknown as V1Service;
  const sliceLabels = {
    ...builtService.metadata!.labels,
    'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
    'kubernetes.io/service-name': name,
  };
  const sliceBody = {
    addressType: 'IPv4',
    endpoints: [
      {
        addresses: [podIp],
        conditions: { ready: true, serving: true, terminating: false },
        nodeName: NODE,
        targetRef: { kind: 'Pod', name: podName, namespace, uid: uid(2, index) },
      },
    ],
    ports: serviceSpec.ports.map((port) => ({ name: port.name ?? '', port: port.port, protocol: port.protocol })),
  };
  const sliceMetadata = {
    name: `${name}-${(index * 104729).toString(36).padStart(5, 'x').slice(-5)}`,
    generateName: `${name}-`,
    labels: sliceLabels,
    annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': READY },
    ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name, uid: uid(4, index), controller: true, blockOwnerDeletion: true }],
  };
  const slice = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      ...sliceMetadata,
      namespace,
      uid: uid(5, index),
      generation: 1,
      creationTimestamp: CREATED,
      managedFields: [managed('endpointslice-controller.k8s.io', 'discovery.k8s.io/v1', READY, { metadata: sliceMetadata, ...sliceBody })],
    },
    ...sliceBody,
  } as unknown as V1EndpointSlice;
  const builtClaim = buildClaim({ ...spec, storage: spec.storage! }, { namespace, labels: workloadLabels(spec) });
  const claimAnnotations = {
    ...builtClaim.metadata!.annotations,
    'pv.kubernetes.io/bind-completed': 'yes',
    'volume.kubernetes.io/selected-node': NODE,
  };
  const claim = {
    ...builtClaim,
    metadata: {
      ...builtClaim.metadata,
      uid: uid(6, index),
      creationTimestamp: CREATED,
      annotations: claimAnnotations,
      finalizers: ['kubernetes.io/pvc-protection'],
      managedFields: [
        managed('kube-provisioner', 'v1', CREATED, { metadata: builtClaim.metadata, spec: builtClaim.spec }),
        managed('kube-controller-manager', 'v1', STARTED, { metadata: { annotations: claimAnnotations }, spec: { volumeName: '' } }),
        managed('kube-controller-manager', 'v1', STARTED, { status: { accessModes: [], capacity: {}, phase: '' } }, 'status'),
      ],
    },
    spec: { ...builtClaim.spec, volumeName: `pv-${namespace}-${name}`, volumeMode: 'Filesystem' },
    status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } },
  } as unknown as V1PersistentVolumeClaim;
  return { deployment, pod, service, slice, claim };
}

/** Stores `object` as is (the fake's create sets uid and status; the update puts back what the server would hold). */
async function put<K extends WatchedKind>(fake: FakeKubernetes, kind: K, namespace: string, object: KindMap[K]): Promise<void> {
  const name = object.metadata?.name ?? '';
  await fake.create(kind, namespace, object);
  fake.update(kind, name, (stored) => Object.assign(stored, structuredClone(object)), namespace);
}

async function fill(fake: FakeKubernetes, namespace: string, count: number): Promise<Workload> {
  let first: Workload | undefined;
  for (let index = 1; index <= count; index += 1) {
    const objects = workload(namespace, index);
    first ??= objects;
    await put(fake, 'persistentvolumeclaims', namespace, objects.claim);
    await put(fake, 'deployments', namespace, objects.deployment);
    fake.addPod(objects.pod, namespace);
    await put(fake, 'services', namespace, objects.service);
    await put(fake, 'endpointslices', namespace, objects.slice);
  }
  return first!;
}

// ---- measuring -------------------------------------------------------------------------------

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** Subscribes statuses$ and resolves once every workload has had a status; the last one of each is kept. */
function watch(
  fake: FakeKubernetes,
  informers: InformerRegistry,
  namespace: string,
  count: number,
): Promise<{ subscription: Subscription; last: Map<string, WorkloadStatusValue> }> {
  return new Promise((resolve, reject) => {
    const last = new Map<string, WorkloadStatusValue>();
    const started = { done: false };
    const subscription: Subscription = statuses$(fake, { namespace, informers }).subscribe({
      next: (event) => {
        last.set(event.name, event.status);
        if (!started.done && last.size === count) {
          started.done = true;
          setImmediate(() => resolve({ subscription, last }));
        }
      },
      error: reject,
    });
  });
}

const fake = new DecodingFake(NAMESPACE);
const informers = new InformerRegistry();
const sample = await fill(fake, WARM_UP_NAMESPACE, WARM_UP_WORKLOADS);
await fill(fake, NAMESPACE, WORKLOADS);
// The fake's event log is for watches from a resourceVersion; streaming lists need only the objects.
fake.compact();
const bytes = (object: unknown): number => Buffer.byteLength(JSON.stringify(object));

const warmUp = await watch(fake, informers, WARM_UP_NAMESPACE, WARM_UP_WORKLOADS);
warmUp.subscription.unsubscribe();
warmUp.last.clear();

const before = heapAfterGc();
if (values.snapshot) writeHeapSnapshot(`${values.snapshot}-before.heapsnapshot`);
const measured = await watch(fake, informers, NAMESPACE, WORKLOADS);
const after = heapAfterGc();
const perWorkload = (after - before) / WORKLOADS;
if (values.snapshot) writeHeapSnapshot(`${values.snapshot}-after.heapsnapshot`);
const states = [...measured.last.values()].reduce<Record<string, number>>((counts, status) => {
  counts[status.state] = (counts[status.state] ?? 0) + 1;
  return counts;
}, {});
const figures = {
  workloads: WORKLOADS,
  heapBeforeBytes: before,
  heapAfterBytes: after,
  bytesPerWorkload: Math.round(perWorkload),
  kibPerWorkload: Number((perWorkload / 1024).toFixed(2)),
  states,
  objectJsonBytes: {
    deployment: bytes(sample.deployment),
    pod: bytes(sample.pod),
    service: bytes(sample.service),
    endpointSlice: bytes(sample.slice),
    claim: bytes(sample.claim),
  },
};
measured.subscription.unsubscribe();
if (values.json) console.log(JSON.stringify(figures));
else {
  console.log(
    `statuses$ heap per workload (fake client, transport decoding): ${figures.kibPerWorkload} KiB (${figures.bytesPerWorkload} B)`,
  );
  console.log(`  ${WORKLOADS} workloads, states ${JSON.stringify(states)}`);
  console.log(`  heapUsed after GC: ${(before / 1048576).toFixed(2)} MiB before, ${(after / 1048576).toFixed(2)} MiB after`);
  console.log(`  object JSON bytes: ${JSON.stringify(figures.objectJsonBytes)}`);
}
