// Starts a local control plane and keeps it up until Ctrl-C (or SIGTERM):
//
//   npx tsx scripts/control-plane/start.ts [--keep] [--json] [--pod-ready-delay-ms=1000] [--real-node]
//
// Prints how long the start took and the `export KUBECONFIG=...` line to use it; with
// --json, one JSON line instead (server, kubeconfigs, workDir, pids), for scripts and tests.
// --real-node also starts a real kubelet node (root only; see README.md, "The real node").
import { startCluster, UNPRIVILEGED_USERS } from './cluster.js';
import type { LocalCluster } from './cluster.js';
import { REAL_NODE_REGISTRY } from './real-node/images.js';
import { REAL_NODE_NAMESPACE } from './real-node/node.js';

interface StartFlags {
  readonly keepWorkDir: boolean;
  readonly json: boolean;
  readonly podReadyDelayMs?: number;
  readonly realNode: boolean;
}

const USAGE = 'usage: start.ts [--keep] [--json] [--pod-ready-delay-ms=<ms>] [--real-node]';

function parseFlags(argv: readonly string[]): StartFlags {
  let keepWorkDir = false;
  let json = false;
  let podReadyDelayMs: number | undefined;
  let realNode = false;
  for (const arg of argv) {
    if (arg === '--keep') keepWorkDir = true;
    else if (arg === '--real-node') realNode = true;
    else if (arg === '--json') json = true;
    else if (arg.startsWith('--pod-ready-delay-ms=')) podReadyDelayMs = Number(arg.slice('--pod-ready-delay-ms='.length));
    else throw new Error(`unknown flag ${arg}\n${USAGE}`);
  }
  if (podReadyDelayMs !== undefined && !(Number.isFinite(podReadyDelayMs) && podReadyDelayMs >= 0))
    throw new Error(`--pod-ready-delay-ms needs a number >= 0\n${USAGE}`);
  return { keepWorkDir, json, podReadyDelayMs, realNode };
}

function humanSummary(cluster: LocalCluster): string {
  const label = (name: string): string => `  ${name}:`.padEnd(14);
  return [
    `Local cluster (Kubernetes ${cluster.versions.kubernetes}, KWOK ${cluster.versions.kwok}) started in ${(cluster.startedInMs / 1000).toFixed(1)} s.`,
    `${label('server')}${cluster.server}`,
    `${label('node')}${cluster.nodeName}`,
    ...(cluster.realNode === undefined
      ? []
      : [
          `${label('real node')}${cluster.realNode.nodeName} (${cluster.realNode.nodeIp}; pods of namespace ${REAL_NODE_NAMESPACE} run there)`,
          `${label('registry')}${cluster.realNode.registryAddress} (images ${REAL_NODE_REGISTRY}/...)`,
          `${label('node logs')}${cluster.realNode.logDir}`,
        ]),
    `${label('logs')}${cluster.workDir}/logs`,
    ...UNPRIVILEGED_USERS.map((user) => `${label(user)}${cluster.kubeconfigFor(user)}`),
    '',
    `export KUBECONFIG=${cluster.kubeconfigPath}`,
    '',
    'Press Ctrl-C to stop.',
  ].join('\n');
}

function jsonSummary(cluster: LocalCluster): string {
  const { server, kubeconfigPath, kubeconfigs, workDir, binDir, nodeName, pids, startedInMs, realNode } = cluster;
  return JSON.stringify({
    server,
    kubeconfigPath,
    kubeconfigs,
    workDir,
    binDir,
    nodeName,
    pids,
    startedInMs,
    ...(realNode === undefined
      ? {}
      : {
          realNode: {
            nodeName: realNode.nodeName,
            nodeIp: realNode.nodeIp,
            registryAddress: realNode.registryAddress,
            pids: realNode.pids,
          },
        }),
  });
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  // The cluster's own SIGINT/SIGTERM hooks stop every process, then re-raise the signal.
  // Progress goes to stderr either way; stdout carries only the summary.
  const cluster = await startCluster({ keepWorkDir: flags.keepWorkDir, podReadyDelayMs: flags.podReadyDelayMs, realNode: flags.realNode });
  process.stdout.write(`${flags.json ? jsonSummary(cluster) : humanSummary(cluster)}\n`);
  // Keep the event loop alive until a signal arrives (the cluster's children are unref'd).
  setInterval(() => undefined, 1 << 30);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exitCode = 1;
});
