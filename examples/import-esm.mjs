// An ES module using both entry points of the installed package: the same code as
// require() loads, so there is one copy of the core whichever way it is loaded.
import { createRequire } from 'node:module';
import { KubernetesApi, provision, KubeProvisionerError, defaultInformerRegistry } from 'kube-provisioner';
import { createContainer, UnknownNodeTypeError } from 'kube-provisioner/manager';

const require = createRequire(import.meta.url);
console.log(typeof KubernetesApi.fromConfig, typeof provision, typeof createContainer);
console.log(new UnknownNodeTypeError('lxd', []) instanceof KubeProvisionerError);
console.log(require('kube-provisioner').defaultInformerRegistry === defaultInformerRegistry);
