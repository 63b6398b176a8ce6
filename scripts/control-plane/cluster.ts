// A real Kubernetes control plane on loopback for tests and demos: etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler, and KWOK simulating one node's kubelet; on
// request also a real node (real-node/node.ts: kubelet, containerd, kube-proxy).
// Every port is free-chosen and every file lives in a fresh temp dir, so several clusters
// can run at once. All processes are ours: stop() ends them by pid, exit hooks cover a
// normal exit or a signal, and a detached reaper covers our own sudden death.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { checkBinDir, ensureBinaries, pinnedVersions } from './binaries.js';
import type { PinnedVersions } from './binaries.js';
import {
  ADMIN_USER,
  UNPRIVILEGED_USERS,
  clusterTokenUsers,
  generateServiceAccountKeyPair,
  renderTokenFile,
  tokenOf,
} from './credentials.js';
import type { ClusterUser, StaticTokenUser } from './credentials.js';
import { apiCall, apiJson, httpGet, waitUntil } from './http.js';
import type { ApiTarget } from './http.js';
import { contextNameFor, renderKubeconfig } from './kubeconfig.js';
import { LOOPBACK, reserveFreePorts } from './ports.js';
import { describeExit, startComponent, tailLog } from './processes.js';
import type { ComponentProcess } from './processes.js';
import { startReaper } from './reaper.js';
import { toYaml } from './yaml.js';
import type { Reaper } from './reaper.js';
import { DEFAULT_KWOK_CONFIG, DEFAULT_NODE_CAPACITY, KWOK_NODE_SELECTOR, renderKwokConfig } from './stages.js';
import type { NodeCapacity } from './stages.js';
import { prepareRealNode } from './real-node/node.js';
import type { PreparedRealNode, RealNode, RealNodeOptions } from './real-node/node.js';
import { machineAddress } from './real-node/preflight.js';

export { CLUSTER_NAME } from './kubeconfig.js';
export { ADMIN_USER, UNPRIVILEGED_USERS } from './credentials.js';
export type { RealNode, RealNodeOptions } from './real-node/node.js';
export type { ClusterUser, UnprivilegedUser } from './credentials.js';

export const COMPONENTS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok'] as const;
export type ComponentName = (typeof COMPONENTS)[number];

export const DEFAULT_NODE_NAME = 'kwok-node-0';
/** Small on purpose: about 250 Services, so a test can run it out. */
export const SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/24';

export interface ClusterOptions {
  /** Use these binaries instead of running build.sh. */
  readonly binDir?: string;
  /** Scheduling to Running+Ready, jittered up to +20 % (default 1000 ms). */
  readonly podReadyDelayMs?: number;
  /** Period of the fault modes' cycles (default 1000 ms). */
  readonly faultCycleMs?: number;
  /** Keep the work dir (logs, etcd data, kubeconfigs) after stop(). */
  readonly keepWorkDir?: boolean;
  readonly nodeCapacity?: Partial<NodeCapacity>;
  readonly nodeName?: string;
  /** kube-apiserver's --service-cluster-ip-range (default SERVICE_CLUSTER_IP_RANGE); a benchmark with hundreds of Services needs a wider one. */
  readonly serviceClusterIpRange?: string;
  /** How long kube-apiserver may take to report /readyz (default 90 s). */
  readonly apiserverReadyTimeoutMs?: number;
  /** kube-apiserver's --feature-gates, e.g. `ContainerStopSignals=true` (default: the release's own defaults). */
  readonly apiserverFeatureGates?: string;
  /** Stop on SIGINT/SIGTERM (default true). Process exit and the reaper always apply. */
  readonly handleSignals?: boolean;
  /** Progress lines (build cache, start steps); default: stderr. */
  readonly log?: (line: string) => void;
  /**
   * Also start one real node (kubelet, containerd, kube-proxy, a local registry) beside the
   * KWOK node; root only, one per machine (it waits for the machine-wide lock).
   */
  readonly realNode?: boolean | RealNodeOptions;
  /** For tests: how `count` free loopback ports are found (default reserveFreePorts). */
  readonly reservePorts?: (count: number) => Promise<number[]>;
}

