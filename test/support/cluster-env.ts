// How integration tests find the cluster that test/integration/global-setup.ts (or, with a
// real node, test/realnode/global-setup.ts) started: through vitest's provide/inject
// (`inject('cluster')`), and, for child processes such as the CLI, through
// KUBE_PROVISIONER_TEST_* environment variables.
import { inject } from 'vitest';

import type { LocalCluster } from '../../scripts/control-plane/cluster.js';

export type ClusterUserName = 'admin' | 'restricted' | 'viewer';

export interface ClusterEnv {
  /** Admin kubeconfig (system:masters), TLS verification on, context kube-provisioner-local. */
  readonly kubeconfigPath: string;
  /** One kubeconfig per user: admin, restricted (no RBAC grants), viewer (ClusterRole view). */
  readonly kubeconfigs: Readonly<Record<ClusterUserName, string>>;
  /** https://127.0.0.1:<port> */
  readonly server: string;
  readonly binDir: string;
  readonly workDir: string;
  /** The KWOK-simulated node pods are scheduled to. */
  readonly nodeName: string;
  /** Scheduling to Ready takes this long (jittered up to +20 %). */
  readonly podReadyDelayMs: number;
}

/** The real node of the `realnode` project's cluster. */
export interface RealNodeEnv {
  readonly nodeName: string;
  /** The node's InternalIP (this machine's own address). */
  readonly nodeIp: string;
  readonly podSubnet: string;
  /** host:port of the local registry. */
  readonly registryAddress: string;
  /** The kubelet's and containerd's logs, for a failing test's message. */
  readonly logDir: string;
  /** Where local PersistentVolumes' directories go (offerLocalVolume in test/support/real-node.ts). */
  readonly volumesDir: string;
  /** The private key that logs in as root to the system images (REAL_NODE_IMAGES.system*). */
  readonly sshKeyFile: string;
  /** The RuntimeClass that lets systemd run as PID 1 on the real node. */
  readonly systemContainerRuntimeClass: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    cluster: ClusterEnv;
    realNode: RealNodeEnv | undefined;
  }
}

export const CLUSTER_ENV_VARS = {
  kubeconfigPath: 'KUBE_PROVISIONER_TEST_KUBECONFIG',
  kubeconfigs: 'KUBE_PROVISIONER_TEST_KUBECONFIGS',
  server: 'KUBE_PROVISIONER_TEST_SERVER',
  binDir: 'KUBE_PROVISIONER_TEST_BIN_DIR',
  workDir: 'KUBE_PROVISIONER_TEST_WORK_DIR',
  nodeName: 'KUBE_PROVISIONER_TEST_NODE_NAME',
  podReadyDelayMs: 'KUBE_PROVISIONER_TEST_POD_READY_DELAY_MS',
} as const satisfies Record<keyof ClusterEnv, string>;

/** What the tests read of a started cluster (global setups). */
export function clusterEnvOf(cluster: LocalCluster, podReadyDelayMs: number): ClusterEnv {
  const { kubeconfigPath, kubeconfigs, server, binDir, workDir, nodeName } = cluster;
  return { kubeconfigPath, kubeconfigs, server, binDir, workDir, nodeName, podReadyDelayMs };
}

/** The real node, as JSON, for child processes. */
export const REAL_NODE_ENV_VAR = 'KUBE_PROVISIONER_TEST_REAL_NODE';

/** The environment variables that describe `env` (kubeconfigs as JSON). */
export function clusterEnvToVars(env: ClusterEnv): Record<string, string> {
  return {
    [CLUSTER_ENV_VARS.kubeconfigPath]: env.kubeconfigPath,
    [CLUSTER_ENV_VARS.kubeconfigs]: JSON.stringify(env.kubeconfigs),
    [CLUSTER_ENV_VARS.server]: env.server,
    [CLUSTER_ENV_VARS.binDir]: env.binDir,
    [CLUSTER_ENV_VARS.workDir]: env.workDir,
    [CLUSTER_ENV_VARS.nodeName]: env.nodeName,
    [CLUSTER_ENV_VARS.podReadyDelayMs]: String(env.podReadyDelayMs),
  };
}

/** Reads the cluster back from environment variables (e.g. in a child process). */
export function clusterEnvFromVars(vars: NodeJS.ProcessEnv = process.env): ClusterEnv | undefined {
  const kubeconfigPath = vars[CLUSTER_ENV_VARS.kubeconfigPath];
  const kubeconfigs = vars[CLUSTER_ENV_VARS.kubeconfigs];
  const server = vars[CLUSTER_ENV_VARS.server];
  if (kubeconfigPath === undefined || kubeconfigs === undefined || server === undefined) return undefined;
  return {
    kubeconfigPath,
    kubeconfigs: JSON.parse(kubeconfigs) as Record<ClusterUserName, string>,
    server,
    binDir: vars[CLUSTER_ENV_VARS.binDir] ?? '',
    workDir: vars[CLUSTER_ENV_VARS.workDir] ?? '',
    nodeName: vars[CLUSTER_ENV_VARS.nodeName] ?? '',
    podReadyDelayMs: Number(vars[CLUSTER_ENV_VARS.podReadyDelayMs] ?? '0'),
  };
}

/**
 * The running test cluster. Throws (never skips) when there is none: integration tests
 * must run under the `integration` project, whose global setup starts it.
 */
export function clusterEnv(): ClusterEnv {
  const provided = inject('cluster') as ClusterEnv | undefined;
  const env = provided ?? clusterEnvFromVars();
  if (env === undefined) {
    throw new Error(
      'no test cluster: run integration tests with `vitest run --project integration` (test/integration/global-setup.ts starts it)',
    );
  }
  return env;
}
