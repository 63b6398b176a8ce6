// Manager's job scripts require the adapter by its own entry point; it must share the core's
// module state (one error hierarchy, so instanceof works across the two entry points).
'use strict';
const core = require('kube-provisioner');
const manager = require('kube-provisioner/manager');

const checks = {
  createContainer: typeof manager.createContainer === 'function',
  createContainer$: typeof manager.createContainer$ === 'function',
  deprecatedAliasIsPromiseForm: manager.createContainerAsync === manager.createContainer,
  registry: typeof manager.ProviderRegistry === 'function',
  sharedHierarchy: new manager.UnknownNodeTypeError('lxd', []) instanceof core.KubeProvisionerError,
  coreHasNoManagerExports: !('createContainer' in core) && !('ProviderRegistry' in core),
};
process.stdout.write(JSON.stringify(checks));
