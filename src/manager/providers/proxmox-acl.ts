// Gives the container's owner the PVEVMUser role on its VMID through the `ldap` realm.
// A user the realm has not synced yet is synced and retried once. Failure never fails the
// creation (as in Manager): the owner is told access must be granted by hand.
import { ProviderStepError } from '../errors.js';
import type { ProxmoxCreateApi, Vmid } from './node-api.js';
import type { StepRunner } from './step-runner.js';

export const OWNER_ROLE = 'PVEVMUser';
export const LDAP_REALM = 'ldap';

/** True when access was granted. */
export async function grantOwnerAccess(
  steps: StepRunner,
  client: Pick<ProxmoxCreateApi, 'updateAcl' | 'syncLdapRealm'>,
  vmid: Vmid,
  username: string,
): Promise<boolean> {
  const user = `${username}@${LDAP_REALM}`;
  const path = `/vms/${vmid}`;
  const grant = () => steps.call('acl', () => client.updateAcl(path, OWNER_ROLE, null, true, null, user));
  try {
    await grant();
  } catch (error) {
    if (!(error instanceof ProviderStepError)) throw error;
    if (!isMissingUserError(error.cause)) return gaveUp(steps, `${user} could not be granted ${OWNER_ROLE} on ${path}`);
    steps.report('acl', `${user} is not known to Proxmox yet; syncing the ${LDAP_REALM} realm and retrying`);
    try {
      await steps.call('acl', () => client.syncLdapRealm(LDAP_REALM));
      await grant();
    } catch (retryError) {
      if (!(retryError instanceof ProviderStepError)) throw retryError;
      return gaveUp(steps, `the ${LDAP_REALM} realm sync or the retry for ${user} failed`);
    }
  }
  steps.report('acl', `Granted ${OWNER_ROLE} on ${path} to ${user}`);
  return true;
}

function gaveUp(steps: StepRunner, what: string): false {
  steps.report('acl', `${what}; continuing without it: the owner needs access granted by hand`, 'warning');
  return false;
}

/** Proxmox says the user does not exist (its API puts details in `response.data.errors`). */
export function isMissingUserError(error: unknown): boolean {
  const text = errorText(error).toLowerCase();
  return text.includes('user') && (text.includes('not found') || text.includes('does not exist'));
}

function errorText(error: unknown): string {
  if (typeof error !== 'object' || error === null) return String(error);
  const details = (error as { response?: { data?: { errors?: unknown } } }).response?.data?.errors;
  if (typeof details === 'string') return details;
  if (details !== undefined && details !== null) return JSON.stringify(details);
  return error instanceof Error ? error.message : '';
}
