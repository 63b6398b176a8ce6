// The Manager container inside a workload's pod template: buildDeployment() names it like
// the Deployment (the hostname). A template with one container of another name (edited
// by hand) still has an unambiguous one.
import type { V1Container, V1Deployment } from '../../kube/objects.js';

export function workloadContainer(deployment: V1Deployment, name = deployment.metadata?.name): V1Container | undefined {
  const containers = deployment.spec?.template.spec?.containers ?? [];
  return containers.find((container) => container.name === name) ?? (containers.length === 1 ? containers[0] : undefined);
}
