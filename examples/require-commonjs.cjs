// A CommonJS program (such as Manager's job scripts) using both entry points of the
// installed package. Run from a project where kube-provisioner is installed.
'use strict';
const { KubernetesApi, provision, KubeProvisionerError } = require('kube-provisioner');
const { createContainer, ProviderRegistry, UnknownNodeTypeError } = require('kube-provisioner/manager');

// One copy of the core per process: the adapter's errors are the core's errors.
const error = new UnknownNodeTypeError('lxd', ['kubernetes']);
console.log(typeof KubernetesApi.fromConfig, typeof provision, typeof createContainer, typeof ProviderRegistry);
console.log(error instanceof KubeProvisionerError);