export interface LocalCluster {
  /** The admin's kubeconfig (system:masters), context `kube-provisioner-local`. */
  readonly kubeconfigPath: string;
  readonly kubeconfigs: Readonly<Record<ClusterUser, string>>;
  kubeconfigFor(user: ClusterUser): string;
  /** https://127.0.0.1:<port> */
  readonly server: string;
  /** PEM of the apiserver's serving chain, as embedded in the kubeconfigs. */
  readonly caFile: string;
  readonly workDir: string;
  readonly binDir: string;
  readonly nodeName: string;
  /** The real node, when `realNode` asked for one. */
  readonly realNode: RealNode | undefined;
  readonly versions: PinnedVersions;
  /** Current pids (the apiserver's changes across stopApiserver/startApiserver). */
  readonly pids: Readonly<Partial<Record<ComponentName | 'reaper', number>>>;
  readonly startedInMs: number;
  /**
   * Stops kube-apiserver only (the others keep running and retry): SIGTERM closes its port
   * at once; SIGKILL follows after 2 s rather than waiting out its minute-long drain.
   */
  stopApiserver(): Promise<void>;
  /** Starts it again on the same port with the same flags; resolves once /readyz is ok. */
  startApiserver(): Promise<void>;
  /** Stops everything, by pid, and removes the work dir unless keepWorkDir. Idempotent. */
  stop(): Promise<void>;
}

const STOP_GRACE_MS = 5_000;
// kube-apiserver stops listening at once on SIGTERM but then drains open watches for up to
// a minute; for an outage drill the closed port is what matters, so the grace is short.
const APISERVER_OUTAGE_GRACE_MS = 2_000;
const COMPONENT_START_TIMEOUT_MS = 60_000;
// A reserved port is free only until released: another process (say, a second cluster
// starting at the same moment) may bind it before our component does.
const PORT_CONFLICT = /bind: address already in use/;
const PORT_CONFLICT_RETRIES = 3;

export async function startCluster(options: ClusterOptions = {}): Promise<LocalCluster> {
  const startedAt = Date.now();
  const log = options.log ?? ((line: string) => process.stderr.write(`[cluster] ${line}\n`));
  const binDir = options.binDir !== undefined ? checkBinDir(options.binDir) : await ensureBinaries(log);
  // Before the control plane: the machine is checked (and locked) and the API server needs the kubelet's CA.
  const realNode =
    options.realNode === undefined || options.realNode === false
      ? undefined
      : await prepareRealNode({ keepWorkDir: options.keepWorkDir, ...(options.realNode === true ? {} : options.realNode) }, log).catch(
          (error: unknown) => {
            throw new Error(`local cluster failed to start: ${(error as Error).message}`, { cause: error });
          },
        );
  const workDir = mkdtempSync(join(tmpdir(), 'kube-provisioner-cluster-'));
  const cluster = new RunningCluster(binDir, workDir, options, log, realNode);
  try {
    await cluster.boot();
  } catch (error) {
    await cluster.stop();
    const kept = options.keepWorkDir === true ? ` (logs kept in ${workDir}/logs)` : '';
    throw new Error(`local cluster failed to start: ${(error as Error).message}${kept}`, { cause: error });
  }
  const startedInMs = Date.now() - startedAt;
  log(`cluster up in ${(startedInMs / 1000).toFixed(1)} s: ${cluster.server} (work dir ${workDir})`);
  return cluster.toLocalCluster(startedInMs);
}

interface Ports {
  readonly etcdClient: number;
  readonly etcdPeer: number;
  readonly apiserver: number;
  readonly controllerManager: number;
  readonly scheduler: number;
}

/** Paths of everything a cluster writes, all inside its work dir. */
function layout(workDir: string) {
  return {
    logs: join(workDir, 'logs'),
    etcdData: join(workDir, 'etcd'),
    apiserverCerts: join(workDir, 'pki', 'apiserver'),
    controllerManagerCerts: join(workDir, 'pki', 'kube-controller-manager'),
    schedulerCerts: join(workDir, 'pki', 'kube-scheduler'),
    servingChain: join(workDir, 'pki', 'apiserver', 'apiserver.crt'),
    serviceAccountKey: join(workDir, 'pki', 'sa.key'),
    serviceAccountPub: join(workDir, 'pki', 'sa.pub'),
    tokenFile: join(workDir, 'pki', 'tokens.csv'),
    kubeconfigs: join(workDir, 'kubeconfigs'),
    kwokConfig: join(workDir, 'kwok.yaml'),
    schedulerConfig: join(workDir, 'kube-scheduler.yaml'),
    kwokHome: join(workDir, 'kwok-home'),
    pidFile: join(workDir, 'pids'),
  };
}

