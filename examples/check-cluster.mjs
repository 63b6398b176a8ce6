// Before the first provisioning: will this kubeconfig, context and namespace work?
// Usage: node examples/check-cluster.mjs /path/to/kubeconfig [namespace]
import { check } from 'kube-provisioner';

const [kubeconfigPath, namespace = 'default'] = process.argv.slice(2);

const report = await check(
  { kubeconfigPath, namespace }, // a kubeconfig that does not load is a failing item, not an exception
  { spec: { cpus: 0.5, memoryMb: 256 }, timeoutMs: 10_000 }, // spec: also check LimitRanges and ResourceQuotas
);

for (const item of report.items) {
  console.log(`${item.status.padEnd(4)} ${item.id}: ${item.message}`);
}
const missing = report.items.find((item) => item.id === 'permissions:create')?.missing ?? [];
if (missing.length > 0) console.log(`grant these first: ${missing.join(', ')}`);
process.exitCode = report.ok ? 0 : 1;
