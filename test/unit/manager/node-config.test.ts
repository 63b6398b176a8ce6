// The Manager adapter's Kubernetes node settings: validation by field (no cluster), and
// checkKubernetesNode() on kubeconfigs that cannot load (the integration suite runs it
// against the real control plane). No answer may carry what is inside the kubeconfig.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidNodeConfigError } from '../../../src/manager/errors.js';
import { checkKubernetesNode } from '../../../src/manager/node-check.js';
import { parseKubernetesNodeConfig } from '../../../src/manager/node-config.js';

const token = `kp-node-secret-${Math.random().toString(36).slice(2)}`;
const kubeconfigText = [
  'apiVersion: v1',
  'kind: Config',
  'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]',
  `users: [{name: u, user: {token: ${token}}}]`,
  'contexts: [{name: east, context: {cluster: c, user: u}}]',
  'current-context: east',
].join('\n');

function issuesOf(node: unknown): { field: string; message: string }[] {
  try {
    parseKubernetesNodeConfig(node);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidNodeConfigError);
    return [...(error as InvalidNodeConfigError).issues];
  }
  throw new Error('expected InvalidNodeConfigError');
}

describe('parseKubernetesNodeConfig', () => {
  it('applies the defaults: current-context, namespace default, TLS verified', () => {
    expect(
      parseKubernetesNodeConfig({ id: 3, name: 'k8s-east', nodeType: 'kubernetes', kubeconfigPath: '/etc/manager/east.kubeconfig' }),
    ).toEqual({
      kubeconfigPath: '/etc/manager/east.kubeconfig',
      kubeContext: undefined,
      kubeNamespace: 'default',
      tlsVerify: true,
    });
    expect(parseKubernetesNodeConfig({ kubeconfigPath: '/k', kubeContext: '', kubeNamespace: null, tlsVerify: null })).toEqual({
      kubeconfigPath: '/k',
      kubeContext: undefined,
      kubeNamespace: 'default',
      tlsVerify: true,
    });
    expect(
      parseKubernetesNodeConfig({ kubeconfigPath: '/k', kubeContext: 'east-admin', kubeNamespace: 'team-a', tlsVerify: false }),
    ).toEqual({
      kubeconfigPath: '/k',
      kubeContext: 'east-admin',
      kubeNamespace: 'team-a',
      tlsVerify: false,
    });
  });

  it('requires the kubeconfig path: no fallback to $KUBECONFIG or ~/.kube/config', () => {
    expect(issuesOf({ name: 'k8s-east' })).toEqual([
      { field: 'kubeconfigPath', message: 'is required: the absolute path of the kubeconfig file Manager reads for this node' },
    ]);
  });

  it('lists every problem at once, by field, naming the node', () => {
    let error: unknown;
    try {
      parseKubernetesNodeConfig({
        name: 'k8s-east',
        kubeconfigPath: 'configs/east',
        kubeContext: ' east ',
        kubeNamespace: 'Team_A',
        tlsVerify: 'false',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidNodeConfigError);
    const invalid = error as InvalidNodeConfigError;
    expect(invalid.node).toBe('k8s-east');
    expect(invalid.issues.map((issue) => issue.field)).toEqual(['kubeconfigPath', 'kubeContext', 'kubeNamespace', 'tlsVerify']);
    expect(invalid.message).toMatch(/^Kubernetes node k8s-east configuration is invalid: kubeconfigPath must be an absolute path/);
    expect(invalid.issues[2]?.message).toMatch(/^must be a DNS-1123 label.*it contains "T", "_", "A"/);
  });

  it.each([
    [{ kubeconfigPath: 42 }, 'kubeconfigPath', 'must be a string (a file path)'],
    [{ kubeconfigPath: '/k\u0000x' }, 'kubeconfigPath', 'must not contain control characters'],
    [{ kubeconfigPath: `/${'a'.repeat(5000)}` }, 'kubeconfigPath', 'must be at most 4096 characters'],
    [{ kubeconfigPath: '~/.kube/config' }, 'kubeconfigPath', expect.stringMatching(/^must be an absolute path/)],
    [{ kubeconfigPath: '/k', kubeContext: 7 }, 'kubeContext', 'must be a string (a context name in the kubeconfig)'],
    [{ kubeconfigPath: '/k', kubeContext: 'a\tb' }, 'kubeContext', 'must not contain control characters'],
    [{ kubeconfigPath: '/k', kubeNamespace: 'x'.repeat(64) }, 'kubeNamespace', expect.stringContaining('it has 64 characters')],
    [{ kubeconfigPath: '/k', tlsVerify: 0 }, 'tlsVerify', 'must be true or false (absent means true)'],
  ])('%j -> %s %s', (node, field, message) => {
    expect(issuesOf(node)).toEqual([{ field, message }]);
  });

  it('a kubeconfig pasted where its path belongs is refused without being quoted back', () => {
    const issues = issuesOf({ name: 'k8s-east', kubeconfigPath: kubeconfigText });
    expect(issues).toEqual([
      { field: 'kubeconfigPath', message: "must be a file path, not the kubeconfig's contents (it has a line break)" },
    ]);
    const error = (() => {
      try {
        parseKubernetesNodeConfig({ kubeconfigPath: kubeconfigText, kubeContext: `${token}\n` });
      } catch (caught) {
        return caught as InvalidNodeConfigError;
      }
      throw new Error('expected InvalidNodeConfigError');
    })();
    expect(error.issues.map((issue) => issue.field)).toEqual(['kubeconfigPath', 'kubeContext']);
    expect(`${JSON.stringify(error)} ${String(error)} ${error.stack ?? ''}`).not.toContain(token);
  });

  it('not an object: one issue, no throw of another kind', () => {
    expect(issuesOf(null).map((issue) => issue.field)).toEqual(['(node)', 'kubeconfigPath']);
  });
});

describe('checkKubernetesNode', () => {
  it('invalid settings throw before any file is read', async () => {
    await expect(checkKubernetesNode({ kubeconfigPath: 'relative' })).rejects.toBeInstanceOf(InvalidNodeConfigError);
  });

  it('a missing file or an unknown context is a failing kubeconfig item; the answer holds no kubeconfig content', async () => {
    const missing = await checkKubernetesNode({ kubeconfigPath: '/nonexistent/east.kubeconfig', kubeNamespace: 'team-a' });
    expect(missing.ok).toBe(false);
    expect(missing.settings).toEqual({
      kubeconfigPath: '/nonexistent/east.kubeconfig',
      kubeContext: undefined,
      kubeNamespace: 'team-a',
      tlsVerify: true,
    });
    expect(missing.report.items[0]).toMatchObject({ id: 'kubeconfig', status: 'fail', error: 'KubeconfigNotFoundError' });

    const path = join(mkdtempSync(join(tmpdir(), 'kp-node-')), 'east.kubeconfig');
    writeFileSync(path, kubeconfigText);
    const unknown = await checkKubernetesNode({ kubeconfigPath: path, kubeContext: 'west' });
    expect(unknown.report.items[0]).toMatchObject({ status: 'fail', message: 'Context "west" is not in the kubeconfig (available: east)' });
    expect(JSON.stringify(unknown)).not.toContain(token);
  });
});
