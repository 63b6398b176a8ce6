// Our KWOK configuration: the KwokConfiguration options and every Stage (KWOK v0.8.0 ships
// none built in). KWOK plays a Stage when its selector matches a Node or Pod event: it
// waits the stage's delay, then runs its steps (a strategic-merge patch of `status`
// rendered from a Go template, finalizer edits, deletion). Each patch causes a new watch
// event, so the stages below form small state machines keyed on the pod's phase and the
// first container's waiting reason.
//
// Fault modes let tests drive the library into realistic kubelet failures with an
// ordinary spec: label a pod `kwok.kube-provisioner.dev/fault=<mode>`, or use an image
// from the registry `faults.kwok.test/<mode>/...` (e.g. `faults.kwok.test/crash-loop:v1`).
// Fault stages have weight 1, and KWOK only picks among the positive-weight stages when
// several match; the default stages also exclude fault pods explicitly.
import type { YamlValue } from './yaml.js';
import { toYamlDocuments } from './yaml.js';

export const FAULT_LABEL = 'kwok.kube-provisioner.dev/fault';
/** KWOK manages only the nodes with this annotation (its own convention), never a real kubelet's. */
export const KWOK_NODE_SELECTOR = 'kwok.x-k8s.io/node=fake';
export const FAULT_IMAGE_REGISTRY = 'faults.kwok.test';

export const FAULT_MODES = [
  'image-not-found',
  'image-pull-backoff',
  'transient-pull-backoff',
  'crash-loop',
  'never-ready',
  'create-container-config-error',
] as const;
export type FaultMode = (typeof FAULT_MODES)[number];

/** An image that selects `mode` by its registry host, e.g. `faults.kwok.test/crash-loop:v1`. */
export function faultImage(mode: FaultMode, tag = 'v1'): string {
  return `${FAULT_IMAGE_REGISTRY}/${mode}:${tag}`;
}

/** The message the `create-container-config-error` mode reports, as the kubelet would. */
export const MISSING_SECRET_MESSAGE = 'secret "kwok-missing-secret" not found';

export interface NodeCapacity {
  readonly cpu: string;
  readonly memory: string;
  readonly pods: string;
}

export const DEFAULT_NODE_CAPACITY: NodeCapacity = { cpu: '1000', memory: '4Ti', pods: '2000' };

export interface KwokConfigOptions {
  /** Time from scheduling to Running+Ready (jittered up to +20 %). */
  readonly podReadyDelayMs: number;
  /** Period of the fault modes' cycles (pull back-off, crash loop). */
  readonly faultCycleMs: number;
  /** Reported as the nodes' kubelet version. */
  readonly kubeletVersion: string;
  /** Pod IPs come from here unless a node has spec.podCIDR. */
  readonly podCidr: string;
  /** InternalIP of the simulated nodes. */
  readonly nodeIp: string;
  readonly defaultNodeCapacity: NodeCapacity;
  /** KWOK renews each node's Lease every quarter of this; node-lifecycle relies on it. */
  readonly nodeLeaseDurationSeconds: number;
}

export const DEFAULT_KWOK_CONFIG: Omit<KwokConfigOptions, 'kubeletVersion'> = {
  podReadyDelayMs: 1000,
  faultCycleMs: 1000,
  podCidr: '10.244.0.0/16',
  nodeIp: '172.30.0.10',
  defaultNodeCapacity: DEFAULT_NODE_CAPACITY,
  nodeLeaseDurationSeconds: 40,
};

/** The whole `--config` file: a KwokConfiguration and our Stage documents. */
export function renderKwokConfig(options: KwokConfigOptions): string {
  return toYamlDocuments([kwokConfiguration(options), ...nodeStages(options), ...podStages(options)]);
}

/**
 * KWOK v0.8.0 applies its option defaults only when NO KwokConfiguration is given, so a
 * config file must spell out every option that has one (a zero parallelism is fatal).
 */
