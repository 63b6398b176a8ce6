// Manager's template field holds either an OCI image reference, normalised to
// `host/org/image:tag` (a registry host may carry a port, a digest may follow), or the
// name of a Proxmox LXC template. Only image references contain a '/'.
import { parseImageReference } from '../../index.js';

/** The registry Manager's own normaliser puts in front of a reference that names none. */
export const MANAGER_DEFAULT_REGISTRY = 'docker.io';

export interface ImageReference {
  /** Registry host, with its port if any, e.g. `docker.io`, `registry.local:5000`. */
  readonly registry: string;
  /** Path between registry and image, e.g. `library`; may be empty or contain '/'. */
  readonly namespace: string;
  readonly image: string;
  /** `namespace/image`, as registry APIs expect it. */
  readonly repository: string;
  readonly tag: string | undefined;
  readonly digest: string | undefined;
  /** What a registry resolves: the tag, else the digest. */
  readonly reference: string;
}

export function isImageReference(template: string): boolean {
  return template.includes('/');
}

/**
 * Takes the template apart with the core's parser, which the spec validation uses too (so
 * an invalid reference throws InvalidSpecError), then fills in Manager's defaults: the
 * registry `docker.io`, the tag `latest` when there is no digest.
 */
export function splitTemplateReference(ref: string): ImageReference {
  const parts = parseImageReference(ref);
  // Settled disagreement: in "org/app" the core sees no registry (Docker's rule), so Manager's default applies, not "org".
  const registry = parts.registry ?? MANAGER_DEFAULT_REGISTRY;
  const components = parts.repository.split('/');
  const image = components[components.length - 1] ?? '';
  const namespace = components.slice(0, -1).join('/');
  const tag = parts.tag ?? (parts.digest === undefined ? 'latest' : undefined);
  return {
    registry,
    namespace,
    image,
    repository: parts.repository,
    tag,
    digest: parts.digest,
    reference: tag ?? parts.digest ?? 'latest',
  };
}

/**
 * The archive name Manager gives a pulled image in Proxmox template storage (Proxmox
 * appends `.tar`). The short content digest busts the cache when a tag moves.
 */
export function imageArchiveName(image: ImageReference, shortDigest: string): string {
  return `${image.registry}_${image.namespace}_${image.image}_${image.reference}_${shortDigest}`.replace(/[/:]/g, '_');
}
