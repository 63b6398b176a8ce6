// One real Kubernetes node beside the KWOK nodes: containerd (Debian's) with runc or crun,
// a bridge pod network (the CNI plugins), the kubelet and kube-proxy (built from the same
// Kubernetes module as the control plane), and a local registry holding the test images.
//
// It comes in two steps, because the API server must know the kubelet's CA before it
// starts: prepareRealNode() checks the machine, builds what is missing, takes the machine-
// wide lock (one real node per machine: it changes host-wide state), cleans up after a
// node whose owner died, and makes the certificates; start() then runs the parts once the
// control plane is up. stop() deletes the node's pods, stops every part by pid and undoes
// what it changed on the machine (host-state.ts).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { CONTROL_PLANE_DIR, runBuild } from '../binaries.js';
import { randomToken } from '../credentials.js';
import type { StaticTokenUser } from '../credentials.js';
import { apiCall, apiJson, httpGet, waitUntil } from '../http.js';
import type { ApiTarget } from '../http.js';
import { LOOPBACK, reserveFreePorts } from '../ports.js';
import { describeExit, startComponent, tailLog } from '../processes.js';
import type { ComponentProcess } from '../processes.js';
import { startLockedReaper } from '../reaper.js';
import type { Reaper } from '../reaper.js';
import { makeKubeletPki } from './certificates.js';
import type { KubeletPki } from './certificates.js';
import {
  CGROUP_WRITABLE_HANDLER,
  cgroupWritableScript,
  cniConflist,
  containerdConfig,
  kubeProxyConfig,
  kubeletConfig,
  registryHostsToml,
} from './configs.js';
import type { NodePaths, PodNetwork } from './configs.js';
import { buildSystemImages, buildTestImages, pushImages } from './images.js';
import { listNodeChains } from './iptables.js';
import { checkHost } from './preflight.js';
import type { HostTools } from './preflight.js';
import { cleanHost, hostRecordFile, readHostRecord, realNodeLockFile, snapshotHost, writeHostRecord } from './host-state.js';
import type { HostRecord } from './host-state.js';

export const REAL_NODE_NAME = 'real-node-0';
/** On the real node: the label its pods are steered to it by, and the taint that keeps everyone else off. */
export const REAL_NODE_LABEL = 'kube-provisioner.dev/real-node';
export const REAL_NODE_TAINT = REAL_NODE_LABEL;

/**
 * A namespace with these annotations runs its pods on the real node and only there: the
 * API server's PodNodeSelector and PodTolerationRestriction admission plugins add the node
 * selector and the toleration to every pod created in it.
 */
export const REAL_NODE_NAMESPACE_ANNOTATIONS: Readonly<Record<string, string>> = {
  'scheduler.alpha.kubernetes.io/node-selector': `${REAL_NODE_LABEL}=true`,
  'scheduler.alpha.kubernetes.io/defaultTolerations': JSON.stringify([{ key: REAL_NODE_TAINT, operator: 'Exists', effect: 'NoSchedule' }]),
};

/** Created at start with REAL_NODE_NAMESPACE_ANNOTATIONS: its pods run on the real node. */
export const REAL_NODE_NAMESPACE = 'real-node';

export const DEFAULT_POD_NETWORK: PodNetwork = { name: 'kube-provisioner-real-node', bridge: 'kpreal0', subnet: '10.89.0.0/24' };
const CGROUP_NAME = 'kube-provisioner-real-node';
const REAL_NODE_PROCESSES = ['registry', 'containerd', 'kubelet', 'kube-proxy'] as const;
export type RealNodeProcess = (typeof REAL_NODE_PROCESSES)[number];

export interface RealNodeOptions {
  /** How long to wait for another real node on this machine to stop (default 20 minutes). */
  readonly lockTimeoutMs?: number;
  /** Keep the node's work dir (logs, configs) after stop. */
  readonly keepWorkDir?: boolean;
  /** The kubelet's longest wait between restarts of a crashing container (default 5s; the kubelet's own default is 5m). */
  readonly maxContainerRestartPeriod?: string;
}