function kwokConfiguration(options: KwokConfigOptions): YamlValue {
  return {
    apiVersion: 'config.kwok.x-k8s.io/v1alpha1',
    kind: 'KwokConfiguration',
    options: {
      cidr: options.podCidr,
      nodeIP: options.nodeIp,
      // With the --manage-nodes-with-annotation-selector flag, which must agree with it.
      manageAllNodes: false,
      manageNodesWithAnnotationSelector: KWOK_NODE_SELECTOR,
      nodeLeaseDurationSeconds: options.nodeLeaseDurationSeconds,
      nodeLeaseParallelism: 4,
      podPlayStageParallelism: 16,
      nodePlayStageParallelism: 4,
      podsOnNodeSyncParallelism: 2,
      enablePodsOnNodeSyncListPager: true,
      enablePodsOnNodeSyncStreamWatch: false,
      // These only matter for KWOK's HTTP server, which we never enable.
      enableDebuggingHandlers: false,
      enableContentionProfiling: false,
      enableProfilingHandler: false,
    },
  };
}

// ---------------------------------------------------------------------------------------
// Stage documents

interface StageInput {
  readonly name: string;
  readonly kind: 'Node' | 'Pod';
  readonly match: readonly YamlValue[];
  readonly delay?: DelayRange;
  readonly weight?: number;
  readonly steps: readonly YamlValue[];
}

interface DelayRange {
  readonly minMs: number;
  readonly maxMs: number;
}

function stage(input: StageInput): YamlValue {
  return {
    apiVersion: 'kwok.x-k8s.io/v1alpha1',
    kind: 'Stage',
    metadata: { name: input.name },
    spec: {
      resourceRef: { apiGroup: 'v1', kind: input.kind },
      selector: { matchExpressions: [...input.match] },
      weight: input.weight ?? 0,
      delay: input.delay === undefined ? undefined : renderDelay(input.delay),
      steps: [...input.steps],
    },
  };
}

/** KWOK waits a uniformly random time between durationMilliseconds and the jitter bound. */
function renderDelay(range: DelayRange): YamlValue {
  const minMs = Math.max(0, Math.round(range.minMs));
  const maxMs = Math.max(minMs, Math.round(range.maxMs));
  return maxMs > minMs ? { durationMilliseconds: minMs, jitterDurationMilliseconds: maxMs } : { durationMilliseconds: minMs };
}

function scaled(baseMs: number, fromFactor: number, toFactor: number): DelayRange {
  return { minMs: baseMs * fromFactor, maxMs: baseMs * toFactor };
}

// Selector requirements: a jq expression evaluated on the object, compared as strings.
function jq(key: string, operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist', values?: readonly string[]): YamlValue {
  return { jq: values === undefined ? { key, operator } : { key, operator, values: [...values] } };
}

const notBeingDeleted = jq('.metadata.deletionTimestamp', 'DoesNotExist');
const scheduled = jq('.spec.nodeName', 'Exists');
const phaseIs = (...phases: string[]): YamlValue => jq('.status.phase', 'In', phases);
const WAITING_REASON = '.status.containerStatuses[0].state.waiting.reason';
const waitingReasonIs = (...reasons: string[]): YamlValue => jq(WAITING_REASON, 'In', reasons);

/**
 * The pod's fault mode: its label, else the first path component of the first container
 * image from the fault registry; null (no output) for ordinary pods.
 */
const FAULT_MODE_EXPRESSION = (() => {
  const imagePattern = JSON.stringify(`^${FAULT_IMAGE_REGISTRY.replaceAll('.', '\\.')}/(?<mode>[^/:@]+)`);
  const fromLabel = `.metadata.labels[${JSON.stringify(FAULT_LABEL)}]`;
  const fromImage = `([.spec.containers[]?.image | capture(${imagePattern}) | .mode] | first)`;
  return `(${fromLabel} // ${fromImage})`;
})();
const faultModeIs = (mode: FaultMode): YamlValue => jq(FAULT_MODE_EXPRESSION, 'In', [mode]);
const notAFaultPod = jq(FAULT_MODE_EXPRESSION, 'NotIn', [...FAULT_MODES]);

