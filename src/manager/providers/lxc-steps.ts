// Steps shared by the LXC-shaped providers (Proxmox, and Docker through Manager's
// DockerApi): fold the template's env/entrypoint under the user's and apply them; then
// start the container and discover its network identity.
import { NetworkIdentityMissingError } from '../errors.js';
import { effectiveEntrypoint, effectiveEnvironment } from './environment.js';
import { lxcEnvironmentConfig, parseLxcEnvironment } from './lxc-environment.js';
import type { LxcConfig, NodeApi, TaskId, Vmid } from './node-api.js';
import type { StepRunner } from './step-runner.js';
import type { ActualResources, ContainerRecord, TemplateDefaults } from './types.js';

export interface AppliedEnvironment {
  readonly templateDefaults: TemplateDefaults;
  /** What updateLxcConfig resolved to; undefined when nothing needed applying. */
  readonly updateResult: TaskId | void | undefined;
}

export async function applyEnvironment(
  steps: StepRunner,
  client: Pick<NodeApi, 'lxcConfig' | 'updateLxcConfig'>,
  nodeName: string,
  vmid: Vmid,
  record: ContainerRecord,
): Promise<AppliedEnvironment> {
  const templateConfig = await steps.call('environment', () => client.lxcConfig(nodeName, vmid));
  const templateEnvironment = parseLxcEnvironment(templateConfig['env']);
  const templateEntrypoint = typeof templateConfig['entrypoint'] === 'string' ? templateConfig['entrypoint'] : null;
  const templateDefaults: TemplateDefaults = {
    environment: { ...templateEnvironment, ...record.environment },
    entrypoint: effectiveEntrypoint(record.entrypoint, templateEntrypoint),
  };
  const config = lxcEnvironmentConfig(effectiveEnvironment(record, templateEnvironment), templateDefaults.entrypoint);
  if (Object.keys(config).length === 0) return { templateDefaults, updateResult: undefined };
  const updateResult = await steps.call('environment', () => client.updateLxcConfig(nodeName, vmid, { ...config }));
  steps.report('environment', 'Applied environment variables and entrypoint');
  return { templateDefaults, updateResult };
}

export interface NetworkIdentity {
  readonly macAddress: string;
  readonly ipAddress: string;
  readonly resources: ActualResources;
}

export async function startAndDiscover(
  steps: StepRunner,
  client: Pick<NodeApi, 'startLxc' | 'waitForTask' | 'getLxcMacAddress' | 'lxcConfig' | 'getLxcIpAddress'>,
  provider: string,
  nodeName: string,
  vmid: Vmid,
): Promise<NetworkIdentity> {
  steps.report('start', `Starting ${vmid}`);
  const startTask = await steps.call('start', () => client.startLxc(nodeName, vmid));
  await steps.call('start', () => client.waitForTask(nodeName, startTask));
  steps.report('start', `Started ${vmid}`);

  const macAddress = await steps.call('mac-address', () => client.getLxcMacAddress(nodeName, vmid));
  if (!macAddress) throw new NetworkIdentityMissingError(provider, 'MAC address', String(vmid));
  const config = await steps.call('read-config', () => client.lxcConfig(nodeName, vmid));
  const ipAddress = await steps.call('ip-address', () => client.getLxcIpAddress(nodeName, vmid));
  if (!ipAddress) throw new NetworkIdentityMissingError(provider, 'IP address', String(vmid));
  steps.report('ip-address', `MAC ${macAddress}, IP ${ipAddress}`);
  return { macAddress, ipAddress, resources: actualResources(config) };
}

/** Cores, memory and disk the container really got, from its LXC config. */
export function actualResources(config: LxcConfig): ActualResources {
  return {
    cores: integerOrNull(config['cores']),
    memoryMb: integerOrNull(config['memory']),
    diskGb: rootfsSizeGb(config['rootfs']),
  };
}

function integerOrNull(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  const parsed = typeof value === 'number' || typeof value === 'string' ? Number.parseInt(String(value), 10) : Number.NaN;
  return Number.isFinite(parsed) ? parsed : null;
}

const GB_PER_UNIT: Readonly<Record<string, number>> = { T: 1024, G: 1, M: 1 / 1024, K: 1 / (1024 * 1024) };

/** `local-lvm:vm-104-disk-0,size=50G` -> 50; whole GB, G when no unit, null if absent. */
export function rootfsSizeGb(rootfs: unknown): number | null {
  if (typeof rootfs !== 'string') return null;
  const match = /size=(\d+(?:\.\d+)?)([TGMK])?/i.exec(rootfs);
  if (!match) return null;
  const perUnit = GB_PER_UNIT[(match[2] ?? 'G').toUpperCase()] ?? 1;
  return Math.round(Number(match[1]) * perUnit);
}
