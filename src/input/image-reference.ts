// OCI image references, validated before anything reaches the cluster, by the grammar the
// node itself applies: the kubelet (which reports InvalidImageName) and containerd both
// read a container's image with the distribution reference package's "normalized named"
// parser. What it accepts we accept, what it refuses we refuse, so an image name can never
// pass here and fail on the node after the Deployment exists. The same reading takes a valid
// reference apart for the Manager adapter's template splitting (parseImageReference). Our
// own statement of the grammar:
//
//   reference      := name [ ":" tag ] [ "@" digest ]
//   name           := [ domain "/" ] path-component { "/" path-component }
//   domain         := host [ ":" digits ]          (any digits: the port is not range-checked)
//   host           := domain-component { "." domain-component } | "[" hex-or-colons "]"
//   domain-component := [A-Za-z0-9] | [A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9]
//   path-component := [a-z0-9]+ { ( "." | "_" | "__" | "-"+ ) [a-z0-9]+ }
//   tag            := [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}
//   digest         := "sha256:" 64 | "sha384:" 96 | "sha512:" 128 lowercase hex digits
//                     (the algorithms a runtime can verify; the grammar alone allows more)
//
// Before that grammar, the name is normalised the Docker way: a first component counts as
// a registry when it contains "." or ":", is "localhost", or has an uppercase letter;
// otherwise "docker.io/" goes in front, and a single component also gets "library/". Then:
// the repository part (up to the first ":") must be lowercase, the path after the registry
// is at most 255 characters (so a bare name, which gains "library/", at most 247), and a
// bare 64-digit hex string is an image ID, not a reference. Some consequences that surprise:
// "Registry/app" is accepted (an uppercase first component is a registry host), and so is
// "my_org.x/app" (not a valid host, so the whole of it is a path).

import { InvalidSpecError } from '../errors/input.js';
import { withGiven } from './given.js';