function patchStatus(template: string): YamlValue {
  return { patch: { subresource: 'status', root: 'status', template } };
}

// ---------------------------------------------------------------------------------------
// Nodes

const NODE_CONDITIONS: readonly { type: string; status: string; reason: string; message: string }[] = [
  { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' },
  { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory', message: 'kubelet has sufficient memory available' },
  { type: 'DiskPressure', status: 'False', reason: 'KubeletHasNoDiskPressure', message: 'kubelet has no disk pressure' },
  { type: 'PIDPressure', status: 'False', reason: 'KubeletHasSufficientPID', message: 'kubelet has sufficient PID available' },
];

function nodeStages(options: KwokConfigOptions): YamlValue[] {
  const readyStatus = jq('.status.conditions[]? | select(.type == "Ready") | .status', 'In', ['True']);
  const notReadyStatus = jq('.status.conditions[]? | select(.type == "Ready") | .status', 'NotIn', ['True']);
  return [
    stage({ name: 'node-initialize', kind: 'Node', match: [notReadyStatus], steps: [patchStatus(nodeInitializeTemplate(options))] }),
    // The real kubelet reports status when it changes and renews its Lease every 10 s;
    // KWOK renews the Lease (nodeLeaseDurationSeconds), this refreshes the conditions.
    stage({
      name: 'node-heartbeat',
      kind: 'Node',
      match: [readyStatus, jq('.status.phase', 'In', ['Running'])],
      delay: { minMs: 20_000, maxMs: 25_000 },
      steps: [patchStatus(nodeHeartbeatTemplate())],
    }),
  ];
}

function nodeInitializeTemplate(options: KwokConfigOptions): string {
  const capacity = options.defaultNodeCapacity;
  return [
    '{{- $now := Now }}',
    '{{- $node := . }}',
    'conditions:',
    ...NODE_CONDITIONS.flatMap((condition) => [
      `- type: ${condition.type}`,
      `  status: "${condition.status}"`,
      `  reason: ${condition.reason}`,
      `  message: ${JSON.stringify(condition.message)}`,
      '  lastHeartbeatTime: {{ $now | Quote }}',
      '  lastTransitionTime: {{ $now | Quote }}',
    ]),
    'addresses:',
    '- type: InternalIP',
    '  address: {{ NodeIP | Quote }}',
    '- type: Hostname',
    '  address: {{ $node.metadata.name | Quote }}',
    // Allocatable is what the scheduler fits pods into: all of the capacity.
    '{{- if $node.status.capacity }}',
    'capacity: {{ toJson $node.status.capacity }}',
    'allocatable: {{ toJson $node.status.capacity }}',
    '{{- else }}',
    `capacity: ${JSON.stringify(capacity)}`,
    `allocatable: ${JSON.stringify(capacity)}`,
    '{{- end }}',
    'nodeInfo:',
    '  architecture: amd64',
    '  operatingSystem: linux',
    '  osImage: KWOK simulated node',
    '  kernelVersion: {{ printf "kwok-%s" Version | Quote }}',
    '  containerRuntimeVersion: {{ printf "kwok://%s" Version | Quote }}',
    `  kubeletVersion: ${JSON.stringify(options.kubeletVersion)}`,
    '  machineID: {{ $node.metadata.uid | Quote }}',
    '  systemUUID: {{ $node.metadata.uid | Quote }}',
    '  bootID: {{ $node.metadata.uid | Quote }}',
    'phase: Running',
  ].join('\n');
}

/** Conditions merge by type, so only the heartbeat time needs sending. */
function nodeHeartbeatTemplate(): string {
  return [
    '{{- $now := Now }}',
    'conditions:',
    ...NODE_CONDITIONS.flatMap((condition) => [
      `- type: ${condition.type}`,
      `  status: "${condition.status}"`,
      '  lastHeartbeatTime: {{ $now | Quote }}',
    ]),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------
// Pods: templates

// Every pod template starts here: `$pod` is the pod as KWOK saw it, `$unready` the names
// of its containers (for the kubelet's "containers with unready status" message).
const POD_PRELUDE = [
  '{{- $now := Now }}',
  '{{- $pod := . }}',
  '{{- $unready := list }}',
  '{{- range $pod.spec.containers }}{{ $unready = append $unready .name }}{{ end }}',
];

/** Host and pod IPs, assigned once (the kubelet keeps them for the pod's lifetime). */
const POD_IPS = [
  '{{- if not $pod.status.startTime }}',
  'startTime: {{ $now | Quote }}',
  '{{- end }}',
  '{{- if not $pod.status.hostIP }}',
  '{{- with NodeIPsWith $pod.spec.nodeName }}',
  'hostIP: {{ index . 0 | Quote }}',
  'hostIPs:',
  '{{- range . }}',
  '- ip: {{ . | Quote }}',
  '{{- end }}',
  '{{- end }}',
  '{{- end }}',
  '{{- if not $pod.status.podIP }}',
  '{{- with PodIPsWith $pod.spec.nodeName (or $pod.spec.hostNetwork false) $pod.metadata.uid $pod.metadata.name $pod.metadata.namespace }}',
  'podIP: {{ index . 0 | Quote }}',
  'podIPs:',
  '{{- range . }}',
  '- ip: {{ . | Quote }}',
  '{{- end }}',
  '{{- end }}',
  '{{- end }}',
];

interface ConditionSpec {
  readonly type: string;
  readonly status: 'True' | 'False';
  readonly reason?: 'ContainersNotReady' | 'PodCompleted';
}

/**
 * Pod conditions (merged by type, so PodScheduled stays as the scheduler wrote it). The
 * transition time is kept while a condition's status does not change, as the kubelet does.
 */
function podConditions(conditions: readonly ConditionSpec[]): string[] {
  return [
    'conditions:',
    ...conditions.flatMap((condition) => {
      const since = `$since${condition.type}`;
      const lines = [
        `{{- ${since} := $now }}`,
        `{{- range $pod.status.conditions }}{{ if and (eq .type "${condition.type}") (eq .status "${condition.status}") .lastTransitionTime }}{{ ${since} = .lastTransitionTime }}{{ end }}{{ end }}`,
        `- type: ${condition.type}`,
        `  status: "${condition.status}"`,
        `  lastTransitionTime: {{ ${since} | Quote }}`,
      ];
      if (condition.reason === 'ContainersNotReady') {
        lines.push(
          '  reason: ContainersNotReady',
          '  message: {{ printf "containers with unready status: [%s]" (join " " $unready) | Quote }}',
        );
      } else if (condition.reason === 'PodCompleted') {
        lines.push('  reason: PodCompleted');
      }
      return lines;
    }),
  ];
}

const NOT_READY_CONDITIONS: readonly ConditionSpec[] = [
  { type: 'PodReadyToStartContainers', status: 'True' },
  { type: 'Initialized', status: 'True' },
  { type: 'Ready', status: 'False', reason: 'ContainersNotReady' },
  { type: 'ContainersReady', status: 'False', reason: 'ContainersNotReady' },
];

const READY_CONDITIONS: readonly ConditionSpec[] = [
  { type: 'PodReadyToStartContainers', status: 'True' },
  { type: 'Initialized', status: 'True' },
  { type: 'Ready', status: 'True' },
  { type: 'ContainersReady', status: 'True' },
];

const COMPLETED_CONDITIONS: readonly ConditionSpec[] = [
  { type: 'PodReadyToStartContainers', status: 'False' },
  { type: 'Initialized', status: 'True' },
  { type: 'Ready', status: 'False', reason: 'PodCompleted' },
  { type: 'ContainersReady', status: 'False', reason: 'PodCompleted' },
];

/**
 * `containerStatuses` (an atomic list: the patch replaces it whole). For each container
 * `$c`, `$prev` is its current status (or an empty dict) and `$restarts` its restart
 * count; `entry` renders the list item from those.
 */
function containerStatuses(entry: readonly string[]): string[] {
  return [
    'containerStatuses:',
    '{{- range $c := $pod.spec.containers }}',
    '{{- $prev := dict }}',
    '{{- range $pod.status.containerStatuses }}{{ if eq .name $c.name }}{{ $prev = . }}{{ end }}{{ end }}',
    '{{- $restarts := int (or $prev.restartCount 0) }}',
    '{{- $containerID := printf "containerd://%s" (sha256sum (printf "%s/%s/%d" $pod.metadata.uid $c.name $restarts)) }}',
    ...entry,
    '{{- end }}',
  ];
}

const CONTAINER_IDENTITY = ['- name: {{ $c.name | Quote }}', '  image: {{ $c.image | Quote }}'];
const KEEP_LAST_STATE = ['{{- with $prev.lastState }}', '  lastState: {{ toJson . }}', '{{- end }}'];

function runningContainer(ready: boolean): string[] {
  return [
    ...CONTAINER_IDENTITY,
    '  containerID: {{ $containerID | Quote }}',
    `  ready: ${String(ready)}`,
    '  started: true',
    '  restartCount: {{ $restarts }}',
    '  state:',
    '    running:',
    '      startedAt: {{ $now | Quote }}',
    ...KEEP_LAST_STATE,
  ];
}

/** `messageExpression` is a Go template pipeline; it may use `$c`. */
function waitingContainer(reason: string, messageExpression?: string): string[] {
  return [
    ...CONTAINER_IDENTITY,
    '  ready: false',
    '  started: false',
    '  restartCount: {{ $restarts }}',
    '  state:',
    '    waiting:',
    `      reason: ${reason}`,
    ...(messageExpression === undefined ? [] : [`      message: {{ ${messageExpression} | Quote }}`]),
    ...KEEP_LAST_STATE,
  ];
}

/** The container exited with code 1; the kubelet backs off 10 s, 20 s, ... up to 5 m. */
const CRASHED_CONTAINER = [
  '{{- $startedAt := $now }}',
  '{{- with $prev.state }}{{ with .running }}{{ $startedAt = .startedAt }}{{ end }}{{ end }}',
  '{{- $restarts = add $restarts 1 }}',
  '{{- $backoff := index (list "10s" "20s" "40s" "1m20s" "2m40s" "5m0s") (min (sub $restarts 1) 5) }}',
  ...CONTAINER_IDENTITY,
  '  ready: false',
  '  started: false',
  '  restartCount: {{ $restarts }}',
  '  state:',
  '    waiting:',
  '      reason: CrashLoopBackOff',
  '      message: {{ printf "back-off %s restarting failed container=%s pod=%s_%s(%s)" $backoff $c.name $pod.metadata.name $pod.metadata.namespace $pod.metadata.uid | Quote }}',
  '  lastState:',
  '    terminated:',
  '      exitCode: 1',
  '      reason: Error',
  '      startedAt: {{ $startedAt | Quote }}',
  '      finishedAt: {{ $now | Quote }}',
  '      containerID: {{ $containerID | Quote }}',
];

const COMPLETED_CONTAINER = [
  '{{- $startedAt := $now }}',
  '{{- with $prev.state }}{{ with .running }}{{ $startedAt = .startedAt }}{{ end }}{{ end }}',
  ...CONTAINER_IDENTITY,
  '  containerID: {{ $containerID | Quote }}',
  '  ready: false',
  '  started: false',
  '  restartCount: {{ $restarts }}',
  '  state:',
  '    terminated:',
  '      exitCode: 0',
  '      reason: Completed',
  '      startedAt: {{ $startedAt | Quote }}',
  '      finishedAt: {{ $now | Quote }}',
];

/** Init containers ran to completion; sidecars (restartPolicy Always) keep running. */
const INIT_CONTAINERS_DONE = [
  '{{- with $pod.spec.initContainers }}',
  'initContainerStatuses:',
  '{{- range $c := . }}',
  '- name: {{ $c.name | Quote }}',
  '  image: {{ $c.image | Quote }}',
  '  restartCount: 0',
  '{{- if eq (or $c.restartPolicy "") "Always" }}',
  '  ready: true',
  '  started: true',
  '  state:',
  '    running:',
  '      startedAt: {{ $now | Quote }}',
  '{{- else }}',
  '  ready: true',
  '  started: false',
  '  state:',
  '    terminated:',
  '      exitCode: 0',
  '      reason: Completed',
  '      startedAt: {{ $now | Quote }}',
  '      finishedAt: {{ $now | Quote }}',
  '{{- end }}',
  '{{- end }}',
  '{{- end }}',
];

function podTemplate(
  phase: 'Pending' | 'Running' | 'Succeeded',
  conditions: readonly ConditionSpec[],
  containerEntry: readonly string[],
  extra: readonly string[] = [],
): string {
  return [...POD_PRELUDE, `phase: ${phase}`, ...POD_IPS, ...podConditions(conditions), ...containerStatuses(containerEntry), ...extra].join(
    '\n',
  );
}

/** Sandbox up, images being pulled: what `kubectl get pod` shows as ContainerCreating. */
const CREATING_TEMPLATE = podTemplate('Pending', NOT_READY_CONDITIONS, waitingContainer('ContainerCreating'));
const READY_TEMPLATE = podTemplate('Running', READY_CONDITIONS, runningContainer(true), INIT_CONTAINERS_DONE);
const RUNNING_NOT_READY_TEMPLATE = podTemplate('Running', NOT_READY_CONDITIONS, runningContainer(false), INIT_CONTAINERS_DONE);
const COMPLETED_TEMPLATE = podTemplate('Succeeded', COMPLETED_CONDITIONS, COMPLETED_CONTAINER);
const CRASHED_TEMPLATE = podTemplate('Running', NOT_READY_CONDITIONS, CRASHED_CONTAINER);
const CONFIG_ERROR_TEMPLATE = podTemplate(
  'Pending',
  NOT_READY_CONDITIONS,
  waitingContainer('CreateContainerConfigError', JSON.stringify(MISSING_SECRET_MESSAGE)),
);

// containerd's words for a missing image, and for a registry it cannot reach.
const NOT_FOUND_ERROR =
  'printf "rpc error: code = NotFound desc = failed to pull and unpack image \\"%s\\": failed to resolve reference \\"%s\\": %s: not found" $c.image $c.image $c.image';
const UNREACHABLE_ERROR =
  'printf "rpc error: code = DeadlineExceeded desc = failed to pull and unpack image \\"%s\\": failed to resolve reference \\"%s\\": failed to do request: dial tcp 198.51.100.7:443: i/o timeout" $c.image $c.image';

function pullFailedTemplate(pullError: string): string {
  return podTemplate('Pending', NOT_READY_CONDITIONS, waitingContainer('ErrImagePull', pullError));
}

function pullBackOffTemplate(pullError: string): string {
  const message = `printf "Back-off pulling image \\"%s\\": ErrImagePull: %s" $c.image (${pullError})`;
  return podTemplate('Pending', NOT_READY_CONDITIONS, waitingContainer('ImagePullBackOff', message));
}

// ---------------------------------------------------------------------------------------
// Pods: stages

function podStages(options: KwokConfigOptions): YamlValue[] {
  const readyDelay = scaled(options.podReadyDelayMs, 1, 1.2);
  const base = [notBeingDeleted, scheduled];
  return [
    // Every pod bound to a node starts ContainerCreating, whatever its fault mode.
    stage({
      name: 'pod-create',
      kind: 'Pod',
      match: [...base, phaseIs('Pending'), jq('.status.containerStatuses', 'DoesNotExist')],
      steps: [patchStatus(CREATING_TEMPLATE)],
    }),
    stage({
      name: 'pod-ready',
      kind: 'Pod',
      match: [...base, notAFaultPod, phaseIs('Pending'), waitingReasonIs('ContainerCreating')],
      delay: readyDelay,
      steps: [patchStatus(READY_TEMPLATE)],
    }),
    stage({
      name: 'pod-complete',
      kind: 'Pod',
      match: [
        ...base,
        notAFaultPod,
        phaseIs('Running'),
        jq('.spec.restartPolicy', 'In', ['Never', 'OnFailure']),
        jq('.status.conditions[]? | select(.type == "Ready") | .status', 'In', ['True']),
      ],
      delay: readyDelay,
      steps: [patchStatus(COMPLETED_TEMPLATE)],
    }),
    // Without this, pods stay Terminating forever: nobody else confirms their deletion.
    stage({
      name: 'pod-delete',
      kind: 'Pod',
      match: [jq('.metadata.deletionTimestamp', 'Exists')],
      steps: [{ finalizers: { empty: true } }, { delete: true }],
    }),
    ...faultStages(options),
  ];
}

function faultStages(options: KwokConfigOptions): YamlValue[] {
  const cycle = options.faultCycleMs;
  const pullFails = scaled(cycle, 0.4, 0.6);
  const backOffEnds = scaled(cycle, 1, 1.5);
  const readyDelay = scaled(options.podReadyDelayMs, 1, 1.2);
  const faultStage = (mode: FaultMode, step: string, match: readonly YamlValue[], delay: DelayRange, template: string): YamlValue =>
    stage({
      name: `fault-${mode}-${step}`,
      kind: 'Pod',
      match: [notBeingDeleted, scheduled, faultModeIs(mode), ...match],
      delay,
      weight: 1,
      steps: [patchStatus(template)],
    });
  const creating = [phaseIs('Pending'), waitingReasonIs('ContainerCreating')];
  const running = [phaseIs('Running'), jq('.status.containerStatuses[0].state.running', 'Exists')];

  const pullCycle = (mode: FaultMode, pullError: string): YamlValue[] => [
    faultStage(mode, 'pull-failed', creating, pullFails, pullFailedTemplate(pullError)),
    faultStage(mode, 'back-off', [waitingReasonIs('ErrImagePull')], pullFails, pullBackOffTemplate(pullError)),
    faultStage(mode, 'pull-retried', [waitingReasonIs('ImagePullBackOff')], backOffEnds, pullFailedTemplate(pullError)),
  ];

  return [
    ...pullCycle('image-not-found', NOT_FOUND_ERROR),
    ...pullCycle('image-pull-backoff', UNREACHABLE_ERROR),
    // One failed pull and back-off, then the registry answers.
    faultStage('transient-pull-backoff', 'pull-failed', creating, pullFails, pullFailedTemplate(UNREACHABLE_ERROR)),
    faultStage('transient-pull-backoff', 'back-off', [waitingReasonIs('ErrImagePull')], pullFails, pullBackOffTemplate(UNREACHABLE_ERROR)),
    faultStage('transient-pull-backoff', 'pulled', [waitingReasonIs('ImagePullBackOff')], backOffEnds, READY_TEMPLATE),
    // Starts (never passing readiness), exits 1, backs off, restarts: forever.
    faultStage('crash-loop', 'started', creating, readyDelay, RUNNING_NOT_READY_TEMPLATE),
    faultStage('crash-loop', 'crashed', running, pullFails, CRASHED_TEMPLATE),
    faultStage('crash-loop', 'restarted', [waitingReasonIs('CrashLoopBackOff')], backOffEnds, RUNNING_NOT_READY_TEMPLATE),
    faultStage('never-ready', 'started', creating, readyDelay, RUNNING_NOT_READY_TEMPLATE),
    faultStage('create-container-config-error', 'failed', creating, pullFails, CONFIG_ERROR_TEMPLATE),
  ];
}