export interface RealNode {
  readonly nodeName: string;
  /** The node's InternalIP: this machine's own address. */
  readonly nodeIp: string;
  readonly podSubnet: string;
  /** host:port of the local registry (images are named registry.kube-provisioner.test/...). */
  readonly registryAddress: string;
  readonly workDir: string;
  readonly logDir: string;
  /** Where tests put the directories of local PersistentVolumes on this node (removed at stop). */
  readonly volumesDir: string;
  /** The private key (made for this run) whose public half is root's authorized key in the system images. */
  readonly sshKeyFile: string;
  /** The RuntimeClass (and containerd handler) that lets systemd run as PID 1: a writable cgroup of the container's own. */
  readonly systemContainerRuntimeClass: string;
  readonly pids: Readonly<Partial<Record<RealNodeProcess | 'reaper', number>>>;
  readonly startedInMs: number;
  /** Deletes the node's pods, stops its processes and cleans the machine. Idempotent. */
  stop(): Promise<void>;
  /** After stop: what the cleanup could not undo (empty when the machine is as it was). */
  readonly leftovers: readonly string[];
  /** Synchronous last resort for process-exit hooks (the reaper cleans the machine after). */
  killNowSync(): void;
}

export interface ControlPlaneAccess {
  /** The admin's view of the API server. */
  readonly admin: ApiTarget;
  readonly kubeconfigFor: (user: string) => string;
}

export interface PreparedRealNode {
  readonly nodeName: string;
  readonly nodeIp: string;
  /** Token users the cluster must add: the kubelet (a member of system:nodes) and kube-proxy. */
  readonly tokenUsers: readonly StaticTokenUser[];
  /** Flags the API server needs to reach the kubelet and steer pods to it. */
  readonly apiserverArgs: readonly string[];
  readonly authorizationModes: readonly string[];
  start(access: ControlPlaneAccess): Promise<RealNode>;
  /** Gives the machine back without starting (the control plane failed first). */
  release(): Promise<void>;
}

const LOCK_TIMEOUT_MS = 20 * 60_000;
const START_TIMEOUT_MS = 90_000;
const STOP_GRACE_MS = 5_000;
const DRAIN_TIMEOUT_MS = 60_000;

export async function prepareRealNode(options: RealNodeOptions, log: (line: string) => void): Promise<PreparedRealNode> {
  const tools = checkHost();
  const binDir = await runBuild('real-node', log);
  const workDir = mkdtempSync(join(tmpdir(), 'kube-provisioner-real-node-'));
  const node = new RealNodeRun(tools, binDir, workDir, options, log);
  try {
    await node.takeMachine();
  } catch (error) {
    rmSync(workDir, { recursive: true, force: true });
    throw error;
  }
  return node.prepared();
}

class RealNodeRun {
  readonly nodeName = REAL_NODE_NAME;
  readonly network = DEFAULT_POD_NETWORK;
  private readonly paths: ReturnType<typeof nodePaths>;
  private readonly processes = new Map<RealNodeProcess, ComponentProcess>();
  private readonly kubeletUser: StaticTokenUser;
  private readonly proxyUser: StaticTokenUser;
  private pki: KubeletPki | undefined;
  private record: HostRecord | undefined;
  private reaper: Reaper | undefined;
  private access: ControlPlaneAccess | undefined;
  private registryAddress = '';
  private stopping: Promise<void> | undefined;
  private keptLogs = '';
  private leftovers: readonly string[] = [];

  constructor(
    private readonly tools: HostTools,
    private readonly binDir: string,
    private readonly workDir: string,
    private readonly options: RealNodeOptions,
    private readonly log: (line: string) => void,
  ) {
    this.paths = nodePaths(workDir);
    this.kubeletUser = { name: `system:node:${this.nodeName}`, token: randomToken(), groups: ['system:nodes'] };
    this.proxyUser = { name: 'system:kube-proxy', token: randomToken(), groups: [] };
  }

