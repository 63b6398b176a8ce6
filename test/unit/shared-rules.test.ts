// Rules written once and used by several layers: the env-name rule (spec validation and
// the Manager's record normalisation), oneLine (pod diagnoses and API error messages) and
// the namespace default (manifest, kubeconfig, Manager's kubernetes nodes). Pure, no fakes.
import { describe, expect, it } from 'vitest';
import { InvalidSpecError } from '../../src/errors/input.js';
import { checkEnvironment, normalizeEnvironment } from '../../src/manager/providers/environment.js';
import { kubernetesNodeConfig } from '../../src/manager/node-config.js';
import { DEFAULT_NAMESPACE, isEnvVarName } from '../../src/input/names.js';
import { parseWorkloadSpec } from '../../src/input/workload-spec.js';
import { oneLine } from '../../src/text.js';
import { effectiveNamespace } from '../../src/members/deployment/manifest.js';

const spec = { containerId: 1, nodeId: 1, hostname: 'web', image: 'nginx:1.27', cpus: 1, memoryMb: 64 };

function specAccepts(name: string): boolean {
  try {
    parseWorkloadSpec({ ...spec, env: { [name]: 'x' } });
    return true;
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidSpecError);
    return false;
  }
}

describe('one env-name rule', () => {
  it.each(['PATH', '_private', 'a1', 'X_Y_Z', '1BAD', 'A-B', 'A=B', 'A B', 'É', '', 'A\0B'])(
    '%j: the spec accepts it exactly when the Manager keeps it',
    (name) => {
      const kept = Object.hasOwn(normalizeEnvironment({ [name]: 'x' }), name);
      const accepted = checkEnvironment('environmentVars', { [name]: 'x' }).problems.length === 0 && name.trim() === name;
      expect(specAccepts(name)).toBe(isEnvVarName(name));
      expect(kept).toBe(isEnvVarName(name));
      expect(accepted).toBe(isEnvVarName(name));
    },
  );
});

describe('oneLine', () => {
  it('collapses whitespace runs, newlines included, and trims; undefined is empty', () => {
    expect(oneLine('  a\n\tb   c \r\n')).toBe('a b c');
    expect(oneLine(undefined)).toBe('');
  });
});

describe('one namespace default', () => {
  it('is what the manifest, and a Manager kubernetes node without a namespace, fall back to', () => {
    expect(DEFAULT_NAMESPACE).toBe('default');
    expect(effectiveNamespace({})).toBe(DEFAULT_NAMESPACE);
    const node = { id: 1, name: 'k8s', nodeType: 'kubernetes', kubeconfigPath: '/etc/k8s.kubeconfig', kubeNamespace: null };
    expect(kubernetesNodeConfig(node).kubeNamespace).toBe(DEFAULT_NAMESPACE);
  });
});
