// No cluster needed: validate a spec and build the Deployment it becomes, exactly what
// provision() does before it sends anything. Run: node examples/build-deployment.mjs
import { InvalidSpecError, buildDeployment, parseWorkloadSpec } from 'kube-provisioner';

const spec = parseWorkloadSpec({ containerId: 42, nodeId: 7, hostname: 'web', image: 'nginx:1.27', cpus: 0.5, memoryMb: 256 });
const deployment = buildDeployment(spec, { namespace: 'team-a' }); // pure: same spec, same object
const [container] = deployment.spec.template.spec.containers;
console.log(deployment.metadata.namespace, deployment.metadata.name, deployment.spec.strategy.type);
console.log(JSON.stringify(container.resources)); // requests = limits: Guaranteed QoS

// Invalid input never reaches a cluster: one error lists every problem with its field.
try {
  parseWorkloadSpec({ containerId: 42, nodeId: 7, hostname: 'Web_1', image: 'nginx:1.27', cpus: 0, memoryMb: 256 });
} catch (error) {
  if (!(error instanceof InvalidSpecError)) throw error;
  for (const issue of error.issues) console.log(`${issue.path}: ${issue.message}`);
}
