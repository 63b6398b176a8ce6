// The provider ID Manager stores in Container.containerId: "namespace/deployment-name".
// Both parts are DNS-1123 labels. The second part is always the Deployment's name, never
// a Pod or ReplicaSet name: those are replaced by Kubernetes and must not be stored (a
// Pod name would still parse, which is why only buildDeployment's name is ever formatted).

import { InvalidSpecError } from '../errors/input.js';
import type { SpecIssue } from '../errors/input.js';
import { namespaceProblem } from './fields.js';
import { dns1123LabelProblem } from './names.js';

export interface ProviderIdParts {
  readonly namespace: string;
  readonly name: string;
}

function labelIssues(parts: ProviderIdParts): SpecIssue[] {
  return (['namespace', 'name'] as const).flatMap((field) => {
    const problem = field === 'namespace' ? namespaceProblem(parts.namespace) : dns1123LabelProblem(parts.name);
    return problem ? [{ path: field, message: problem }] : [];
  });
}

/** "namespace/name"; throws InvalidSpecError if either part is not a DNS-1123 label. */
export function formatProviderId(namespace: string, name: string): string {
  const issues = labelIssues({ namespace, name });
  if (issues.length > 0) throw new InvalidSpecError(issues);
  return `${namespace}/${name}`;
}

/**
 * Splits a provider ID back into namespace and Deployment name. Anything that is not
 * exactly two DNS-1123 labels joined by one '/' throws InvalidSpecError (path `providerId`).
 */
export function parseProviderId(id: string): ProviderIdParts {
  const parts = typeof id === 'string' ? id.split('/') : [];
  const [namespace, name] = parts;
  if (parts.length !== 2 || namespace === undefined || name === undefined) {
    throw new InvalidSpecError([{ path: 'providerId', message: `must be "namespace/deployment-name" (got ${JSON.stringify(id)})` }]);
  }
  const issues = labelIssues({ namespace, name }).map((issue) => ({
    path: 'providerId',
    message: `its ${issue.path} part ${issue.message}`,
  }));
  if (issues.length > 0) throw new InvalidSpecError(issues);
  return { namespace, name };
}
