// A container on a Docker node through Manager's DockerApi. The engine assigns the
// container ID during create (no VMID allocation), and caches images itself (no storage
// resolution, digest lookup or archive check). The steps that remain, in Manager's order:
// pull, create, fold the image's env/entrypoint under the user's and apply them (which
// recreates the container under a new ID), start, discover MAC and IP.
import { InvalidContainerRecordError, ProviderStepError, UnsupportedTemplateError } from '../errors.js';
import { dockerContainerIdOf } from './docker-task.js';
import { isImageReference } from './template-reference.js';
import { applyEnvironment, startAndDiscover } from './lxc-steps.js';
import { lxcLifecycle } from './lxc-lifecycle.js';
import type { DockerCreateApi, LxcLifecycleApi, NodeApiFactory } from './node-api.js';
import { stepsProvider } from './step-runner.js';
import type { ProvisionOutcome, StepRunner } from './step-runner.js';
import type { ContainerRecord, Provider } from './types.js';

export interface DockerProviderOptions {
  /** The node's client; Manager passes its DockerApi (`node.api()`). One per provisioning. */
  readonly clientFor: NodeApiFactory<DockerCreateApi & LxcLifecycleApi>;
  readonly nodeType?: string;
}

/** DockerApi has one pseudo-storage; its pull ignores the argument. */
const DOCKER_STORAGE = 'docker';

export function createDockerProvider(options: DockerProviderOptions): Provider {
  const nodeType = options.nodeType ?? 'docker';
  return {
    ...stepsProvider(nodeType, (steps, record) => provisionDockerContainer(steps, record, options, nodeType)),
    lifecycle: lxcLifecycle({ nodeType, clientFor: options.clientFor, recreatesOnUpdate: true }),
  };
}

async function provisionDockerContainer(
  steps: StepRunner,
  record: ContainerRecord,
  options: DockerProviderOptions,
  nodeType: string,
): Promise<ProvisionOutcome> {
  const image = requireImage(record, nodeType);
  const nodeName = record.node.name;
  const client = await steps.call('connect', () => options.clientFor(record.node));

  steps.report('pull-image', `Pulling ${image}`);
  const pullTask = await steps.call('pull-image', () => client.pullOciImage(nodeName, DOCKER_STORAGE, { reference: image }));
  await steps.call('pull-image', () => client.waitForTask(nodeName, pullTask));
  steps.report('pull-image', `Pulled ${image}`);

  const createTask = await steps.call('create', () =>
    client.createLxc(nodeName, {
      hostname: record.hostname,
      description: `Created from Docker image ${image}`,
      cores: record.resources.cpus,
      memory: record.resources.memoryMb,
    }),
  );
  let containerId = requireContainerId(createTask, 'create', record, nodeType);
  steps.resourceCreated(containerId);
  await steps.call('create', () => client.waitForTask(nodeName, createTask));
  steps.report('create', `Docker container ID: ${containerId}`);

  const { templateDefaults, updateResult } = await applyEnvironment(steps, client, nodeName, containerId, record);
  const recreatedId = dockerContainerIdOf(updateResult);
  if (recreatedId && recreatedId !== containerId) {
    containerId = recreatedId;
    steps.resourceCreated(containerId);
    steps.report('environment', `Docker container ID after recreation: ${containerId}`);
  }

  if (record.nvidiaRequested) {
    steps.report('nvidia-hook', 'GPU passthrough is not configured on Docker nodes; only the NVIDIA variables are set', 'warning');
  }

  const network = await startAndDiscover(steps, client, nodeType, nodeName, containerId);
  return { providerId: containerId, ...network, templateDefaults };
}

function requireImage(record: ContainerRecord, nodeType: string): string {
  if (!record.template) {
    throw new InvalidContainerRecordError(record.id, ['it has no template (an OCI image reference)']);
  }
  if (!isImageReference(record.template)) {
    throw new UnsupportedTemplateError(nodeType, record.template, 'Docker nodes need an OCI image reference, not an LXC template');
  }
  return record.template;
}

function requireContainerId(task: unknown, step: string, record: ContainerRecord, nodeType: string): string {
  const id = dockerContainerIdOf(task, step);
  if (id) return id;
  throw new ProviderStepError(nodeType, step, record.id, {
    cause: new Error(`Docker ${step} did not return a container ID: ${String(task)}`),
  });
}