  /** The lock, then a clean machine, then our record of it; the reaper undoes it if we die. */
  async takeMachine(): Promise<void> {
    const lockFile = realNodeLockFile();
    mkdirSync(dirname(lockFile), { recursive: true });
    const waitStarted = Date.now();
    const announce = setTimeout(() => this.log(`waiting for the real-node lock ${lockFile}: ${describeHolder(lockFile)}`), 2_000);
    try {
      mkdirSync(this.paths.logs, { recursive: true });
      writeFileSync(this.paths.pidFile, '');
      this.reaper = await startLockedReaper({
        parentPid: process.pid,
        pidFile: this.paths.pidFile,
        workDir: this.workDir,
        removeWorkDir: false,
        afterKill: cleanupCommand(),
        afterKillDir: join(CONTROL_PLANE_DIR, '..', '..'),
        lockFile,
        lockTimeoutMs: this.options.lockTimeoutMs ?? LOCK_TIMEOUT_MS,
        describeHolder: () => describeHolder(lockFile),
      });
    } finally {
      clearTimeout(announce);
    }
    if (Date.now() - waitStarted > 2_000) this.log(`real-node lock taken after ${((Date.now() - waitStarted) / 1000).toFixed(0)} s`);
    writeFileSync(ownerFile(lockFile), `pid ${process.pid} (${process.argv.slice(1).join(' ')}) since ${new Date().toISOString()}\n`);
    try {
      await this.cleanAfterDeadNode();
      this.checkMachineIsFree();
      this.record = snapshotHost(this.workDir, CGROUP_NAME, this.network);
      writeHostRecord(this.record);
      this.pki = makeKubeletPki(this.paths.pki, this.nodeName, this.tools.nodeIp);
    } catch (error) {
      await this.releaseMachine();
      throw error;
    }
  }

  private async cleanAfterDeadNode(): Promise<void> {
    const previous = readHostRecord();
    if (previous === undefined) return;
    this.log(`cleaning up after a real node whose owner (pid ${previous.ownerPid}, ${previous.startedAt}) did not: ${previous.workDir}`);
    const left = await cleanHost(previous, { log: this.log, spareProcessGroup: this.reaper?.pid });
    if (left.length > 0) throw new Error(`the previous real node's host state could not be cleaned: ${left.join('; ')}`);
  }

  /** Refuses to share the machine with a node that is not ours (another kubelet, a CNI). */
  private checkMachineIsFree(): void {
    const found: string[] = [];
    const chains = listNodeChains();
    if (chains.length > 0) found.push(`iptables chains ${chains.join('; ')}`);
    if (existsSync(`/sys/class/net/${this.network.bridge}`)) found.push(`the network interface ${this.network.bridge}`);
    if (existsSync(join('/sys/fs/cgroup/memory', CGROUP_NAME)) || existsSync(join('/sys/fs/cgroup', CGROUP_NAME)))
      found.push(`the cgroup /${CGROUP_NAME}`);
    if (found.length > 0) {
      throw new Error(
        `this machine already has Kubernetes node state that no real node of ours recorded: ${found.join('; ')}. ` +
          'Is another kubelet or CNI running here? Remove it, then start again.',
      );
    }
  }

  prepared(): PreparedRealNode {
    const pki = this.requirePki();
    return {
      nodeName: this.nodeName,
      nodeIp: this.tools.nodeIp,
      tokenUsers: [this.kubeletUser, this.proxyUser],
      apiserverArgs: [
        `--kubelet-certificate-authority=${pki.caFile}`,
        `--kubelet-client-certificate=${pki.apiserverClientCertFile}`,
        `--kubelet-client-key=${pki.apiserverClientKeyFile}`,
        // The API server dials the Hostname first by default, which does not resolve here.
        '--kubelet-preferred-address-types=InternalIP,Hostname',
        '--enable-admission-plugins=NodeRestriction,PodNodeSelector,PodTolerationRestriction',
      ],
      authorizationModes: ['Node'],
      start: (access) => this.start(access),
      release: () => this.stop(),
    };
  }

  // ---- start ---------------------------------------------------------------------------