class RunningCluster {
  readonly paths: ReturnType<typeof layout>;
  readonly versions = pinnedVersions();
  readonly nodeName: string;
  private readonly processes = new Map<ComponentName, ComponentProcess>();
  private readonly users: StaticTokenUser[];
  private realNode: RealNode | undefined;
  private ports: Ports | undefined;
  private caPem = '';
  private reaper: Reaper | undefined;
  private stopping: Promise<void> | undefined;

  constructor(
    readonly binDir: string,
    readonly workDir: string,
    private readonly options: ClusterOptions,
    private readonly log: (line: string) => void,
    private readonly preparedRealNode: PreparedRealNode | undefined,
  ) {
    this.paths = layout(workDir);
    this.nodeName = options.nodeName ?? DEFAULT_NODE_NAME;
    this.users = [...clusterTokenUsers(), ...(preparedRealNode?.tokenUsers ?? [])];
  }

  get server(): string {
    return `https://${LOOPBACK}:${this.requirePorts().apiserver}`;
  }

  async boot(): Promise<void> {
    this.prepareWorkDir();
    const [etcdClient = 0, etcdPeer = 0, apiserver = 0, controllerManager = 0, scheduler = 0] = await this.reservePorts(5);
    this.ports = { etcdClient, etcdPeer, apiserver, controllerManager, scheduler };
    this.reaper = startReaper({
      parentPid: process.pid,
      pidFile: this.paths.pidFile,
      workDir: this.workDir,
      removeWorkDir: this.options.keepWorkDir !== true,
    });
    registerForExit(this, this.options.handleSignals !== false);

    await this.onFreshPortsIfTaken('etcd', ['etcdClient', 'etcdPeer'], () => this.startEtcd());
    // Only the first start may move the apiserver: the kubeconfigs written next name its port.
    await this.onFreshPortsIfTaken('kube-apiserver', ['apiserver'], () => this.startApiserverAndWait());
    this.writeKubeconfigs();
    await this.grantViewerRole();
    await Promise.all([
      this.onFreshPortsIfTaken('kube-controller-manager', ['controllerManager'], () => this.startControllerManager()),
      this.onFreshPortsIfTaken('kube-scheduler', ['scheduler'], () => this.startScheduler()),
    ]);
    this.startKwok();
    await this.registerNode();
    await Promise.all([this.waitForDefaultServiceAccount(), this.waitForNodeReady()]);
    this.realNode = await this.preparedRealNode?.start({ admin: this.adminTarget(), kubeconfigFor: (user) => this.kubeconfigFile(user) });
  }

  private reservePorts(count: number): Promise<number[]> {
    return (this.options.reservePorts ?? reserveFreePorts)(count);
  }

