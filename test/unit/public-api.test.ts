// The public export list of each entry point is committed in test/public-api.json, so an
// accidental export (or a lost one) fails here. Runtime exports only: types leave no trace.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as core from '../../src/index.js';
import * as manager from '../../src/manager/index.js';
import * as kit from '../../src/manager/kit/index.js';

const committed = JSON.parse(readFileSync(new URL('../public-api.json', import.meta.url), 'utf8')) as Record<string, string[]>;

describe('public API', () => {
  it('kube-provisioner exports exactly the committed names', () => {
    expect(Object.keys(core).sort()).toEqual(committed['kube-provisioner']);
  });

  it('kube-provisioner/manager exports exactly the committed names', () => {
    expect(Object.keys(manager).sort()).toEqual(committed['kube-provisioner/manager']);
  });

  it('kube-provisioner/manager-kit exports exactly the committed names, and its entry file lists them for ESM', () => {
    expect(Object.keys(kit).sort()).toEqual(committed['kube-provisioner/manager-kit']);
    const entry = readFileSync(new URL('../../manager-kit/index.js', import.meta.url), 'utf8');
    const listed = /0 &&\s*\(module\.exports = \{([^}]*)\}\)/.exec(entry)?.[1] ?? '';
    expect(
      listed
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean)
        .sort(),
    ).toEqual(committed['kube-provisioner/manager-kit']);
  });

  it('every exported error class has a constant name equal to the class name and extends KubeProvisionerError', () => {
    const errorClasses = Object.entries({ ...core, ...manager }).filter(
      ([, value]) => typeof value === 'function' && value.prototype instanceof Error,
    ) as [string, new (...args: never[]) => Error][];
    expect(errorClasses.length).toBeGreaterThan(30);
    for (const [exportName, ErrorClass] of errorClasses) {
      if (exportName === 'KubeProvisionerError') continue;
      expect(ErrorClass.prototype instanceof core.KubeProvisionerError, exportName).toBe(true);
      // `name` is a class field, set by the constructor: build one with loose arguments.
      expect(tryConstruct(ErrorClass)?.name, exportName).toBe(exportName);
    }
  });

  it('the deprecated createContainerAsync is the Promise form createContainer', () => {
    expect(manager.createContainerAsync).toBe(manager.createContainer);
  });
});

function tryConstruct(ErrorClass: new (...args: never[]) => Error): Error | undefined {
  const Loose = ErrorClass as unknown as new (...args: unknown[]) => Error;
  const shapes = [['x', 'y'], ['x', { state: 'InProgress', reason: 'r', message: 'm' }, 1], [[]], ['x', []], ['x'], []];
  for (const args of shapes) {
    try {
      return new Loose(...args);
    } catch {
      // try the next argument shape
    }
  }
  return undefined;
}
