// Manager's template field holds either an OCI image reference, normalised to
// `host/org/image:tag` (a registry host may carry a port, a digest may follow), or the
// name of a Proxmox LXC template. Only image references contain a '/'.

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

export function parseImageReference(ref: string): ImageReference {
  const at = ref.indexOf('@');
  const digest = at === -1 ? undefined : ref.slice(at + 1);
  const named = at === -1 ? ref : ref.slice(0, at);
  // A ':' after the last '/' starts the tag; an earlier one is the registry's port.
  const tagColon = named.lastIndexOf(':');
  const hasTag = tagColon > named.lastIndexOf('/');
  const name = hasTag ? named.slice(0, tagColon) : named;
  const tag = hasTag ? named.slice(tagColon + 1) : digest === undefined ? 'latest' : undefined;
  const components = name.split('/');
  const registry = components[0] ?? '';
  const image = components[components.length - 1] ?? '';
  const namespace = components.slice(1, -1).join('/');
  return {
    registry,
    namespace,
    image,
    repository: namespace ? `${namespace}/${image}` : image,
    tag,
    digest,
    reference: tag ?? digest ?? 'latest',
  };
}

/**
 * The archive name Manager gives a pulled image in Proxmox template storage (Proxmox
 * appends `.tar`). The short content digest busts the cache when a tag moves.
 */
export function imageArchiveName(image: ImageReference, shortDigest: string): string {
  return `${image.registry}_${image.namespace}_${image.image}_${image.reference}_${shortDigest}`.replace(/[/:]/g, '_');
}