const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const HOST = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])`;
const DOMAIN = `${HOST}(?::[0-9]+)?`;
const REMOTE_NAME = `${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const TAG_PATTERN = '[\\w][\\w.-]{0,127}';
const DIGEST_PATTERN = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';

const REFERENCE = new RegExp(`^((?:${DOMAIN}/)?${REMOTE_NAME})(?::(${TAG_PATTERN}))?(?:@(${DIGEST_PATTERN}))?$`);
/** Splits a name into its domain (if the first component is one) and its path, domain first. */
const NAME_PARTS = new RegExp(`^(?:(${DOMAIN})/)?(${REMOTE_NAME})$`);
const IMAGE_ID = /^[a-f0-9]{64}$/;
const TAG = new RegExp(`^${TAG_PATTERN}$`);
const DIGEST = new RegExp(`^${DIGEST_PATTERN}$`);
const DOMAIN_ONLY = new RegExp(`^${DOMAIN}$`);
const PATH_COMPONENT_ONLY = new RegExp(`^${PATH_COMPONENT}$`);

const MAX_PATH_LENGTH = 255;
const DEFAULT_DOMAIN = 'docker.io';
const LEGACY_DEFAULT_DOMAIN = 'index.docker.io';
const OFFICIAL_PREFIX = 'library/';

// The digest algorithms a node can verify (go-digest's registered set) and their lengths.
const DIGEST_HEX_LENGTHS: Readonly<Record<string, number>> = { sha256: 64, sha384: 96, sha512: 128 };

/** The registry the way the Docker normalisation reads it, and the rest of the reference. */
function splitDomain(ref: string): { domain: string; remainder: string } {
  const slash = ref.indexOf('/');
  if (slash === -1) return { domain: DEFAULT_DOMAIN, remainder: OFFICIAL_PREFIX + ref };
  const first = ref.slice(0, slash);
  const rest = ref.slice(slash + 1);
  let domain = DEFAULT_DOMAIN;
  let remainder = ref;
  if (first === 'localhost' || first.includes('.') || first.includes(':') || first.toLowerCase() !== first) {
    domain = first === LEGACY_DEFAULT_DOMAIN ? DEFAULT_DOMAIN : first;
    remainder = rest;
  }
  if (domain === DEFAULT_DOMAIN && !remainder.includes('/')) remainder = OFFICIAL_PREFIX + remainder;
  return { domain, remainder };
}

function digestProblem(digest: string): string | undefined {
  const colon = digest.indexOf(':');
  const algorithm = digest.slice(0, colon);
  const hex = digest.slice(colon + 1);
  const expected = DIGEST_HEX_LENGTHS[algorithm];
  if (expected === undefined) return `the digest algorithm "${algorithm}" is not one a node can verify (sha256, sha384 or sha512)`;
  if (hex.length !== expected) return `a ${algorithm} digest has exactly ${expected} hex digits, not ${hex.length}`;
  if (hex !== hex.toLowerCase()) return `the ${algorithm} digest must be lowercase hex`;
  return undefined;
}

/** Why `ref` does not fit the grammar, in words: the first part found at fault. */
function explainMismatch(ref: string, domain: string, remainder: string): string {
  if (/\s/.test(ref)) return 'must not contain whitespace';
  const at = remainder.indexOf('@');
  const named = at === -1 ? remainder : remainder.slice(0, at);
  const lastSlash = named.lastIndexOf('/');
  const tagColon = named.indexOf(':', lastSlash + 1);
  const path = tagColon === -1 ? named : named.slice(0, tagColon);
  if (domain !== DEFAULT_DOMAIN && !DOMAIN_ONLY.test(domain)) {
    return `the registry "${domain}" must be a host name, an IPv4 address or an [IPv6] address, with an optional :port of digits`;
  }
  for (const component of path.split('/')) {
    if (component === '') return 'the repository path must not have an empty component (a leading, trailing or double "/")';
    if (!PATH_COMPONENT_ONLY.test(component)) {
      return `the repository path component "${component}" must be lowercase letters and digits, separated by ".", "_", "__" or "-"`;
    }
  }
  if (tagColon !== -1) {
    const tag = named.slice(tagColon + 1);
    if (!TAG.test(tag)) return `the tag "${tag}" must be 1-128 letters, digits, "_", "." or "-", not starting with "." or "-"`;
  }
  if (at !== -1 && !DIGEST.test(remainder.slice(at + 1))) {
    return 'the digest after "@" must be an algorithm, ":" and at least 32 hex digits, e.g. sha256:<64 hex digits>';
  }
  return 'is not a valid image reference';
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

/** The Docker normalisation's test for a registry as the first component (see splitDomain). */
function looksLikeRegistry(component: string): boolean {
  return component === 'localhost' || component.includes('.') || component.includes(':') || component.toLowerCase() !== component;
}

/** A valid reference's parts, read as imageReferenceProblem() reads them, without defaults. */
function splitImageReference(ref: string): ImageReferenceParts {
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
  return { registry, repository, tag, digest };
}

/** The problem with `ref` as an image reference, in words, or undefined if a node accepts it. */
export function imageReferenceProblem(ref: string): string | undefined {
  if (ref === '') return 'must not be empty';
  if (IMAGE_ID.test(ref)) return 'is a 64-digit image ID, not a reference: name the repository (e.g. app@sha256:<id>)';
  const { domain, remainder } = splitDomain(ref);
  const colon = remainder.indexOf(':');
  const repository = colon === -1 ? remainder : remainder.slice(0, colon);
  if (repository.toLowerCase() !== repository) {
    const shown = repository.split('@')[0] ?? repository;
    return `the repository path "${shown.startsWith(OFFICIAL_PREFIX) && !ref.startsWith(OFFICIAL_PREFIX) ? shown.slice(OFFICIAL_PREFIX.length) : shown}" must be lowercase`;
  }
  const full = `${domain}/${remainder}`;
  const match = REFERENCE.exec(full);
  if (!match) return explainMismatch(ref, domain, remainder);
  const [, name = '', , digest] = match;
  const path = NAME_PARTS.exec(name)?.[2] ?? name;
  if (path.length > MAX_PATH_LENGTH) {
    return `the repository path must be at most ${MAX_PATH_LENGTH} characters (it has ${path.length}${remainder.startsWith(OFFICIAL_PREFIX) && !ref.includes('/') ? `, "library/" included` : ''})`;
  }
  return digest === undefined ? undefined : digestProblem(digest);
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
  if (problem !== undefined) throw new InvalidSpecError([{ path: 'image', message: withGiven(problem, { image: ref }, ['image']) }]);
  return splitImageReference(ref);
}
