// serviceDrift(): where a live Service differs from the one buildService() asks for, in the
// spec's words (`ports`, `serviceType`, `selector`, `owner`, `labels.KEY`). Pure. Node
// ports the API server allocated are not drift: only a node port the spec fixes is compared.
import type { V1OwnerReference, V1Service, V1ServicePort } from '../../kube/objects.js';
import { selectorText } from '../../rollout/service-gate.js';
import type { DriftField } from '../drift.js';

const NONE = '(none)';

function describePorts(ports: readonly V1ServicePort[] | undefined, withNodePorts: ReadonlySet<string>): string {
  const text = (ports ?? [])
    .map((port) => {
      const protocol = (port.protocol ?? 'TCP').toLowerCase();
      const key = `${port.port}/${protocol}`;
      const nodePort = withNodePorts.has(key) && port.nodePort ? ` node ${port.nodePort}` : '';
      // Ours target the same number on the Pod; another target is drift.
      const target = port.targetPort !== undefined && port.targetPort !== port.port ? ` → ${port.targetPort}` : '';
      return `${key} ${port.name ?? ''}${target}${nodePort}`.trim();
    })
    .sort()
    .join(', ');
  return text || NONE;
}

function ownerOf(references: readonly V1OwnerReference[] | undefined): string {
  const owner = references?.find((reference) => reference.kind === 'Deployment');
  return owner ? `Deployment ${owner.name} (${owner.uid})` : NONE;
}

export function serviceDrift(desired: V1Service, live: V1Service): DriftField[] {
  const drift: DriftField[] = [];
  const differ = (field: string, liveValue: string, desiredValue: string): void => {
    if (liveValue !== desiredValue) drift.push({ field, live: liveValue, desired: desiredValue });
  };
  const fixed = new Set(
    (desired.spec?.ports ?? [])
      .filter((port) => port.nodePort !== undefined)
      .map((port) => `${port.port}/${(port.protocol ?? 'TCP').toLowerCase()}`),
  );
  differ('serviceType', live.spec?.type ?? 'ClusterIP', desired.spec?.type ?? 'ClusterIP');
  differ('ports', describePorts(live.spec?.ports, fixed), describePorts(desired.spec?.ports, fixed));
  differ('selector', selectorText(live.spec?.selector), selectorText(desired.spec?.selector));
  // An adopted Service owned by another (an older) Deployment would be collected with it.
  if (desired.metadata?.ownerReferences) {
    differ('owner', ownerOf(live.metadata?.ownerReferences), ownerOf(desired.metadata.ownerReferences));
  }
  for (const [key, value] of Object.entries(desired.metadata?.labels ?? {})) {
    differ(`labels.${key}`, live.metadata?.labels?.[key] ?? NONE, value);
  }
  return drift;
}
