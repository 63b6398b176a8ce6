// Starts ONE real control plane (etcd, kube-apiserver, controller manager, scheduler, KWOK)
// for the whole integration run and hands it to the tests (provide/inject and
// KUBE_PROVISIONER_TEST_* variables). If it cannot start, the run fails with the reason.
//
// KUBE_PROVISIONER_TEST_KEEP_WORK_DIR=1 keeps the cluster's logs after the run.
import type { TestProject } from 'vitest/node';

import { startCluster } from '../../scripts/control-plane/cluster.js';
import { clusterEnvOf, clusterEnvToVars } from '../support/cluster-env.js';
import type { ClusterEnv } from '../support/cluster-env.js';

const POD_READY_DELAY_MS = 1000;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const keepWorkDir = process.env.KUBE_PROVISIONER_TEST_KEEP_WORK_DIR === '1';
  const cluster = await startCluster({ podReadyDelayMs: POD_READY_DELAY_MS, keepWorkDir });
  const env: ClusterEnv = clusterEnvOf(cluster, POD_READY_DELAY_MS);
  project.provide('cluster', env);
  const vars = clusterEnvToVars(env);
  Object.assign(process.env, vars);
  process.stderr.write(`[integration] cluster started in ${(cluster.startedInMs / 1000).toFixed(1)} s (${cluster.server})\n`);

  return async () => {
    for (const name of Object.keys(vars)) delete process.env[name];
    await cluster.stop();
    if (keepWorkDir) process.stderr.write(`[integration] cluster logs kept in ${cluster.workDir}/logs\n`);
  };
}
