// Manager is CommonJS: a .cjs file require()s the BUILT package by its name and provisions
// (through a minimal in-memory client written in that file). `npm test` builds first.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('CommonJS consumers', () => {
  it('require("kube-provisioner") works from a .cjs file and provision resolves to namespace/name', () => {
    expect(existsSync(`${root}dist/index.js`), 'dist/ is missing: run `npm run build` (npm test does)').toBe(true);
    const child = spawnSync(process.execPath, ['test/commonjs/provision-with-fake.cjs'], { cwd: root, encoding: 'utf8', timeout: 20_000 });
    expect(child.stderr).not.toMatch(/Error/);
    expect(child.status).toBe(0);
    expect(JSON.parse(child.stdout)).toMatchObject({ providerId: 'default/web', namespace: 'default', name: 'web', adopted: false });
  });

  it('require("kube-provisioner/manager") works from a .cjs file and shares the core error hierarchy', () => {
    expect(existsSync(`${root}dist/manager/index.js`), 'dist/ is missing: run `npm run build` (npm test does)').toBe(true);
    const child = spawnSync(process.execPath, ['test/commonjs/manager-entry.cjs'], { cwd: root, encoding: 'utf8', timeout: 20_000 });
    expect(child.stderr).not.toMatch(/Error/);
    expect(child.status).toBe(0);
    expect(JSON.parse(child.stdout)).toEqual({
      createContainer: true,
      createContainer$: true,
      deprecatedAliasIsPromiseForm: true,
      registry: true,
      sharedHierarchy: true,
      coreHasNoManagerExports: true,
    });
  });
});
