// OCI image references: one parser behind both the spec's validation and the Manager
// adapter's template splitting, so the two read a reference the same way. Our own reading
// of the distribution/OCI reference grammar:
//
//   reference  := name [ ":" tag ] [ "@" digest ]
//   name       := [ registry "/" ] path-component { "/" path-component }     (<= 255 chars)
//   registry   := host [ ":" port ]   host := domain-name | IPv4 | "[" IPv6 "]"
//   path-component := [a-z0-9]+ ( ( "." | "_" | "__" | "-"+ ) [a-z0-9]+ )*
//   tag        := [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}
//   digest     := algorithm ":" hex        (sha256: 64, sha384: 96, sha512: 128 lowercase hex)
//
// The first component is a registry only if it looks like one the Docker way (contains
// "." or ":" or is "localhost"); otherwise it is part of the path, as in "library/nginx".

import { InvalidSpecError } from '../errors.js';

const MAX_REFERENCE_LENGTH = 4096;
const MAX_NAME_LENGTH = 255;
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const DOMAIN_COMPONENT = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;
const IPV6_IN_BRACKETS = /^\[[0-9A-Fa-f:.]+\]$/;
const PORT = /^[0-9]{1,5}$/;

// Only the algorithms container runtimes can verify (go-digest's set); any other
// algorithm would pass here and then fail on the node at pull time.
const DIGEST_HEX_LENGTHS: Readonly<Record<string, number>> = { sha256: 64, sha384: 96, sha512: 128 };

function digestProblem(digest: string): string | undefined {
  const colon = digest.indexOf(':');
  const algorithm = colon === -1 ? digest : digest.slice(0, colon);
  const expectedLength = DIGEST_HEX_LENGTHS[algorithm];
  if (expectedLength === undefined) {
    return `the digest after "@" must be sha256:, sha384: or sha512: followed by lowercase hex (got "${digest}")`;
  }
  const hex = colon === -1 ? '' : digest.slice(colon + 1);
  if (!new RegExp(`^[a-f0-9]{${expectedLength}}$`).test(hex)) {
    return `the ${algorithm} digest must be exactly ${expectedLength} lowercase hex digits (got ${hex.length} characters)`;
  }
  return undefined;
}

function registryProblem(registry: string): string | undefined {
  // The port is after the last ':' that follows the host (an IPv6 host has ':' inside).
  const portColon = registry.startsWith('[') ? registry.indexOf(':', registry.indexOf(']')) : registry.indexOf(':');
  const host = portColon === -1 ? registry : registry.slice(0, portColon);
  const port = portColon === -1 ? undefined : registry.slice(portColon + 1);
  const hostIsValid = host.startsWith('[')
    ? IPV6_IN_BRACKETS.test(host)
    : host.split('.').every((component) => DOMAIN_COMPONENT.test(component));
  if (!hostIsValid) {
    return `the registry host "${host}" must be a domain name, an IPv4 address or an [IPv6] address`;
  }
  if (port !== undefined && (!PORT.test(port) || Number(port) < 1 || Number(port) > 65535)) {
    return `the registry port "${port}" must be a number from 1 to 65535`;
  }
  return undefined;
}

function looksLikeRegistry(component: string): boolean {
  return component.includes('.') || component.includes(':') || component === 'localhost';
}

function repositoryPathProblem(path: string): string | undefined {
  for (const component of path.split('/')) {
    if (component === '') return 'the repository path must not have an empty component (a leading, trailing or double "/")';
    if (PATH_COMPONENT.test(component)) continue;
    if (PATH_COMPONENT.test(component.toLowerCase())) {
      return `the repository path must be lowercase (got "${component}")`;
    }
    return `the repository path component "${component}" must be lowercase letters and digits, separated by ".", "_", "__" or "-"`;
  }
  return undefined;
}

/** An image reference taken apart. Nothing is defaulted: an absent part is undefined. */
export interface ImageReferenceParts {
  /** `host[:port]`, only when the first component names one (see looksLikeRegistry). */
  readonly registry: string | undefined;
  /** The path after the registry, e.g. `library/nginx`, or `nginx` alone. */
  readonly repository: string;
  readonly tag: string | undefined;
  /** `algorithm:hex`, without the "@". */
  readonly digest: string | undefined;
}

/** The one split every caller shares; the grammar's checks then run on its parts. */
function splitImageReference(ref: string): ImageReferenceParts & { readonly name: string } {
  const at = ref.indexOf('@');
  const digest = at === -1 ? undefined : ref.slice(at + 1);
  const beforeDigest = at === -1 ? ref : ref.slice(0, at);
  // A ':' after the last '/' starts the tag; earlier ones belong to a registry port.
  const tagColon = beforeDigest.lastIndexOf(':');
  const hasTag = tagColon > beforeDigest.lastIndexOf('/');
  const tag = hasTag ? beforeDigest.slice(tagColon + 1) : undefined;
  const name = hasTag ? beforeDigest.slice(0, tagColon) : beforeDigest;
  const slash = name.indexOf('/');
  const first = slash === -1 ? '' : name.slice(0, slash);
  const registry = slash !== -1 && looksLikeRegistry(first) ? first : undefined;
  const repository = registry === undefined ? name : name.slice(slash + 1);
  return { name, registry, repository, tag, digest };
}

function partsProblem(ref: string, parts: ReturnType<typeof splitImageReference>): string | undefined {
  if (ref === '') return 'must not be empty';
  if (/\s/.test(ref)) return 'must not contain whitespace';
  if (ref.length > MAX_REFERENCE_LENGTH) return `must be at most ${MAX_REFERENCE_LENGTH} characters`;
  if (parts.digest !== undefined) {
    const problem = digestProblem(parts.digest);
    if (problem) return problem;
  }
  if (parts.tag !== undefined && !TAG.test(parts.tag)) {
    return `the tag "${parts.tag}" must be 1-128 letters, digits, "_", "." or "-", not starting with "." or "-"`;
  }
  if (parts.name === '') return 'the repository name is missing';
  if (parts.name.length > MAX_NAME_LENGTH) {
    return `the name before the tag or digest must be at most ${MAX_NAME_LENGTH} characters (it has ${parts.name.length})`;
  }
  return (parts.registry === undefined ? undefined : registryProblem(parts.registry)) ?? repositoryPathProblem(parts.repository);
}

/** The problem with `ref` as an OCI image reference, in words, or undefined if it is valid. */
export function imageReferenceProblem(ref: string): string | undefined {
  return partsProblem(ref, splitImageReference(ref));
}

export function isValidImageReference(ref: string): boolean {
  return typeof ref === 'string' && imageReferenceProblem(ref) === undefined;
}

/**
 * Takes a valid image reference apart (registry, repository, tag, digest), read exactly as
 * the spec validation reads it. Throws InvalidSpecError (path `image`) naming the rule.
 */
export function parseImageReference(ref: string): ImageReferenceParts {
  const problem = typeof ref === 'string' ? imageReferenceProblem(ref) : 'must be a string';
  if (problem !== undefined) throw new InvalidSpecError([{ path: 'image', message: problem }]);
  const { registry, repository, tag, digest } = splitImageReference(ref);
  return { registry, repository, tag, digest };
}
