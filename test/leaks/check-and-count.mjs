// Runs check(), nodes(), nodes$() and fits() through the built package, against the real
// API server and against a server that accepts connections and never answers, and after
// each reports the process's active resources. Run by test/integration/leaks.test.ts,
// which also checks that this process exits on its own.
// Usage: node check-and-count.mjs <kubeconfig> <namespace>
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom } from 'rxjs';
import { KubernetesApi, check, defaultInformerRegistry, fits, nodes, nodes$ } from 'kube-provisioner';

const [kubeconfigPath, namespace] = process.argv.slice(2);
const api = KubernetesApi.fromConfig({ kubeconfigPath, namespace });
const settle = () => new Promise((resolve) => setImmediate(() => setTimeout(resolve, 300)));
const leaky = () => process.getActiveResourcesInfo().filter((name) => /TCP|TLS|Timeout|Immediate/.test(name));

const report = {};
async function scenario(name, run) {
  const outcome = await run().then(
    (value) => (value && typeof value === 'object' && 'ok' in value ? `ok=${value.ok}` : 'resolved'),
    (error) => error.name,
  );
  await settle();
  report[name] = { outcome, leaky: leaky(), informers: defaultInformerRegistry.count(api) };
}

await scenario('check', () => check(api, { spec: { cpus: 0.1, memoryMb: 64 } }));
await scenario('checkSilent', async () => {
  // A server that takes the connection and says nothing: every request waits for the bound.
  const openConnections = new Set();
  const silent = createServer((connection) => {
    openConnections.add(connection);
    connection.on('close', () => openConnections.delete(connection));
  });
  await new Promise((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const silentConfig = join(mkdtempSync(join(tmpdir(), 'kp-leak-')), 'silent.kubeconfig');
  writeFileSync(
    silentConfig,
    readFileSync(kubeconfigPath, 'utf8').replace(
      /server: "?https:\/\/127\.0\.0\.1:\d+"?/,
      `server: https://127.0.0.1:${silent.address().port}`,
    ),
  );
  const result = await check({ kubeconfigPath: silentConfig }, { timeoutMs: 1500 });
  silent.close();
  for (const connection of openConnections) connection.destroy();
  return result;
});
await scenario('checkAborted', () => {
  const controller = new AbortController();
  const pending = check(api, { signal: controller.signal });
  controller.abort(new Error('user left'));
  return pending;
});
await scenario('nodes', () => nodes(api));
await scenario('nodesLive', () => firstValueFrom(nodes$(api)));
await scenario('fits', () => fits(api, { cpus: 1, memoryMb: 64 }));
process.stdout.write(`${JSON.stringify(report)}\n`);
// No process.exit(): the test measures that the process ends on its own.