  private async start(access: ControlPlaneAccess): Promise<RealNode> {
    const startedAt = Date.now();
    this.access = access;
    try {
      await this.startAll();
    } catch (error) {
      this.stopping ??= this.stopAll(true);
      const kept = await this.stopping.then(() => this.keptLogs);
      throw new Error(`the real node failed to start: ${(error as Error).message} (its logs are kept in ${kept})`, { cause: error });
    }
    const startedInMs = Date.now() - startedAt;
    this.log(
      `real node ${this.nodeName} Ready in ${(startedInMs / 1000).toFixed(1)} s (${this.tools.nodeIp}, pods on ${this.network.subnet})`,
    );
    const currentPids = () => this.currentPids();
    const leftovers = () => this.leftovers;
    return {
      get leftovers() {
        return leftovers();
      },
      nodeName: this.nodeName,
      nodeIp: this.tools.nodeIp,
      podSubnet: this.network.subnet,
      registryAddress: this.registryAddress,
      workDir: this.workDir,
      logDir: this.paths.logs,
      volumesDir: this.paths.volumes,
      sshKeyFile: this.paths.sshKey,
      systemContainerRuntimeClass: CGROUP_WRITABLE_HANDLER,
      get pids() {
        return currentPids();
      },
      startedInMs,
      stop: () => this.stop(),
      killNowSync: () => {
        for (const component of this.processes.values()) component.killNow();
      },
    };
  }

