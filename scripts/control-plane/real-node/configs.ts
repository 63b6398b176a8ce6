// The real node's configuration files: containerd's (and its registry host file), the CNI
// network, the kubelet's and kube-proxy's. Every path they name is inside the node's work
// dir, so nothing of ours lands in /etc, /var/lib or /run/containerd.
import { toYaml } from '../yaml.js';
import { REAL_NODE_IMAGES, REAL_NODE_REGISTRY } from './images.js';

export interface NodePaths {
  readonly containerdConfig: string;
  readonly containerdRoot: string;
  readonly containerdState: string;
  readonly containerdSocket: string;
  readonly containerdOpt: string;
  readonly registryHosts: string;
  readonly runcRoot: string;
  /** The `cgroup-writable` handler's runtime: a script running our wrapper around the node's OCI runtime. */
  readonly cgroupWritableRuntime: string;
  readonly cniConfDir: string;
  readonly cniIpamDir: string;
  readonly kubeletConfig: string;
  readonly kubeletRoot: string;
  readonly podLogs: string;
  readonly kubeProxyConfig: string;
}

/** containerd 1.6's config (version 2); `restrict_oom_score_adj` because root here may lack CAP_SYS_RESOURCE. */
export function containerdConfig(paths: NodePaths, options: { ociRuntime: string; cniPluginDir: string }): string {
  const cri = 'plugins."io.containerd.grpc.v1.cri"';
  const q = (value: string): string => JSON.stringify(value);
  return [
    'version = 2',
    `root = ${q(paths.containerdRoot)}`,
    `state = ${q(paths.containerdState)}`,
    // Not needed here, and some probe the host (btrfs, zfs, devmapper) or export telemetry. (The tasks
    // service of containerd 1.6 needs the v1 runtime plugin: it stays.)
    'disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]',
    '',
    '[grpc]',
    `  address = ${q(paths.containerdSocket)}`,
    '[ttrpc]',
    `  address = ${q(`${paths.containerdSocket}.ttrpc`)}`,
    '[debug]',
    '  address = ""',
    '[metrics]',
    '  address = ""',
    '',
    '[plugins."io.containerd.internal.v1.opt"]',
    `  path = ${q(paths.containerdOpt)}`,
    '',
    `[${cri}]`,
    `  sandbox_image = ${q(REAL_NODE_IMAGES.pause)}`,
    '  restrict_oom_score_adj = true',
    '  stream_server_address = "127.0.0.1"',
    '  stream_server_port = "0"',
    '  netns_mounts_under_state_dir = true',
    '  enable_selinux = false',
    '  disable_apparmor = true',
    `[${cri}.containerd]`,
    '  snapshotter = "overlayfs"',
    '  default_runtime_name = "runc"',
    `[${cri}.containerd.runtimes.runc]`,
    '  runtime_type = "io.containerd.runc.v2"',
    `[${cri}.containerd.runtimes.runc.options]`,
    `  BinaryName = ${q(options.ociRuntime)}`,
    `  Root = ${q(paths.runcRoot)}`,
    '  SystemdCgroup = false',
    // For system containers (systemd as PID 1): a writable cgroup of the container's own, as
    // containerd 2.1's cgroup_writable gives (cgroup-writable/main.go). Picked by a RuntimeClass.
    `[${cri}.containerd.runtimes.${CGROUP_WRITABLE_HANDLER}]`,
    '  runtime_type = "io.containerd.runc.v2"',
    `[${cri}.containerd.runtimes.${CGROUP_WRITABLE_HANDLER}.options]`,
    `  BinaryName = ${q(paths.cgroupWritableRuntime)}`,
    `  Root = ${q(paths.runcRoot)}`,
    '  SystemdCgroup = false',
    `[${cri}.cni]`,
    `  bin_dir = ${q(options.cniPluginDir)}`,
    `  conf_dir = ${q(paths.cniConfDir)}`,
    '  max_conf_num = 1',
    `[${cri}.registry]`,
    `  config_path = ${q(paths.registryHosts)}`,
    '',
  ].join('\n');
}

/** The runtime handler (and the RuntimeClass of the same name) that gives a container a writable cgroup of its own. */
export const CGROUP_WRITABLE_HANDLER = 'cgroup-writable';