  /**
   * Runs `start`; when its component exited because one of its ports was taken meanwhile,
   * moves those ports to fresh ones and starts it again. The failed attempt's log is kept
   * beside the new one.
   */
  private async onFreshPortsIfTaken(name: ComponentName, keys: readonly (keyof Ports)[], start: () => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await start();
        return;
      } catch (error) {
        const component = this.processes.get(name);
        if (attempt > PORT_CONFLICT_RETRIES || component?.hasExited() !== true || !PORT_CONFLICT.test(tailLog(component.logFile))) {
          throw error;
        }
        renameSync(component.logFile, component.logFile.replace(/\.log$/, `.port-conflict-${attempt}.log`));
        const taken = keys.map((key) => this.requirePorts()[key]);
        const fresh = await this.reservePorts(keys.length);
        this.ports = { ...this.requirePorts(), ...Object.fromEntries(keys.map((key, index) => [key, fresh[index] ?? 0])) };
        this.log(`${name}: port ${taken.join(', ')} was taken before it could bind; starting it again on ${fresh.join(', ')}`);
      }
    }
  }

  private prepareWorkDir(): void {
    for (const dir of [
      this.paths.logs,
      this.paths.etcdData,
      this.paths.apiserverCerts,
      this.paths.controllerManagerCerts,
      this.paths.schedulerCerts,
      this.paths.kubeconfigs,
      this.paths.kwokHome,
    ]) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    }
    const keys = generateServiceAccountKeyPair();
    writeFileSync(this.paths.serviceAccountKey, keys.privateKeyPem, { mode: 0o600 });
    writeFileSync(this.paths.serviceAccountPub, keys.publicKeyPem);
    writeFileSync(this.paths.tokenFile, renderTokenFile(this.users), { mode: 0o600 });
    writeFileSync(this.paths.pidFile, '');
  }

  // ---- components ----------------------------------------------------------------------

  private spawn(name: ComponentName, args: readonly string[], env: NodeJS.ProcessEnv = {}): ComponentProcess {
    const inherited = { ...process.env };
    // Components get explicit kubeconfigs; a stray KUBECONFIG must not leak in.
    delete inherited.KUBECONFIG;
    const component = startComponent({
      name,
      command: join(this.binDir, name),
      args,
      logFile: join(this.paths.logs, `${name}.log`),
      env: { ...inherited, ...env },
    });
    this.processes.set(name, component);
    this.recordPidsForReaper();
    return component;
  }

  /** Rewritten on every spawn, so a replaced apiserver's old (maybe recycled) pid is never killed. */
  private recordPidsForReaper(): void {
    const pids = [...this.processes.values()]
      .filter((component) => component.pid > 0 && !component.hasExited())
      .map((component) => component.pid);
    // Write-then-rename: the reaper never reads a half-written list.
    writeFileSync(`${this.paths.pidFile}.next`, pids.map((pid) => `${pid}\n`).join(''));
    renameSync(`${this.paths.pidFile}.next`, this.paths.pidFile);
  }

  /** Waits for `check`, failing fast if the component exits; errors carry its log tail. */
  private async waitForComponent(
    name: ComponentName,
    what: string,
    timeoutMs: number,
    check: () => Promise<boolean | string>,
  ): Promise<void> {
    const component = this.processes.get(name);
    let exitDescription: string | undefined;
    void component?.exited.then((info) => (exitDescription = `${name} ${describeExit(info)}`));
    try {
      await waitUntil(check, { what, timeoutMs, abortIf: () => exitDescription });
    } catch (error) {
      const logFile = component?.logFile ?? join(this.paths.logs, `${name}.log`);
      throw new Error(`${(error as Error).message}\n--- last lines of ${logFile} ---\n${tailLog(logFile)}`, { cause: error });
    }
  }

  private async startEtcd(): Promise<void> {
    const { etcdClient, etcdPeer } = this.requirePorts();
    const clientUrl = `http://${LOOPBACK}:${etcdClient}`;
    const peerUrl = `http://${LOOPBACK}:${etcdPeer}`;
    this.spawn('etcd', [
      '--name=kube-provisioner',
      `--data-dir=${this.paths.etcdData}`,
      `--listen-client-urls=${clientUrl}`,
      `--advertise-client-urls=${clientUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=kube-provisioner=${peerUrl}`,
      '--initial-cluster-state=new',
      '--unsafe-no-fsync',
      '--log-level=warn',
    ]);
    await this.waitForComponent('etcd', 'etcd /health', COMPONENT_START_TIMEOUT_MS, async () => {
      const response = await httpGet(`${clientUrl}/health`);
      return response.status === 200 && response.body.includes('"true"') ? true : `HTTP ${response.status} ${response.body}`;
    });
    this.log(`etcd ready on ${clientUrl}`);
  }

  private apiserverArgs(): string[] {
    const { etcdClient, apiserver } = this.requirePorts();
    const advertiseAddress = machineAddress();
    const realNode = this.preparedRealNode;
    return [
      `--etcd-servers=http://${LOOPBACK}:${etcdClient}`,
      `--bind-address=${LOOPBACK}`,
      `--secure-port=${apiserver}`,
      // The apiserver picks its advertise address from the default route and rejects
      // loopback; name a real interface explicitly when there is one.
      ...(advertiseAddress === undefined ? [] : [`--advertise-address=${advertiseAddress}`]),
      `--cert-dir=${this.paths.apiserverCerts}`,
      `--service-cluster-ip-range=${this.options.serviceClusterIpRange ?? SERVICE_CLUSTER_IP_RANGE}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${this.paths.serviceAccountPub}`,
      `--service-account-signing-key-file=${this.paths.serviceAccountKey}`,
      `--authorization-mode=${[...(realNode?.authorizationModes ?? []), 'RBAC'].join(',')}`,
      `--token-auth-file=${this.paths.tokenFile}`,
      '--profiling=false',
      ...(this.options.apiserverFeatureGates !== undefined ? [`--feature-gates=${this.options.apiserverFeatureGates}`] : []),
      ...(realNode?.apiserverArgs ?? []),
    ];
  }

  async startApiserverAndWait(): Promise<void> {
    const timeoutMs = this.options.apiserverReadyTimeoutMs ?? 90_000;
    this.spawn('kube-apiserver', this.apiserverArgs());
    await this.waitForComponent('kube-apiserver', 'kube-apiserver to write its self-signed serving certificate', timeoutMs, async () => {
      // Written once at first start (leaf + its CA); restarts reuse it.
      const pem = existsSync(this.paths.servingChain) ? readFileSync(this.paths.servingChain, 'utf8') : '';
      return (pem.match(/-----END CERTIFICATE-----/g) ?? []).length >= 2;
    });
    this.caPem = readFileSync(this.paths.servingChain, 'utf8');
    await this.waitForComponent('kube-apiserver', 'kube-apiserver /readyz', timeoutMs, async () => {
      const response = await apiCall(this.adminTarget(), 'GET', '/readyz');
      return response.status === 200 ? true : `HTTP ${response.status} ${lastLines(response.body, 3)}`;
    });
    this.log(`kube-apiserver ready on ${this.server}`);
  }

  private startControllerManager(): Promise<void> {
    const port = this.requirePorts().controllerManager;
    this.spawn('kube-controller-manager', [
      `--kubeconfig=${this.kubeconfigFile('system:kube-controller-manager')}`,
      '--leader-elect=false',
      `--bind-address=${LOOPBACK}`,
      `--secure-port=${port}`,
      `--cert-dir=${this.paths.controllerManagerCerts}`,
      '--controllers=*',
      '--use-service-account-credentials=true',
      `--service-account-private-key-file=${this.paths.serviceAccountKey}`,
      `--root-ca-file=${this.paths.servingChain}`,
      // Default 20 QPS would throttle rollouts of hundreds of pods.
      '--kube-api-qps=200',
      '--kube-api-burst=400',
    ]);
    return this.waitForSecureHealthz('kube-controller-manager', port, this.paths.controllerManagerCerts);
  }

  private startScheduler(): Promise<void> {
    const port = this.requirePorts().scheduler;
    // The config file replaces the deprecated --kubeconfig/--leader-elect/--kube-api-qps
    // flags; the default 50 QPS would make binding hundreds of pods take many seconds.
    writeFileSync(
      this.paths.schedulerConfig,
      toYaml({
        apiVersion: 'kubescheduler.config.k8s.io/v1',
        kind: 'KubeSchedulerConfiguration',
        clientConnection: { kubeconfig: this.kubeconfigFile('system:kube-scheduler'), qps: 200, burst: 400 },
        leaderElection: { leaderElect: false },
      }),
    );
    this.spawn('kube-scheduler', [
      `--config=${this.paths.schedulerConfig}`,
      `--bind-address=${LOOPBACK}`,
      `--secure-port=${port}`,
      `--cert-dir=${this.paths.schedulerCerts}`,
    ]);
    return this.waitForSecureHealthz('kube-scheduler', port, this.paths.schedulerCerts);
  }

  /** /healthz of a component serving its own self-signed certificate from `certDir`. */
  private async waitForSecureHealthz(name: ComponentName, port: number, certDir: string): Promise<void> {
    const certFile = join(certDir, `${name}.crt`);
    await this.waitForComponent(name, `${name} /healthz`, COMPONENT_START_TIMEOUT_MS, async () => {
      if (!existsSync(certFile)) return `no ${certFile} yet`;
      const response = await apiCall(
        { server: `https://${LOOPBACK}:${port}`, caPem: readFileSync(certFile, 'utf8'), token: '' },
        'GET',
        '/healthz',
      );
      return response.status === 200 ? true : `HTTP ${response.status} ${response.body}`;
    });
    this.log(`${name} healthy on port ${port}`);
  }

  private startKwok(): void {
    writeFileSync(
      this.paths.kwokConfig,
      renderKwokConfig({
        ...DEFAULT_KWOK_CONFIG,
        podReadyDelayMs: this.options.podReadyDelayMs ?? DEFAULT_KWOK_CONFIG.podReadyDelayMs,
        faultCycleMs: this.options.faultCycleMs ?? DEFAULT_KWOK_CONFIG.faultCycleMs,
        kubeletVersion: this.versions.kubernetes,
        defaultNodeCapacity: this.nodeCapacity(),
      }),
    );
    // No --server-address and no --node-port: KWOK then opens no port at all.
    this.spawn(
      'kwok',
      [
        `--kubeconfig=${this.kubeconfigFile('kwok-controller')}`,
        // Only the nodes annotated as KWOK's: a real kubelet's node is left to its kubelet.
        '--manage-all-nodes=false',
        `--manage-nodes-with-annotation-selector=${KWOK_NODE_SELECTOR}`,
        `--config=${this.paths.kwokConfig}`,
        `--node-lease-duration-seconds=${DEFAULT_KWOK_CONFIG.nodeLeaseDurationSeconds}`,
      ],
      // Otherwise KWOK also loads ~/.kwok/kwok.yaml if someone has one.
      { KWOK_WORKDIR: this.paths.kwokHome },
    );
  }

  private nodeCapacity(): NodeCapacity {
    return { ...DEFAULT_NODE_CAPACITY, ...this.options.nodeCapacity };
  }

  // ---- API objects ---------------------------------------------------------------------

  private async grantViewerRole(): Promise<void> {
    await apiJson(this.adminTarget(), 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'kube-provisioner:viewer' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'viewer' }],
    });
  }

  private async registerNode(): Promise<void> {
    const capacity = this.nodeCapacity();
    await apiJson(this.adminTarget(), 'POST', '/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: this.nodeName,
        labels: { type: 'kwok', 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', 'kubernetes.io/hostname': this.nodeName },
        // KWOK's own convention for nodes it simulates, which its node selector matches.
        annotations: { 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
      },
      spec: { podCIDR: DEFAULT_KWOK_CONFIG.podCidr, podCIDRs: [DEFAULT_KWOK_CONFIG.podCidr] },
      // A node may carry its status on create, as a kubelet registering itself does.
      status: { capacity, allocatable: capacity },
    });
  }

  private async waitForNodeReady(): Promise<void> {
    await this.waitForComponent(
      'kwok',
      `node ${this.nodeName} Ready without not-ready/unreachable taints`,
      COMPONENT_START_TIMEOUT_MS,
      async () => {
        const node = await apiJson<NodeLike>(this.adminTarget(), 'GET', `/api/v1/nodes/${this.nodeName}`);
        const ready = node.status?.conditions?.find((condition) => condition.type === 'Ready')?.status === 'True';
        const blocking = (node.spec?.taints ?? []).filter((taint) => /node\.kubernetes\.io\/(not-ready|unreachable)/.test(taint.key));
        if (!ready) return 'not Ready yet';
        return blocking.length === 0 ? true : `still tainted ${blocking.map((taint) => taint.key).join(', ')}`;
      },
    );
    this.log(`node ${this.nodeName} Ready`);
  }

  private async waitForDefaultServiceAccount(): Promise<void> {
    await this.waitForComponent(
      'kube-controller-manager',
      'namespace default and its default ServiceAccount',
      COMPONENT_START_TIMEOUT_MS,
      async () => {
        const namespace = await apiCall(this.adminTarget(), 'GET', '/api/v1/namespaces/default');
        if (namespace.status !== 200) return `namespace default: HTTP ${namespace.status}`;
        const account = await apiCall(this.adminTarget(), 'GET', '/api/v1/namespaces/default/serviceaccounts/default');
        return account.status === 200 ? true : `serviceaccount default: HTTP ${account.status}`;
      },
    );
  }

  // ---- credentials -----------------------------------------------------------------------

  private adminTarget(): ApiTarget {
    return { server: this.server, caPem: this.caPem, token: tokenOf(this.users, ADMIN_USER) };
  }

  private kubeconfigFile(user: string): string {
    return join(this.paths.kubeconfigs, `${user.replaceAll(':', '-')}.kubeconfig`);
  }

  private writeKubeconfigs(): void {
    for (const user of this.users) {
      const isAdmin = user.name === ADMIN_USER;
      const contents = renderKubeconfig({
        server: this.server,
        caPem: this.caPem,
        user: user.name,
        token: user.token,
        contextName: contextNameFor(user.name, isAdmin),
      });
      writeFileSync(this.kubeconfigFile(user.name), contents, { mode: 0o600 });
    }
  }

  // ---- lifecycle -------------------------------------------------------------------------

  async stopApiserver(): Promise<void> {
    await this.processes.get('kube-apiserver')?.stop(APISERVER_OUTAGE_GRACE_MS);
  }

  async startApiserver(): Promise<void> {
    if (this.processes.get('kube-apiserver')?.hasExited() === false) throw new Error('kube-apiserver is already running');
    await this.startApiserverAndWait();
  }

  /** Stops kubelet-side first so nothing writes to a dying apiserver, etcd last. */
  stop(): Promise<void> {
    this.stopping ??= this.stopAll();
    return this.stopping;
  }

  private async stopAll(): Promise<void> {
    // The real node first, while the API server can still take its pods' deletion.
    if (this.realNode !== undefined) await this.realNode.stop();
    else await this.preparedRealNode?.release();
    const stopGroup = (names: readonly ComponentName[]) =>
      Promise.all(names.map((name) => this.processes.get(name)?.stop(STOP_GRACE_MS) ?? Promise.resolve()));
    await stopGroup(['kwok', 'kube-scheduler', 'kube-controller-manager']);
    await stopGroup(['kube-apiserver']);
    await stopGroup(['etcd']);
    this.reaper?.dismiss();
    unregisterForExit(this);
    if (this.options.keepWorkDir !== true) rmSync(this.workDir, { recursive: true, force: true });
  }

  /** process 'exit' hook: synchronous only. */
  killNowSync(): void {
    this.realNode?.killNowSync();
    for (const component of this.processes.values()) component.killNow();
    this.reaper?.dismiss();
    if (this.options.keepWorkDir !== true) rmSync(this.workDir, { recursive: true, force: true });
  }

  private requirePorts(): Ports {
    if (this.ports === undefined) throw new Error('cluster ports not reserved yet');
    return this.ports;
  }

  currentPids(): Partial<Record<ComponentName | 'reaper', number>> {
    const pids: Partial<Record<ComponentName | 'reaper', number>> = {};
    for (const [name, component] of this.processes) if (!component.hasExited()) pids[name] = component.pid;
    if (this.reaper !== undefined) pids.reaper = this.reaper.pid;
    return pids;
  }

  toLocalCluster(startedInMs: number): LocalCluster {
    const kubeconfigs = Object.fromEntries([ADMIN_USER, ...UNPRIVILEGED_USERS].map((user) => [user, this.kubeconfigFile(user)])) as Record<
      ClusterUser,
      string
    >;
    const currentPids = () => this.currentPids();
    const realNode = this.realNode;
    return {
      kubeconfigPath: kubeconfigs[ADMIN_USER],
      kubeconfigs,
      kubeconfigFor: (user) => kubeconfigs[user],
      server: this.server,
      caFile: this.paths.servingChain,
      workDir: this.workDir,
      binDir: this.binDir,
      nodeName: this.nodeName,
      realNode,
      versions: this.versions,
      get pids() {
        return currentPids();
      },
      startedInMs,
      stopApiserver: () => this.stopApiserver(),
      startApiserver: () => this.startApiserver(),
      stop: () => this.stop(),
    };
  }
}

