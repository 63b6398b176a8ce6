// `npm run demo`: starts the local control plane (built from Go modules on first use),
// provisions a sample Manager container with live progress through the CLI, then one
// whose image does not exist, to show a failure named in seconds. Stops everything after.
//
// `npm run demo -- --ui` also serves the live page (kube-provision ui's) on 127.0.0.1 and
// prints its URL: each provisioning runs once, as an operation of the page, and the
// terminal prints the same events. The page stays up until Ctrl-C.
//
// `npm run demo -- --real-node` runs both on a real node instead of KWOK (root only; see
// scripts/control-plane/README.md): a real httpd that answers over HTTP, then an image the
// local registry does not have, which is a real pull failure; between the two, a system
// container (Debian with systemd as PID 1 and sshd, like Manager's templates) that it logs in
// to over SSH.
import { execFileSync } from 'node:child_process';
import type { Observable } from 'rxjs';
import { startCluster } from './control-plane/cluster.js';
import { faultImage } from './control-plane/stages.js';
import { HTTPD_PORT, MISSING_IMAGE, REAL_NODE_IMAGES } from './control-plane/real-node/images.js';
import { REAL_NODE_NAMESPACE } from './control-plane/real-node/node.js';
import type { RealNode } from './control-plane/real-node/node.js';
import { httpGet } from './control-plane/http.js';
import { status } from '../src/workload/reads/status.js';
import { runCli } from '../src/cli/run.js';
import { describeEvent, formatErrorLine, formatEventLine } from '../src/cli/format.js';
import { exitCodeFor, EXIT } from '../src/cli/exit-codes.js';
import { KubernetesApi } from '../src/kube/kubernetes-api.js';
import type { ProvisionEvent } from '../src/rollout/events.js';
import type { OperationEvent } from '../src/ui/backend.js';
import { libraryBackend } from '../src/ui/library-backend.js';
import { LiveHub } from '../src/ui/live-hub.js';
import { startUiServer } from '../src/ui/server.js';

const withUi = process.argv.includes('--ui');
const onRealNode = process.argv.includes('--real-node');
const controller = new AbortController();
process.once('SIGINT', () => controller.abort(new Error('interrupted')));

const say = (line: string): void => void process.stdout.write(`${line}\n`);
const sayError = (line: string): void => void process.stderr.write(`${line}\n`);

interface DemoWorkload {
  readonly containerId: string;
  readonly hostname: string;
  readonly image: string;
  readonly extra: readonly string[];
}

const WEB: DemoWorkload = {
  containerId: '101',
  hostname: 'demo-web',
  image: 'docker.io/library/nginx:1.27',
  extra: ['--env', 'GREETING=hello', '--entrypoint', 'nginx -g "daemon off;"'],
};
const BROKEN: DemoWorkload = { containerId: '102', hostname: 'demo-broken', image: faultImage('image-not-found'), extra: [] };

// On the real node: our busybox httpd image, and one the local registry never had.
const REAL_WEB: DemoWorkload = { containerId: '101', hostname: 'demo-web', image: REAL_NODE_IMAGES.httpd, extra: [] };
const REAL_BROKEN: DemoWorkload = { containerId: '102', hostname: 'demo-broken', image: MISSING_IMAGE, extra: [] };
const realSystem = (node: RealNode): DemoWorkload => ({
  containerId: '103',
  hostname: 'demo-system',
  image: REAL_NODE_IMAGES.systemBookworm,
  extra: ['--entrypoint', '/sbin/init', '--runtime-class', node.systemContainerRuntimeClass, '--port', '22', '--env', 'GREETING=hello'],
});

