// A workload named on the command line: its provider ID `namespace/name`, or a bare name
// in the namespace of -n (else the context's). A provider ID whose namespace contradicts
// -n is a usage error rather than a silent choice between the two.
import { UsageError } from '../../errors/input.js';
import { parseProviderId } from '../../input/provider-id.js';

/** The provider ID, checked (InvalidSpecError naming `providerId`). */
export function workloadAddress(argument: string, namespaceFlag: string | undefined, defaultNamespace: string): string {
  const slash = argument.indexOf('/');
  const providerId = slash < 0 ? `${namespaceFlag ?? defaultNamespace}/${argument}` : argument;
  const { namespace } = parseProviderId(providerId);
  if (slash >= 0 && namespaceFlag !== undefined && namespaceFlag !== namespace) {
    throw new UsageError(`the provider ID ${argument} is in namespace ${namespace}, but -n says ${namespaceFlag}`);
  }
  return providerId;
}

/** A full provider ID is checked before any kubeconfig is read; a bare name needs the namespace first. */
export function earlyAddress(argument: string | undefined, namespaceFlag: string | undefined): string | undefined {
  return argument?.includes('/') ? workloadAddress(argument, namespaceFlag, '') : undefined;
}
