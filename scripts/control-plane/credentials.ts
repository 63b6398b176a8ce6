// Credentials of a throw-away cluster: the service-account signing key pair and static
// bearer tokens (kube-apiserver --token-auth-file). Tokens are random per cluster, so a
// leaked kubeconfig is worthless once the cluster is gone.
import { generateKeyPairSync, randomBytes } from 'node:crypto';

/** Users without any special group; the cluster binds `viewer` to the `view` role. */
export const UNPRIVILEGED_USERS = ['restricted', 'viewer'] as const;
export type UnprivilegedUser = (typeof UNPRIVILEGED_USERS)[number];

export const ADMIN_USER = 'admin';
export type ClusterUser = typeof ADMIN_USER | UnprivilegedUser;

export interface StaticTokenUser {
  readonly name: string;
  readonly token: string;
  readonly groups: readonly string[];
}

export interface ServiceAccountKeyPair {
  readonly privateKeyPem: string;
  readonly publicKeyPem: string;
}

export function generateServiceAccountKeyPair(): ServiceAccountKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { privateKeyPem: privateKey, publicKeyPem: publicKey };
}

export function randomToken(): string {
  return randomBytes(24).toString('hex');
}

/**
 * Everyone who talks to this apiserver by token: the admin, the unprivileged users, and
 * the components (controller manager and scheduler under the identities the RBAC
 * bootstrap policy grants; KWOK acts as every kubelet, so it is a cluster admin).
 */
export function clusterTokenUsers(): StaticTokenUser[] {
  return [
    { name: ADMIN_USER, token: randomToken(), groups: ['system:masters'] },
    ...UNPRIVILEGED_USERS.map((name) => ({ name, token: randomToken(), groups: [] })),
    { name: 'system:kube-controller-manager', token: randomToken(), groups: [] },
    { name: 'system:kube-scheduler', token: randomToken(), groups: [] },
    { name: 'kwok-controller', token: randomToken(), groups: ['system:masters'] },
  ];
}

/**
 * CSV lines `token,user,uid[,"group1,group2"]` as --token-auth-file expects. The groups
 * column is left out when empty: an empty column would mean a group named "".
 */
export function renderTokenFile(users: readonly StaticTokenUser[]): string {
  return users
    .map((user, index) => {
      const groups = user.groups.length > 0 ? `,"${user.groups.join(',')}"` : '';
      return `${user.token},${user.name},uid-${index + 1}${groups}\n`;
    })
    .join('');
}

export function tokenOf(users: readonly StaticTokenUser[], name: string): string {
  const user = users.find((candidate) => candidate.name === name);
  if (user === undefined) throw new Error(`no static token user named ${name}`);
  return user.token;
}
