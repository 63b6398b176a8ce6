// Kubeconfig files for the local cluster. TLS verification stays ON: the apiserver's own
// serving chain is embedded as certificate-authority-data, the server is addressed by the
// loopback IP its certificate names.
import { toYaml } from './yaml.js';

export const CLUSTER_NAME = 'kube-provisioner-local';

export interface KubeconfigInput {
  readonly server: string;
  readonly caPem: string;
  readonly user: string;
  readonly token: string;
  /** The admin's context is the bare cluster name; others are `<user>@<cluster>`. */
  readonly contextName: string;
  readonly namespace?: string;
}

export function contextNameFor(user: string, isAdmin: boolean): string {
  return isAdmin ? CLUSTER_NAME : `${user}@${CLUSTER_NAME}`;
}

export function renderKubeconfig(input: KubeconfigInput): string {
  return toYaml({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: CLUSTER_NAME,
        cluster: {
          server: input.server,
          'certificate-authority-data': Buffer.from(input.caPem).toString('base64'),
        },
      },
    ],
    users: [{ name: input.user, user: { token: input.token } }],
    contexts: [
      {
        name: input.contextName,
        context: { cluster: CLUSTER_NAME, user: input.user, namespace: input.namespace ?? 'default' },
      },
    ],
    'current-context': input.contextName,
    preferences: {},
  });
}