  private async startAll(): Promise<void> {
    const [registryPort = 0, kubeletPort = 0, kubeletHealthz = 0, proxyHealthz = 0, proxyMetrics = 0] = await reserveFreePorts(5);
    this.registryAddress = `${LOOPBACK}:${registryPort}`;
    this.writeConfigs({ kubeletPort, kubeletHealthz, proxyHealthz, proxyMetrics });
    this.prepareCgroups();

    this.spawn('registry', join(this.binDir, 'registry'), [`--address=${this.registryAddress}`]);
    await this.waitFor('registry', 'the registry to answer /v2/', async () => {
      const response = await httpGet(`http://${this.registryAddress}/v2/`);
      return response.status === 200 || `HTTP ${response.status}`;
    });
    await pushImages(`http://${this.registryAddress}`, buildTestImages(join(this.binDir, 'pause')));
    execFileSync(this.tools.sshKeygen, ['-q', '-t', 'ed25519', '-N', '', '-C', `root@${this.nodeName}`, '-f', this.paths.sshKey], {
      stdio: 'ignore',
      timeout: 10_000,
    });
    await pushImages(`http://${this.registryAddress}`, buildSystemImages(this.binDir, readFileSync(`${this.paths.sshKey}.pub`, 'utf8')));

    this.spawn('containerd', this.tools.containerd, ['--config', this.paths.containerdConfig]);
    await this.waitFor('containerd', 'containerd to answer on its socket', async () => {
      execFileSync(this.tools.ctr, ['--address', this.paths.containerdSocket, 'version'], { stdio: 'ignore', timeout: 5_000 });
      return true;
    });

    const access = this.requireAccess();
    this.spawn('kubelet', join(this.binDir, 'kubelet'), [
      `--config=${this.paths.kubeletConfig}`,
      `--kubeconfig=${access.kubeconfigFor(this.kubeletUser.name)}`,
      `--root-dir=${this.paths.kubeletRoot}`,
      `--hostname-override=${this.nodeName}`,
      `--node-ip=${this.tools.nodeIp}`,
      `--node-labels=${REAL_NODE_LABEL}=true`,
      '--v=1',
    ]);
    await this.waitFor('kubelet', `node ${this.nodeName} Ready`, async () => {
      const response = await apiCall(access.admin, 'GET', `/api/v1/nodes/${this.nodeName}`);
      if (response.status !== 200) return `GET node: HTTP ${response.status}`;
      const node = JSON.parse(response.body) as NodeLike;
      const ready = node.status?.conditions?.find((condition) => condition.type === 'Ready');
      return ready?.status === 'True' || `Ready=${ready?.status ?? 'unknown'} ${ready?.message ?? ''}`;
    });

    this.spawn('kube-proxy', join(this.binDir, 'kube-proxy'), [`--config=${this.paths.kubeProxyConfig}`, '--v=1']);
    await this.waitFor('kube-proxy', 'kube-proxy /healthz', async () => {
      const response = await httpGet(`http://${LOOPBACK}:${proxyHealthz}/healthz`);
      return response.status === 200 || `HTTP ${response.status} ${response.body.slice(0, 200)}`;
    });
    await apiJson(access.admin, 'POST', '/apis/node.k8s.io/v1/runtimeclasses', {
      apiVersion: 'node.k8s.io/v1',
      kind: 'RuntimeClass',
      metadata: { name: CGROUP_WRITABLE_HANDLER },
      handler: CGROUP_WRITABLE_HANDLER,
    });
    await apiJson(access.admin, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: REAL_NODE_NAMESPACE, annotations: REAL_NODE_NAMESPACE_ANNOTATIONS },
    });
  }

  private writeConfigs(ports: { kubeletPort: number; kubeletHealthz: number; proxyHealthz: number; proxyMetrics: number }): void {
    const pki = this.requirePki();
    const access = this.requireAccess();
    for (const dir of [
      this.paths.cniConfDir,
      this.paths.cniIpamDir,
      this.paths.podLogs,
      this.paths.kubeletRoot,
      this.paths.containerdRoot,
      this.paths.volumes,
      dirname(this.paths.sshKey),
    ]) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    }
    writeFileSync(this.paths.cgroupWritableRuntime, cgroupWritableScript(join(this.binDir, 'cgroup-writable'), this.tools.ociRuntime), {
      mode: 0o755,
    });
    writeFileSync(join(this.paths.cniConfDir, '10-kube-provisioner.conflist'), cniConflist(this.network, this.paths.cniIpamDir));
    writeFileSync(
      this.paths.containerdConfig,
      containerdConfig(this.paths, { ociRuntime: this.tools.ociRuntime, cniPluginDir: this.tools.cniPluginDir }),
    );
    const hosts = registryHostsToml(this.registryAddress);
    mkdirSync(join(this.paths.registryHosts, hosts.dir), { recursive: true });
    writeFileSync(join(this.paths.registryHosts, hosts.dir, 'hosts.toml'), hosts.contents);
    writeFileSync(
      this.paths.kubeletConfig,
      kubeletConfig(this.paths, {
        nodeIp: this.tools.nodeIp,
        port: ports.kubeletPort,
        healthzPort: ports.kubeletHealthz,
        cgroupRoot: `/${CGROUP_NAME}`,
        clientCaFile: pki.caFile,
        tlsCertFile: pki.kubeletCertFile,
        tlsKeyFile: pki.kubeletKeyFile,
        taintKey: REAL_NODE_TAINT,
        maxContainerRestartPeriod: this.options.maxContainerRestartPeriod ?? '5s',
      }),
    );
    writeFileSync(
      this.paths.kubeProxyConfig,
      kubeProxyConfig({
        kubeconfig: access.kubeconfigFor(this.proxyUser.name),
        nodeName: this.nodeName,
        clusterCidr: this.network.subnet,
        healthzPort: ports.proxyHealthz,
        metricsPort: ports.proxyMetrics,
      }),
    );
  }

  /** The kubelet's cgroup root must exist in every hierarchy; a v1 cpuset starts empty and must be filled. */
  private prepareCgroups(): void {
    const base = '/sys/fs/cgroup';
    if (this.tools.cgroups === 'v2') {
      mkdirSync(join(base, CGROUP_NAME), { recursive: true });
      return;
    }
    for (const hierarchy of [
      'cpu',
      'cpuacct',
      'cpuset',
      'memory',
      'pids',
      'devices',
      'freezer',
      'blkio',
      'hugetlb',
      'net_cls',
      'net_prio',
      'perf_event',
      'systemd',
      'unified',
    ]) {
      const root = join(base, hierarchy);
      if (!existsSync(root)) continue;
      mkdirSync(join(root, CGROUP_NAME), { recursive: true });
    }
    for (const file of ['cpuset.cpus', 'cpuset.mems']) {
      const source = join(base, 'cpuset', file);
      if (existsSync(source)) writeFileSync(join(base, 'cpuset', CGROUP_NAME, file), readFileSync(source, 'utf8'));
    }
  }

  private spawn(name: RealNodeProcess, command: string, args: readonly string[]): void {
    const env = { ...process.env };
    delete env.KUBECONFIG;
    const component = startComponent({ name, command, args, logFile: join(this.paths.logs, `${name}.log`), env });
    this.processes.set(name, component);
    const pids = [...this.processes.values()].filter((entry) => entry.pid > 0 && !entry.hasExited()).map((entry) => entry.pid);
    writeFileSync(`${this.paths.pidFile}.next`, pids.map((pid) => `${pid}\n`).join(''));
    renameSync(`${this.paths.pidFile}.next`, this.paths.pidFile);
  }

  private async waitFor(name: RealNodeProcess, what: string, check: () => Promise<boolean | string>): Promise<void> {
    const component = this.processes.get(name);
    let exited: string | undefined;
    void component?.exited.then((info) => (exited = `${name} ${describeExit(info)}`));
    try {
      await waitUntil(check, { what, timeoutMs: START_TIMEOUT_MS, intervalMs: 250, abortIf: () => exited });
    } catch (error) {
      const logFile = join(this.paths.logs, `${name}.log`);
      throw new Error(`${(error as Error).message}\n--- last lines of ${logFile} ---\n${tailLog(logFile)}`, { cause: error });
    }
  }

  // ---- stop ----------------------------------------------------------------------------

  stop(): Promise<void> {
    this.stopping ??= this.stopAll(this.options.keepWorkDir === true);
    return this.stopping;
  }

  private async stopAll(keepLogs: boolean): Promise<void> {
    const started = Date.now();
    const marks: string[] = [];
    const mark = (what: string): void => void marks.push(`${what} ${((Date.now() - started) / 1000).toFixed(1)} s`);
    if (this.access !== undefined && this.processes.get('kubelet')?.hasExited() === false) {
      await this.drain(this.access.admin).catch((error: unknown) => this.log(`real node drain: ${(error as Error).message}`));
      mark('pods gone');
    }
    const stopGroup = (names: readonly RealNodeProcess[]) =>
      Promise.all(names.map((name) => this.processes.get(name)?.stop(STOP_GRACE_MS) ?? Promise.resolve()));
    await stopGroup(['kube-proxy', 'kubelet']);
    await stopGroup(['containerd', 'registry']);
    mark('processes stopped');
    if (keepLogs) this.keepLogs();
    await this.releaseMachine();
    mark('machine cleaned');
    if (this.processes.size > 0) this.log(`real node stopped: ${marks.join(', ')}`);
  }

  /** No new pods (cordon), the present ones deleted with a 1 s grace, then wait until the runtime has no task left. */
  private async drain(admin: ApiTarget): Promise<void> {
    await apiCall(admin, 'PATCH', `/api/v1/nodes/${this.nodeName}`, { spec: { unschedulable: true } }, 'application/merge-patch+json');
    const podsOnNode = async (): Promise<PodLike[]> =>
      (await apiJson<{ items: PodLike[] }>(admin, 'GET', `/api/v1/pods?fieldSelector=spec.nodeName%3D${this.nodeName}`)).items;
    for (const pod of await podsOnNode()) {
      const { namespace = '', name = '' } = pod.metadata ?? {};
      await apiCall(admin, 'DELETE', `/api/v1/namespaces/${namespace}/pods/${name}?gracePeriodSeconds=1`);
    }
    await waitUntil(
      async () => {
        const left = await podsOnNode();
        if (left.length > 0) return `${left.length} pods left`;
        const tasks = this.runningTasks();
        return tasks === 0 || `${tasks} containers still running`;
      },
      { what: `the real node's pods to be gone`, timeoutMs: DRAIN_TIMEOUT_MS, intervalMs: 250 },
    );
  }

  private runningTasks(): number {
    const output = execFileSync(this.tools.ctr, ['--address', this.paths.containerdSocket, '--namespace', 'k8s.io', 'tasks', 'ls'], {
      encoding: 'utf8',
      timeout: 5_000,
    });
    return output.split('\n').filter((line) => /\bRUNNING\b/.test(line)).length;
  }

  /** The work dir goes with the cleanup (it holds mounts and sockets): its logs are copied out. */
  private keepLogs(): void {
    this.keptLogs = mkdtempSync(join(tmpdir(), 'kube-provisioner-real-node-logs-'));
    for (const name of REAL_NODE_PROCESSES) {
      const file = join(this.paths.logs, `${name}.log`);
      if (existsSync(file)) copyFileSync(file, join(this.keptLogs, `${name}.log`));
    }
    this.log(`real node logs kept in ${this.keptLogs}`);
  }

  /** Undoes our host changes, then lets go of the lock. */
  private async releaseMachine(): Promise<void> {
    try {
      if (this.record !== undefined) this.leftovers = await cleanHost(this.record, { log: this.log, spareProcessGroup: this.reaper?.pid });
      else rmSync(this.workDir, { recursive: true, force: true });
    } finally {
      rmSync(ownerFile(realNodeLockFile()), { force: true });
      this.reaper?.dismiss();
      this.reaper = undefined;
    }
  }

  private currentPids(): Partial<Record<RealNodeProcess | 'reaper', number>> {
    const pids: Partial<Record<RealNodeProcess | 'reaper', number>> = {};
    for (const [name, component] of this.processes) if (!component.hasExited()) pids[name] = component.pid;
    if (this.reaper !== undefined) pids.reaper = this.reaper.pid;
    return pids;
  }

  private requirePki(): KubeletPki {
    if (this.pki === undefined) throw new Error('the real node has no certificates yet');
    return this.pki;
  }

  private requireAccess(): ControlPlaneAccess {
    if (this.access === undefined) throw new Error('the real node has no control plane yet');
    return this.access;
  }
}

