import { describe, expect, it } from 'vitest';
import { imageArchiveName, isImageReference, parseImageReference } from '../../../../src/manager/providers/template-reference.js';

describe('image references in the template field', () => {
  it('tells image references (with a "/") from LXC template names', () => {
    expect(isImageReference('docker.io/library/nginx:latest')).toBe(true);
    expect(isImageReference('debian-12-standard')).toBe(false);
  });

  it('splits registry, namespace, image and tag', () => {
    expect(parseImageReference('docker.io/library/nginx:1.27')).toMatchObject({
      registry: 'docker.io',
      namespace: 'library',
      image: 'nginx',
      repository: 'library/nginx',
      tag: '1.27',
      reference: '1.27',
    });
  });

  it("keeps a registry port out of the tag, and defaults a missing tag to 'latest'", () => {
    expect(parseImageReference('registry.local:5000/team/sub/app')).toMatchObject({
      registry: 'registry.local:5000',
      namespace: 'team/sub',
      image: 'app',
      repository: 'team/sub/app',
      tag: 'latest',
    });
  });

  it('resolves a digest reference by its digest', () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    expect(parseImageReference(`ghcr.io/org/tool@${digest}`)).toMatchObject({ tag: undefined, digest, reference: digest });
    expect(parseImageReference(`ghcr.io/org/tool:v2@${digest}`)).toMatchObject({ tag: 'v2', digest, reference: 'v2' });
  });

  it("names the archive the way Manager does, with '/' and ':' replaced", () => {
    expect(imageArchiveName(parseImageReference('docker.io/library/nginx:latest'), 'abc123def456')).toBe(
      'docker.io_library_nginx_latest_abc123def456',
    );
    expect(imageArchiveName(parseImageReference('registry.local:5000/team/app:1.2'), 'f00d')).toBe('registry.local_5000_team_app_1.2_f00d');
  });
});
