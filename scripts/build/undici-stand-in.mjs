// Bundled in place of undici (see scripts/build.ts): client-node's fetch transport is never
// used by kube-provisioner, whose requests go through node:https.
function notBundled() {
  throw new Error("kube-provisioner's bundled @kubernetes/client-node has no fetch transport (undici is not bundled)");
}

export class Agent {
  constructor() {
    notBundled();
  }
}

export class ProxyAgent extends Agent {}

export function fetch() {
  notBundled();
}