function nodePaths(workDir: string): NodePaths & { logs: string; pki: string; pidFile: string; volumes: string; sshKey: string } {
  const containerd = join(workDir, 'containerd');
  return {
    logs: join(workDir, 'logs'),
    volumes: join(workDir, 'volumes'),
    pki: join(workDir, 'pki'),
    pidFile: join(workDir, 'pids'),
    containerdConfig: join(containerd, 'config.toml'),
    containerdRoot: join(containerd, 'root'),
    containerdState: join(containerd, 'state'),
    containerdSocket: join(containerd, 'containerd.sock'),
    containerdOpt: join(containerd, 'opt'),
    registryHosts: join(containerd, 'certs.d'),
    runcRoot: join(workDir, 'runc'),
    cgroupWritableRuntime: join(workDir, 'cgroup-writable'),
    sshKey: join(workDir, 'ssh', 'id_ed25519'),
    cniConfDir: join(workDir, 'cni', 'net.d'),
    cniIpamDir: join(workDir, 'cni', 'ipam'),
    kubeletConfig: join(workDir, 'kubelet.yaml'),
    kubeletRoot: join(workDir, 'kubelet'),
    podLogs: join(workDir, 'pod-logs'),
    kubeProxyConfig: join(workDir, 'kube-proxy.yaml'),
  };
}

/** What the reaper runs after killing our processes if we die: the same cleanup, from the record. */
function cleanupCommand(): string[] {
  const script = join(CONTROL_PLANE_DIR, 'real-node', 'cleanup.ts');
  return ['env', 'KUBE_PROVISIONER_REAL_NODE_LOCK_HELD=1', process.execPath, '--import', 'tsx', script, hostRecordFile()];
}

function ownerFile(lockFile: string): string {
  return `${lockFile}.owner`;
}

function describeHolder(lockFile: string): string {
  try {
    return `held by ${readFileSync(ownerFile(lockFile), 'utf8').trim()}`;
  } catch {
    return 'its holder is not recorded';
  }
}

interface NodeLike {
  readonly status?: { readonly conditions?: readonly { readonly type: string; readonly status: string; readonly message?: string }[] };
}

interface PodLike {
  readonly metadata?: { readonly name?: string; readonly namespace?: string };
}
