// Starts ONE control plane with a real node beside the KWOK node for the `realnode` project
// (scripts/control-plane/real-node/node.ts): a kubelet, containerd, kube-proxy and a local
// registry with the test images. It holds the machine-wide real-node lock for the whole run,
// so two suites on one machine take turns. If this machine cannot run a real node, the run
// fails here, naming the missing piece; it never skips.
//
// After the run, the node's cleanup must leave the machine as it found it: anything left
// (an iptables chain, a mount, a cgroup, a sysctl) fails the run.
import type { TestProject } from 'vitest/node';

import { startCluster } from '../../scripts/control-plane/cluster.js';
import { clusterEnvOf, clusterEnvToVars, REAL_NODE_ENV_VAR } from '../support/cluster-env.js';
import type { ClusterEnv, RealNodeEnv } from '../support/cluster-env.js';

const POD_READY_DELAY_MS = 1000;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const keepWorkDir = process.env.KUBE_PROVISIONER_TEST_KEEP_WORK_DIR === '1';
  const cluster = await startCluster({ podReadyDelayMs: POD_READY_DELAY_MS, keepWorkDir, realNode: true });
  const realNode = cluster.realNode;
  if (realNode === undefined) {
    await cluster.stop();
    throw new Error('the cluster started without the real node it was asked for');
  }
  const env: ClusterEnv = clusterEnvOf(cluster, POD_READY_DELAY_MS);
  const node: RealNodeEnv = {
    nodeName: realNode.nodeName,
    nodeIp: realNode.nodeIp,
    podSubnet: realNode.podSubnet,
    registryAddress: realNode.registryAddress,
    logDir: realNode.logDir,
    volumesDir: realNode.volumesDir,
    sshKeyFile: realNode.sshKeyFile,
    systemContainerRuntimeClass: realNode.systemContainerRuntimeClass,
  };
  project.provide('cluster', env);
  project.provide('realNode', node);
  const vars = { ...clusterEnvToVars(env), [REAL_NODE_ENV_VAR]: JSON.stringify(node) };
  Object.assign(process.env, vars);
  process.stderr.write(
    `[realnode] cluster with the real node ${node.nodeName} started in ${(cluster.startedInMs / 1000).toFixed(1)} s ` +
      `(the node itself in ${(realNode.startedInMs / 1000).toFixed(1)} s)\n`,
  );

  return async () => {
    for (const name of Object.keys(vars)) delete process.env[name];
    await cluster.stop();
    if (realNode.leftovers.length > 0) {
      throw new Error(`the real node's cleanup left this on the machine: ${realNode.leftovers.join('; ')}`);
    }
  };
}
