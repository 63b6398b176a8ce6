// Manager's LXC path on a Proxmox node, step for step as its create-container script runs
// it, over Manager's own client (ProxmoxApi): allocate a VMID; resolve storage; pull the
// OCI image into template storage and create the LXC from it, or clone an LXC template
// and configure it; apply env and entrypoint; attach the NVIDIA hook script when asked;
// grant the owner access; start; discover MAC and IP. The provider ID is the VMID.
import { InvalidContainerRecordError, ProviderStepError, TemplateNotFoundError } from '../errors.js';
import { InvalidOptionError, InvalidSpecError } from '../../index.js';
import { imageArchiveName, isImageReference, splitTemplateReference, type ImageReference } from './template-reference.js';
import { applyEnvironment, startAndDiscover } from './lxc-steps.js';
import { lxcLifecycle } from './lxc-lifecycle.js';
import type { LxcLifecycleApi, NodeApiFactory, ProxmoxCreateApi, Vmid } from './node-api.js';
import { grantOwnerAccess } from './proxmox-acl.js';
import { stepsProvider } from './step-runner.js';
import type { ProvisionOutcome, StepRunner } from './step-runner.js';
import { resolveStorage } from './storage.js';
import type { ContainerRecord, Provider, SiteRecord } from './types.js';

/** Manager's `getImageDigest(registry, repository, tag)`: a short content digest. */
export type ImageDigestLookup = (registry: string, repository: string, reference: string) => Promise<string>;

export interface ProxmoxProviderOptions {
  /** The node's client; Manager passes its ProxmoxApi (`node.api()`). */
  readonly clientFor: NodeApiFactory<ProxmoxCreateApi & LxcLifecycleApi>;
  /**
   * Names the pulled archive after the image's digest, so a moved tag is pulled again
   * (Manager's `getImageDigest`). Needed to create a container from an image; the
   * lifecycle and LXC templates do without it.
   */
  readonly imageDigest?: ImageDigestLookup;
  /**
   * Read-only shared volume bind-mounted as mp0 from the template storage (Manager's
   * interim `quick_and_dirty` volume); null mounts nothing.
   */
  readonly sharedVolume?: string | null;
  readonly nodeType?: string;
}

export const DEFAULT_SHARED_VOLUME = 'quick_and_dirty';
const LXC_FEATURES = 'nesting=1,keyctl=1,fuse=1';
const NVIDIA_HOOK_SCRIPT = 'local:snippets/nvidia';

/** Everything the steps need, resolved once from the record and options. */
interface LxcJob {
  readonly record: ContainerRecord;
  readonly template: string;
  readonly site: SiteRecord;
  readonly nodeName: string;
  readonly client: ProxmoxCreateApi;
  readonly options: ProxmoxProviderOptions;
  readonly vmid: Vmid;
}

export function createProxmoxProvider(options: ProxmoxProviderOptions): Provider {
  const nodeType = options.nodeType ?? 'proxmox';
  return {
    ...stepsProvider(nodeType, (steps, record) => provisionLxc(steps, record, options, nodeType)),
    lifecycle: lxcLifecycle({ nodeType, clientFor: options.clientFor }),
  };
}

async function provisionLxc(
  steps: StepRunner,
  record: ContainerRecord,
  options: ProxmoxProviderOptions,
  nodeType: string,
): Promise<ProvisionOutcome> {
  const { template, site } = requireTemplateAndSite(record);
  const image = templateImage(record, template);
  if (image && typeof options.imageDigest !== 'function') {
    throw new InvalidOptionError(
      'imageDigest',
      "createProxmoxProvider needs imageDigest (Manager's getImageDigest) to create a container from an image",
    );
  }
  const nodeName = record.node.name;
  const client = await steps.call('connect', () => options.clientFor(record.node));

  const vmid = await steps.call('allocate-vmid', () => client.nextId());
  if (vmid === null || vmid === undefined || vmid === '') {
    throw new ProviderStepError(nodeType, 'allocate-vmid', record.id, { cause: new Error('nextId returned no VMID') });
  }
  steps.report('allocate-vmid', `Allocated VMID ${vmid}`);

  const job: LxcJob = { record, template, site, nodeName, client, options, vmid };
  if (image) await createFromImage(steps, job, image);
  else await cloneTemplate(steps, job);

  const { templateDefaults } = await applyEnvironment(steps, client, nodeName, vmid, record);
  if (record.nvidiaRequested) await attachNvidiaHook(steps, job);
  await grantOwnerAccess(steps, client, vmid, record.username);
  const network = await startAndDiscover(steps, client, nodeType, nodeName, vmid);

  return { providerId: String(vmid), ...network, templateDefaults };
}

