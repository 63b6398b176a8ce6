// One cold start of the built package, step by step, as a CommonJS program like Manager's
// job scripts: prints the time (ms, the machine's monotonic clock, as the parent's stamps)
// at which each step ended. Node's own start-up is its time origin up to `scriptStarted`.
// Usage: node startup-steps.cjs <kubeconfig>
'use strict';
const at = () => Number(process.hrtime.bigint()) / 1e6;
const scriptStarted = at();
const marks = { processStarted: scriptStarted - performance.now(), scriptStarted };
const { KubernetesApi, buildDeployment, parseWorkloadSpec } = require('kube-provisioner');
marks.imported = at();
const api = KubernetesApi.fromConfig({ kubeconfigPath: process.argv[2] });
marks.kubeconfigLoaded = at();
const spec = parseWorkloadSpec({ containerId: 1, nodeId: 1, hostname: 'startup', image: 'nginx:1.27', cpus: 0.1, memoryMb: 64 });
const body = buildDeployment(spec, { namespace: api.namespace });
marks.requestStarted = at();
api.create('deployments', api.namespace, body).then(
  () => {
    marks.responseReceived = at();
    process.stdout.write(JSON.stringify(marks));
  },
  (error) => {
    process.stderr.write(`${error.name}: ${error.message}\n`);
    process.exitCode = 1;
  },
);