/** The handler's BinaryName: containerd passes no arguments of ours, so a script names the wrapper and the real runtime. */
export function cgroupWritableScript(wrapper: string, ociRuntime: string): string {
  return `#!/bin/sh\nexec ${shellQuote(wrapper)} --runtime ${shellQuote(ociRuntime)} "$@"\n`;
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/** certs.d/<registry>/hosts.toml: the test registry's name resolves to the local registry, over plain HTTP. */
export function registryHostsToml(registryAddress: string): { readonly dir: string; readonly contents: string } {
  const url = `http://${registryAddress}`;
  return {
    dir: REAL_NODE_REGISTRY,
    contents: [`server = ${JSON.stringify(url)}`, '', `[host.${JSON.stringify(url)}]`, '  capabilities = ["pull", "resolve"]', ''].join(
      '\n',
    ),
  };
}

export interface PodNetwork {
  /** The CNI network's name; also the prefix of what its plugins leave in iptables comments and caches. */
  readonly name: string;
  readonly bridge: string;
  /** e.g. 10.89.0.0/24; the bridge gets the first address. */
  readonly subnet: string;
}

/** A bridge with host-local addresses, masquerade for traffic leaving the node, and hostPort support. */
export function cniConflist(network: PodNetwork, ipamDataDir: string): string {
  return `${JSON.stringify(
    {
      cniVersion: '1.0.0',
      name: network.name,
      plugins: [
        {
          type: 'bridge',
          bridge: network.bridge,
          isGateway: true,
          ipMasq: true,
          hairpinMode: true,
          ipam: { type: 'host-local', ranges: [[{ subnet: network.subnet }]], routes: [{ dst: '0.0.0.0/0' }], dataDir: ipamDataDir },
        },
        { type: 'portmap', capabilities: { portMappings: true } },
      ],
    },
    null,
    2,
  )}\n`;
}

export interface KubeletSettings {
  readonly nodeIp: string;
  readonly port: number;
  readonly healthzPort: number;
  readonly cgroupRoot: string;
  readonly clientCaFile: string;
  readonly tlsCertFile: string;
  readonly tlsKeyFile: string;
  readonly taintKey: string;
  /** The longest wait between restarts of a crashing container (the kubelet's default is 5 minutes). */
  readonly maxContainerRestartPeriod: string;
}

export function kubeletConfig(paths: NodePaths, settings: KubeletSettings): string {
  const socket = `unix://${paths.containerdSocket}`;
  return toYaml({
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    address: settings.nodeIp,
    port: settings.port,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: settings.healthzPort,
    tlsCertFile: settings.tlsCertFile,
    tlsPrivateKeyFile: settings.tlsKeyFile,
    // Only the API server holds a client certificate of this CA.
    authentication: { anonymous: { enabled: false }, webhook: { enabled: false }, x509: { clientCAFile: settings.clientCaFile } },
    authorization: { mode: 'AlwaysAllow' },
    containerRuntimeEndpoint: socket,
    imageServiceEndpoint: socket,
    // containerd 1.6 does not answer the CRI's RuntimeConfig, so the kubelet's own driver applies.
    cgroupDriver: 'cgroupfs',
    cgroupRoot: settings.cgroupRoot,
    // Hybrid cgroups (v1 controllers, v2 beside them) are refused by default since 1.35.
    failCgroupV1: false,
    failSwapOn: false,
    // Lowering an OOM score needs CAP_SYS_RESOURCE, which root may not have here.
    oomScoreAdj: 0,
    registerNode: true,
    registerWithTaints: [{ key: settings.taintKey, value: 'true', effect: 'NoSchedule' }],
    podLogsDir: paths.podLogs,
    serializeImagePulls: false,
    crashLoopBackOff: { maxContainerRestartPeriod: settings.maxContainerRestartPeriod },
    // A busy CI disk must not put the node under disk pressure (and evict the tests' pods).
    evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '1%', 'imagefs.available': '1%', 'nodefs.inodesFree': '1%' },
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    syncFrequency: '10s',
    nodeStatusUpdateFrequency: '5s',
    maxPods: 110,
    rotateCertificates: false,
    serverTLSBootstrap: false,
    shutdownGracePeriod: '0s',
    containerLogMaxSize: '1Mi',
    containerLogMaxFiles: 2,
  });
}

export interface KubeProxySettings {
  readonly kubeconfig: string;
  readonly nodeName: string;
  readonly clusterCidr: string;
  readonly healthzPort: number;
  readonly metricsPort: number;
}

export function kubeProxyConfig(settings: KubeProxySettings): string {
  return toYaml({
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
    kind: 'KubeProxyConfiguration',
    mode: 'iptables',
    clientConnection: { kubeconfig: settings.kubeconfig },
    hostnameOverride: settings.nodeName,
    clusterCIDR: settings.clusterCidr,
    bindAddress: '127.0.0.1',
    healthzBindAddress: `127.0.0.1:${settings.healthzPort}`,
    metricsBindAddress: `127.0.0.1:${settings.metricsPort}`,
    // Zeros leave the machine's conntrack sysctls as they are.
    conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: '0s', tcpCloseWaitTimeout: '0s' },
    // true would set route_localnet on every interface for NodePorts on 127.0.0.1.
    iptables: { localhostNodePorts: false, syncPeriod: '10s', minSyncPeriod: '0s' },
  });
}