function requireTemplateAndSite(record: ContainerRecord): { template: string; site: SiteRecord } {
  const problems: string[] = [];
  if (!record.template) problems.push('it has no template (image reference or LXC template name)');
  if (!record.site) problems.push('its node has no site (the site supplies the DNS search domain)');
  if (!record.template || !record.site) throw new InvalidContainerRecordError(record.id, problems);
  return { template: record.template, site: record.site };
}

/** The template taken apart if it is an OCI image reference; undefined for an LXC template name. */
function templateImage(record: ContainerRecord, template: string): ImageReference | undefined {
  if (!isImageReference(template)) return undefined;
  try {
    return splitTemplateReference(template);
  } catch (error) {
    if (!(error instanceof InvalidSpecError)) throw error;
    const rule = error.issues.map((issue) => issue.message).join('; ');
    throw new InvalidContainerRecordError(record.id, [`its template is not a valid image reference: ${rule}`], {
      cause: error,
    });
  }
}

/** OCI image: pull it into template storage unless the archive is there, then create. */
async function createFromImage(steps: StepRunner, job: LxcJob, image: ImageReference): Promise<void> {
  const { client, nodeName, record, template, vmid } = job;
  const templateStorage = await resolveStorage(steps, client, nodeName, record.node.imageStorage || 'local', 'vztmpl');
  const rootfsStorage = await resolveStorage(steps, client, nodeName, record.node.volumeStorage || 'local-lvm', 'rootdir');
  steps.report('resolve-storage', `Using template storage ${templateStorage}, rootfs storage ${rootfsStorage}`);

  const digest = await steps.call('image-digest', () => job.options.imageDigest!(image.registry, image.repository, image.reference));
  const filename = imageArchiveName(image, digest);
  const ostemplate = `${templateStorage}:vztmpl/${filename}.tar`;
  const contents = await steps.call('pull-image', () => client.storageContents(nodeName, templateStorage, 'vztmpl'));
  if (contents.some((item) => item.volid === ostemplate)) {
    steps.report('pull-image', `Image already in storage: ${ostemplate}`);
  } else {
    steps.report('pull-image', `Pulling ${template} into ${templateStorage}`);
    const pullTask = await steps.call('pull-image', () =>
      client.pullOciImage(nodeName, templateStorage, { reference: template, filename }),
    );
    await steps.call('pull-image', () => client.waitForTask(nodeName, pullTask));
    steps.report('pull-image', `Pulled ${template}`);
  }

  steps.report('create', `Creating LXC ${vmid} from ${filename}.tar`);
  const createTask = await steps.call('create', () =>
    client.createLxc(nodeName, {
      vmid,
      hostname: record.hostname,
      ostemplate,
      description: `Created from Docker image ${template}`,
      ...lxcSettings(job),
      unprivileged: 1,
      rootfs: `${rootfsStorage}:${record.resources.rootfsGb}`,
      ...sharedVolumeMount(job.options, templateStorage),
    }),
  );
  steps.resourceCreated(String(vmid));
  await steps.call('create', () => client.waitForTask(nodeName, createTask));
  steps.report('create', `Created LXC ${vmid}`);
}

