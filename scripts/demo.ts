// `npm run demo`: starts the local control plane (built from Go modules on first use),
// provisions a sample Manager container with live progress through the CLI, then one
// whose image does not exist, to show a failure named in seconds. Stops everything after.
import { startCluster } from './control-plane/cluster.js';
import { faultImage } from './control-plane/stages.js';
import { runCli } from '../src/cli/run.js';

const controller = new AbortController();
process.once('SIGINT', () => controller.abort(new Error('interrupted')));

const say = (line: string): void => void process.stdout.write(`${line}\n`);

async function demo(): Promise<number> {
  say('Starting a local Kubernetes control plane (etcd, kube-apiserver, controller manager, scheduler, KWOK)...');
  const cluster = await startCluster({ podReadyDelayMs: 2000, log: (line) => say(`  ${line}`) });
  say(`Control plane ready in ${(cluster.startedInMs / 1000).toFixed(1)} s at ${cluster.server}`);
  try {
    const io = { stdout: say, stderr: (line: string) => void process.stderr.write(`${line}\n`), signal: controller.signal };
    const common = ['--kubeconfig', cluster.kubeconfigPath, '--node-id', '1', '--cpus', '0.5', '--memory-mb', '512', '--timeout', '2m'];

    say('\n$ kube-provision create --container-id 101 --hostname demo-web --image docker.io/library/nginx:1.27 ...');
    const ok = await runCli(
      [
        'create',
        ...common,
        '--container-id',
        '101',
        '--hostname',
        'demo-web',
        '--image',
        'docker.io/library/nginx:1.27',
        '--env',
        'GREETING=hello',
        '--entrypoint',
        'nginx -g "daemon off;"',
      ],
      io,
    );
    say(`exit code ${ok}`);

    say(`\n$ kube-provision create --container-id 102 --hostname demo-broken --image ${faultImage('image-not-found')} ...`);
    const broken = await runCli(
      ['create', ...common, '--container-id', '102', '--hostname', 'demo-broken', '--image', faultImage('image-not-found')],
      io,
    );
    say(`exit code ${broken} (3 = rollout failed, named by the kubelet's reason)`);
    return ok;
  } finally {
    await cluster.stop();
    say('\nControl plane stopped.');
  }
}

demo().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
