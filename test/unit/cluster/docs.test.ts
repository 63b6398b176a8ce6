// docs/cluster-check.md stays true to the code: its examples are the files the
// integration suite runs, its permission table and Role manifests are what
// OPERATION_PERMISSIONS and roleFor() produce.
import { readdirSync, readFileSync } from 'node:fs';
import { loadYaml } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { OPERATION_PERMISSIONS, permissionLabel, roleFor } from '../../../src/cluster/permissions.js';

const root = new URL('../../../', import.meta.url);
const doc = readFileSync(new URL('docs/cluster-check.md', root), 'utf8');

describe('docs/cluster-check.md', () => {
  it('quotes every example file whole', () => {
    const examples = readdirSync(new URL('examples/', root)).filter((name) =>
      /^(check-cluster|nodes-and-fits|manager-node-check)\./.test(name),
    );
    expect(examples).toHaveLength(3);
    for (const name of examples) {
      expect(doc, name).toContain(`\`\`\`js\n${readFileSync(new URL(`examples/${name}`, root), 'utf8')}\`\`\``);
    }
  });

  it('lists the permissions of OPERATION_PERMISSIONS, in its order, with the operations that need each', () => {
    const rows = [...doc.matchAll(/^\| ((?:create|get|list|watch|patch|update|delete) [a-z0-9./]+) \| (yes)? ?\| (yes)? ?\|/gm)].map(
      (match) => [match[1], match[2] === 'yes', match[3] === 'yes'],
    );
    const create = OPERATION_PERMISSIONS.create.map(permissionLabel);
    expect(rows).toEqual(OPERATION_PERMISSIONS.lifecycle.map(permissionLabel).map((label) => [label, create.includes(label), true]));
  });

  it('shows the Roles roleFor() renders for create and for the lifecycle', () => {
    const roles = [...doc.matchAll(/```yaml\n(.*?)```/gs)].map((match) => loadYaml(match[1]!));
    expect(roles).toEqual([
      roleFor('create', { name: 'kube-provisioner', namespace: 'team-a' }),
      roleFor('lifecycle', { name: 'kube-provisioner', namespace: 'team-a' }),
    ]);
  });
});