/** LXC template: clone it (full copy onto the rootfs storage), then configure the clone. */
async function cloneTemplate(steps: StepRunner, job: LxcJob): Promise<void> {
  const { client, nodeName, record, template, vmid } = job;
  const templates = await steps.call('find-template', () => client.getLxcTemplates(nodeName));
  const source = templates.find((candidate) => candidate.name === template);
  if (!source) throw new TemplateNotFoundError(template, nodeName);
  steps.report('find-template', `Found template ${template} (VMID ${source.vmid})`);

  const rootfsStorage = await resolveStorage(steps, client, nodeName, record.node.volumeStorage || 'local-lvm', 'rootdir');
  const mount = await optionalSharedVolumeMount(steps, job);

  steps.report('clone', `Cloning template ${source.vmid} to VMID ${vmid}`);
  const cloneTask = await steps.call('clone', () =>
    client.cloneLxc(nodeName, source.vmid, vmid, {
      hostname: record.hostname,
      description: `Cloned from template ${template}`,
      full: 1,
      storage: rootfsStorage,
    }),
  );
  steps.resourceCreated(String(vmid));
  await steps.call('clone', () => client.waitForTask(nodeName, cloneTask));
  steps.report('clone', `Cloned to VMID ${vmid}`);

  await steps.call('configure', () => client.updateLxcConfig(nodeName, vmid, { ...lxcSettings(job), ...mount }));
  steps.report('configure', 'Configured cores, memory, network and tags');
}

/** The settings both paths give the LXC (a clone gets them after cloning). */
function lxcSettings(job: LxcJob): Record<string, unknown> {
  const { record } = job;
  return {
    cores: record.resources.cpus,
    features: LXC_FEATURES,
    memory: record.resources.memoryMb,
    net0: `name=eth0,ip=dhcp,bridge=${record.node.networkBridge || 'vmbr0'}`,
    // Manager allows a site without an internal domain: the LXC then keeps its own resolver settings.
    ...(job.site.internalDomain ? { searchdomain: job.site.internalDomain } : {}),
    swap: record.resources.swapMb,
    onboot: 1,
    tags: record.username,
  };
}

/**
 * The shared volume lives under the template storage's directory
 * (`/mnt/pve/<storage>/volumes/<name>`), mounted read-only at `/mnt/<name>`.
 */
function sharedVolumeMount(options: ProxmoxProviderOptions, templateStorage: string): { mp0?: string } {
  const volume = options.sharedVolume === undefined ? DEFAULT_SHARED_VOLUME : options.sharedVolume;
  if (!volume) return {};
  return { mp0: `/mnt/pve/${templateStorage}/volumes/${volume},mp=/mnt/${volume},ro=1` };
}

/** A clone needs no template storage, so failing to find one only skips the mount. */
async function optionalSharedVolumeMount(steps: StepRunner, job: LxcJob): Promise<{ mp0?: string }> {
  const { client, nodeName, record } = job;
  if (job.options.sharedVolume === null) return {};
  try {
    const templateStorage = await resolveStorage(steps, client, nodeName, record.node.imageStorage || 'local', 'vztmpl');
    return sharedVolumeMount(job.options, templateStorage);
  } catch (error) {
    if (steps.signal.aborted) throw error;
    steps.report('resolve-storage', 'No template storage for the shared volume; skipping the mp0 mount', 'warning');
    return {};
  }
}

/** GPU passthrough: the hook script must exist on the node; a missing one only warns. */
async function attachNvidiaHook(steps: StepRunner, job: LxcJob): Promise<void> {
  const { client, nodeName, vmid } = job;
  try {
    const snippets = await steps.call('nvidia-hook', () => client.storageContents(nodeName, 'local', 'snippets'));
    if (!snippets.some((item) => item.volid === NVIDIA_HOOK_SCRIPT)) {
      steps.report('nvidia-hook', `Hook script ${NVIDIA_HOOK_SCRIPT} not found; GPU passthrough may not work`, 'warning');
    }
  } catch (error) {
    if (steps.signal.aborted) throw error;
    steps.report('nvidia-hook', `Could not check for ${NVIDIA_HOOK_SCRIPT}; GPU passthrough may not work`, 'warning');
  }
  await steps.call('nvidia-hook', () => client.updateLxcConfig(nodeName, vmid, { hookscript: NVIDIA_HOOK_SCRIPT }));
  steps.report('nvidia-hook', `Attached ${NVIDIA_HOOK_SCRIPT}`);
}
