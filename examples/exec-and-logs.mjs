// A command, a terminal and the log of a workload's container (ESM).
// Run: KUBECONFIG_PATH=~/.kube/config PROVIDER_ID=team-a/web node examples/exec-and-logs.mjs
import { KubernetesApi, execCommand, logs$, openTerminal } from 'kube-provisioner';

const api = KubernetesApi.fromConfig({ kubeconfigPath: process.env.KUBECONFIG_PATH });
const providerId = process.env.PROVIDER_ID; // "namespace/name", as provision() returned it

// One command to its end: its exit code and output (an argv: no shell unless you run one).
const { exitCode, stdout } = await execCommand(api, providerId, ['cat', '/etc/hostname']);
console.log(`exit ${exitCode}: ${stdout.trim()}`);

// A terminal (bash, else sh): what a page wires to a browser terminal.
const terminal = await openTerminal(api, providerId, {
  columns: 80,
  rows: 24,
  onStdout: (data) => process.stdout.write(data),
  maxSessionMs: 60_000, // optional: close it after a minute
});
terminal.resize(100, 30); // when the browser's terminal changes size
terminal.write('echo hello; exit 3\r');
const exit = await terminal.exit; // { exitCode: 3 }; null after terminal.close()
console.log(`shell exit ${exit.exitCode} (${terminal.command.join(' ')})`);

// The last 5 lines of the log, with the kubelet's timestamps; `follow: true` keeps going
// across log rotation, restarts and replaced Pods until unsubscribed.
logs$(api, providerId, { tailLines: 5, timestamps: true }).subscribe({
  next: (line) => console.log(`${line.time} ${line.text}`),
  error: (error) => {
    console.error(`${error.name}: ${error.message}`);
    process.exitCode = 1;
  },
});