interface NodeLike {
  readonly spec?: { readonly taints?: readonly { readonly key: string }[] };
  readonly status?: { readonly conditions?: readonly { readonly type: string; readonly status: string }[] };
}

function lastLines(text: string, count: number): string {
  return text.trimEnd().split('\n').slice(-count).join(' | ');
}

// ---- exit hooks: one set of process listeners for all running clusters ---------------------

const runningClusters = new Set<RunningCluster>();
let signalsHandled = false;

function registerForExit(cluster: RunningCluster, handleSignals: boolean): void {
  if (runningClusters.size === 0) process.on('exit', killAllSync);
  runningClusters.add(cluster);
  if (handleSignals && !signalsHandled) {
    signalsHandled = true;
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
}

function unregisterForExit(cluster: RunningCluster): void {
  runningClusters.delete(cluster);
  if (runningClusters.size > 0) return;
  process.off('exit', killAllSync);
  if (signalsHandled) {
    signalsHandled = false;
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

function killAllSync(): void {
  for (const cluster of runningClusters) cluster.killNowSync();
}

/**
 * Stops every cluster, then lets the signal do what it would have done: if nobody else
 * listens for it, re-raise it so the process ends with the usual status.
 */
function onSignal(signal: NodeJS.Signals): void {
  void Promise.allSettled([...runningClusters].map((cluster) => cluster.stop())).then(() => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  });
}