async function demo(): Promise<number> {
  say(
    `Starting a local Kubernetes control plane (etcd, kube-apiserver, controller manager, scheduler, KWOK${onRealNode ? ', and a real node' : ''})...`,
  );
  const cluster = await startCluster({ podReadyDelayMs: 2000, log: (line) => say(`  ${line}`), realNode: onRealNode });
  say(`Control plane ready in ${(cluster.startedInMs / 1000).toFixed(1)} s at ${cluster.server}`);
  let hub: LiveHub | undefined;
  let server: Awaited<ReturnType<typeof startUiServer>> | undefined;
  const [web, broken] = onRealNode ? [REAL_WEB, REAL_BROKEN] : [WEB, BROKEN];
  try {
    const common = [
      '--kubeconfig',
      cluster.kubeconfigPath,
      ...(onRealNode ? ['--namespace', REAL_NODE_NAMESPACE] : []),
      '--node-id',
      '1',
      '--cpus',
      '0.5',
      '--memory-mb',
      '512',
      '--timeout',
      '2m',
    ];
    let run = (workload: DemoWorkload): Promise<number> =>
      runCli(
        [
          'create',
          ...common,
          '--container-id',
          workload.containerId,
          '--hostname',
          workload.hostname,
          '--image',
          workload.image,
          ...workload.extra,
        ],
        { stdout: say, stderr: sayError, signal: controller.signal },
      );

    if (withUi) {
      const api = KubernetesApi.fromConfig({
        kubeconfigPath: cluster.kubeconfigPath,
        namespace: onRealNode ? REAL_NODE_NAMESPACE : undefined,
      });
      hub = new LiveHub({ api, namespace: api.namespace, backend: libraryBackend() });
      server = await startUiServer({ hub, port: 0 });
      say(`\nLive page: ${server.url}  (open it in a browser; no authentication, 127.0.0.1 only)`);
      say('Provisioning starts as soon as a page connects, or in 10 s.');
      for (let waited = 0; waited < 10_000 && hub.channel.viewerCount === 0 && !controller.signal.aborted; waited += 200) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const liveHub = hub;
      run = (workload) => {
        const spec = {
          containerId: workload.containerId,
          nodeId: 1,
          hostname: workload.hostname,
          image: workload.image,
          cpus: 0.5,
          memoryMb: 512,
          ...(workload === WEB ? { env: { GREETING: 'hello' }, entrypoint: 'nginx -g "daemon off;"' } : {}),
        };
        // One subscription, held by the page's hub; the terminal prints what it sees.
        return printed(liveHub.provision(spec).events$);
      };
    }

    say(`\n$ kube-provision create --container-id ${web.containerId} --hostname ${web.hostname} --image ${web.image} ...`);
    const ok = await run(web);
    say(`exit code ${ok}`);
    if (onRealNode && ok === EXIT.ok) await showItAnswers(cluster.kubeconfigPath, `${REAL_NODE_NAMESPACE}/${web.hostname}`);

    // The page's provisionings take a spec without the CLI's extra flags: the system container is a CLI one.
    if (cluster.realNode !== undefined && !withUi) {
      const system = realSystem(cluster.realNode);
      say(
        `\n$ kube-provision create --container-id ${system.containerId} --hostname ${system.hostname} --image ${system.image} ${system.extra.join(' ')} ...`,
      );
      const booted = await run(system);
      say(`exit code ${booted}`);
      if (booted === EXIT.ok)
        await showSshLogin(cluster.kubeconfigPath, `${REAL_NODE_NAMESPACE}/${system.hostname}`, cluster.realNode.sshKeyFile);
    }

    say(`\n$ kube-provision create --container-id ${broken.containerId} --hostname ${broken.hostname} --image ${broken.image} ...`);
    const failed = await run(broken);
    say(`exit code ${failed} (3 = rollout failed, named by the kubelet's reason)`);

    if (server) {
      say(`\nThe live page stays up at ${server.url}: press Ctrl-C to stop.`);
      await new Promise<void>((resolve) => {
        if (controller.signal.aborted) return resolve();
        controller.signal.addEventListener('abort', () => resolve(), { once: true });
      });
    }
    return ok;
  } finally {
    await server?.close();
    hub?.close();
    await cluster.stop();
    say('\nControl plane stopped.');
  }
}

/** On the real node the container really runs: one HTTP request to its Pod IP, from this machine. */
async function showItAnswers(kubeconfigPath: string, providerId: string): Promise<void> {
  const { podIp } = await status(KubernetesApi.fromConfig({ kubeconfigPath }), providerId);
  const url = `http://${podIp ?? '?'}:${HTTPD_PORT}/`;
  const response = await httpGet(url);
  say(`\n$ curl ${url}\n${response.body.trimEnd()}   (HTTP ${response.status}, from the container's httpd)`);
}

/** A system container is ready when sshd accepts: one SSH login at its address, from this machine. */
async function showSshLogin(kubeconfigPath: string, providerId: string, keyFile: string): Promise<void> {
  const { address } = await status(KubernetesApi.fromConfig({ kubeconfigPath }), providerId);
  const command = 'echo "$(hostname): systemd $(systemctl is-system-running --wait), GREETING=$GREETING"';
  const options = ['-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR'];
  say(`\n$ ssh root@${address ?? '?'} '${command}'`);
  try {
    say(
      execFileSync('ssh', ['-i', keyFile, ...options, `root@${address ?? ''}`, command], { encoding: 'utf8', timeout: 60_000 }).trimEnd(),
    );
  } catch (error) {
    sayError(`ssh failed: ${(error as Error).message}`);
  }
}

/** The CLI's human lines for an operation's events; resolves with the CLI's exit code. */
function printed(events$: Observable<OperationEvent>): Promise<number> {
  return new Promise((resolve) => {
    let lastText = '';
    let last: OperationEvent | undefined;
    events$.subscribe({
      next: (event) => {
        last = event;
        const text = describeEvent(event as ProvisionEvent);
        if (text !== lastText) say(formatEventLine(event as ProvisionEvent));
        lastText = text;
      },
      error: (error: unknown) => {
        sayError(formatErrorLine(error));
        resolve(exitCodeFor(error));
      },
      complete: () => {
        say(last?.providerId ?? '');
        resolve(EXIT.ok);
      },
    });
  });
}

demo().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
