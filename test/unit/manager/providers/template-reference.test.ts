import { describe, expect, it } from 'vitest';
import { InvalidSpecError } from '../../../../src/errors/input.js';
import { imageArchiveName, isImageReference, splitTemplateReference } from '../../../../src/manager/providers/template-reference.js';

describe('image references in the template field', () => {
  it('tells image references (with a "/") from LXC template names', () => {
    expect(isImageReference('docker.io/library/nginx:latest')).toBe(true);
    expect(isImageReference('debian-12-standard')).toBe(false);
  });

  it('splits registry, namespace, image and tag', () => {
    expect(splitTemplateReference('docker.io/library/nginx:1.27')).toMatchObject({
      registry: 'docker.io',
      namespace: 'library',
      image: 'nginx',
      repository: 'library/nginx',
      tag: '1.27',
      reference: '1.27',
    });
  });

  it("keeps a registry port out of the tag, and defaults a missing tag to 'latest'", () => {
    expect(splitTemplateReference('registry.local:5000/team/sub/app')).toMatchObject({
      registry: 'registry.local:5000',
      namespace: 'team/sub',
      image: 'app',
      repository: 'team/sub/app',
      tag: 'latest',
    });
  });

  it('resolves a digest reference by its digest', () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    expect(splitTemplateReference(`ghcr.io/org/tool@${digest}`)).toMatchObject({ tag: undefined, digest, reference: digest });
    expect(splitTemplateReference(`ghcr.io/org/tool:v2@${digest}`)).toMatchObject({ tag: 'v2', digest, reference: 'v2' });
  });

  it("reads 'org/app' the core's way: no registry named, so Manager's default docker.io (the old split took 'org' for one)", () => {
    expect(splitTemplateReference('bitnami/redis:7')).toMatchObject({
      registry: 'docker.io',
      namespace: 'bitnami',
      image: 'redis',
      repository: 'bitnami/redis',
      tag: '7',
    });
  });

  it('refuses what the spec validation refuses (the old split passed anything on to the registry)', () => {
    expect(() => splitTemplateReference('docker.io/Library/nginx:1.27')).toThrow(InvalidSpecError);
    expect(() => splitTemplateReference('docker.io/library/nginx:1.27')).not.toThrow();
  });

  it("names the archive the way Manager does, with '/' and ':' replaced", () => {
    expect(imageArchiveName(splitTemplateReference('docker.io/library/nginx:latest'), 'abc123def456')).toBe(
      'docker.io_library_nginx_latest_abc123def456',
    );
    expect(imageArchiveName(splitTemplateReference('registry.local:5000/team/app:1.2'), 'f00d')).toBe(
      'registry.local_5000_team_app_1.2_f00d',
    );
  });
});
