// The Manager adapter's Kubernetes node settings: validation by field (no cluster), and
// checkKubernetesNode() on kubeconfigs that cannot load (the integration suite runs it
// against the real control plane). No answer may carry what is inside the kubeconfig.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KubernetesNodeConfigError } from '../../../src/manager/errors.js';
import { checkKubernetesNode } from '../../../src/manager/node-check.js';
import { kubernetesNodeConfig } from '../../../src/manager/node-config.js';

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
    kubernetesNodeConfig(node);
  } catch (error) {
    expect(error).toBeInstanceOf(KubernetesNodeConfigError);
    return [...(error as KubernetesNodeConfigError).issues];
  }
  throw new Error('expected KubernetesNodeConfigError');
}

describe('kubernetesNodeConfig', () => {
  it('applies the defaults: current-context, namespace default, TLS verified', () => {
    expect(
      kubernetesNodeConfig({ id: 3, name: 'k8s-east', nodeType: 'kubernetes', kubeconfigPath: '/etc/manager/east.kubeconfig' }),
    ).toEqual({
      credentials: 'kubeconfig',
      kubeconfigPath: '/etc/manager/east.kubeconfig',
      kubeContext: undefined,
      kubeNamespace: 'default',
      tlsVerify: true,
      gpu: { resource: 'nvidia.com/gpu', runtimeClass: undefined },
    });
    expect(kubernetesNodeConfig({ kubeconfigPath: '/k', kubeContext: '', kubeNamespace: null, tlsVerify: null })).toEqual({
      credentials: 'kubeconfig',
      kubeconfigPath: '/k',
      kubeContext: undefined,
      kubeNamespace: 'default',
      tlsVerify: true,
      gpu: { resource: 'nvidia.com/gpu', runtimeClass: undefined },
    });
    expect(kubernetesNodeConfig({ kubeconfigPath: '/k', kubeContext: 'east-admin', kubeNamespace: 'team-a', tlsVerify: false })).toEqual({
      credentials: 'kubeconfig',
      kubeconfigPath: '/k',
      kubeContext: 'east-admin',
      kubeNamespace: 'team-a',
      tlsVerify: false,
      gpu: { resource: 'nvidia.com/gpu', runtimeClass: undefined },
    });
  });

  it('requires the kubeconfig path: no fallback to $KUBECONFIG or ~/.kube/config', () => {
    expect(issuesOf({ name: 'k8s-east' })).toEqual([
      {
        field: 'kubeconfigPath',
        message:
          'is missing: set kubeconfigPath (with kubeContext and kubeNamespace), or apiUrl and secret; ' +
          "a node never uses the process's $KUBECONFIG or ~/.kube/config",
      },
    ]);
  });

  it('lists every problem at once, by field, naming the node', () => {
    let error: unknown;
    try {
      kubernetesNodeConfig({
        name: 'k8s-east',
        kubeconfigPath: 'configs/east',
        kubeContext: ' east ',
        kubeNamespace: 'Team_A',
        tlsVerify: 'false',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(KubernetesNodeConfigError);
    const invalid = error as KubernetesNodeConfigError;
    expect(invalid.nodeName).toBe('k8s-east');
    expect(invalid.issues.map((issue) => issue.field)).toEqual(['kubeconfigPath', 'kubeContext', 'kubeNamespace', 'tlsVerify']);
    expect(invalid.message).toMatch(/^Kubernetes node k8s-east: kubeconfigPath must be an absolute path/);
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
        kubernetesNodeConfig({ kubeconfigPath: kubeconfigText, kubeContext: `${token}\n` });
      } catch (caught) {
        return caught as KubernetesNodeConfigError;
      }
      throw new Error('expected KubernetesNodeConfigError');
    })();
    expect(error.issues.map((issue) => issue.field)).toEqual(['kubeconfigPath', 'kubeContext']);
    expect(`${JSON.stringify(error)} ${String(error)} ${error.stack ?? ''}`).not.toContain(token);
  });

  it('a token node: apiUrl and secret instead of a kubeconfig, one or the other', () => {
    expect(kubernetesNodeConfig({ name: 'k8s-west', apiUrl: 'https://west.example:6443', secret: token, tlsVerify: false })).toEqual({
      credentials: 'token',
      apiUrl: 'https://west.example:6443',
      kubeNamespace: 'default',
      tlsVerify: false,
      gpu: { resource: 'nvidia.com/gpu', runtimeClass: undefined },
    });
    expect(issuesOf({ apiUrl: 'https://west.example:6443' })).toEqual([
      { field: 'secret', message: 'is missing: apiUrl needs the bearer token (a ServiceAccount token) in secret' },
    ]);
    expect(issuesOf({ apiUrl: 'https://w', secret: 42, kubeContext: 'east' }).map((issue) => issue.field)).toEqual([
      'kubeContext',
      'secret',
    ]);
    expect(issuesOf({ kubeconfigPath: '/k', apiUrl: 'https://w', secret: token })).toEqual([
      { field: 'apiUrl', message: 'is set as well as kubeconfigPath; set one of them (a kubeconfig, or apiUrl and secret)' },
    ]);
    const error = (() => {
      try {
        kubernetesNodeConfig({ id: 5, apiUrl: 7, secret: token });
      } catch (caught) {
        return caught as KubernetesNodeConfigError;
      }
      throw new Error('expected KubernetesNodeConfigError');
    })();
    expect(error.message).toBe('Kubernetes node (id 5): apiUrl must be a string (the API server URL)');
    expect(`${JSON.stringify(error)} ${String(error)} ${error.stack ?? ''}`).not.toContain(token);
  });

  it('an apiUrl holding user:password@ is refused here, naming the column, never quoting the value', () => {
    for (const apiUrl of [
      'https://admin:hunter2-pw@west.example:6443',
      'https://hunter2-pw@west.example:6443',
      'https://:hunter2-pw@west.example',
    ]) {
      let error: KubernetesNodeConfigError | undefined;
      try {
        kubernetesNodeConfig({ id: 9, apiUrl, secret: token });
      } catch (caught) {
        error = caught as KubernetesNodeConfigError;
      }
      expect(error).toBeInstanceOf(KubernetesNodeConfigError);
      expect(error?.issues).toEqual([
        { field: 'apiUrl', message: 'must not hold credentials (user:password@): put the bearer token in secret' },
      ]);
      expect(`${JSON.stringify(error)} ${String(error)} ${error?.stack ?? ''}`).not.toMatch(/hunter2|admin/);
    }
    expect(issuesOf({ apiUrl: 'not a url', secret: token })).toEqual([
      { field: 'apiUrl', message: 'must be an absolute URL such as https://10.0.0.1:6443' },
    ]);
  });

  it('not an object: one issue, no throw of another kind', () => {
    expect(issuesOf(null).map((issue) => issue.field)).toEqual(['(node)', 'kubeconfigPath']);
  });
});

describe('checkKubernetesNode', () => {
  it('invalid settings throw before any file is read', async () => {
    await expect(checkKubernetesNode({ kubeconfigPath: 'relative' })).rejects.toBeInstanceOf(KubernetesNodeConfigError);
  });

  it('a token node is checked with its apiUrl and secret; a URL fromServer refuses is named by its column', async () => {
    const unreachable = await checkKubernetesNode({ apiUrl: 'https://127.0.0.1:1', secret: token }, { timeoutMs: 5_000 });
    expect(unreachable.ok).toBe(false);
    expect(unreachable.settings).toEqual({
      credentials: 'token',
      apiUrl: 'https://127.0.0.1:1',
      kubeNamespace: 'default',
      tlsVerify: true,
      gpu: { resource: 'nvidia.com/gpu', runtimeClass: undefined },
    });
    expect(JSON.stringify(unreachable)).not.toContain(token);
    await expect(checkKubernetesNode({ name: 'k8s-west', apiUrl: 'http://west.example', secret: token })).rejects.toMatchObject({
      name: 'KubernetesNodeConfigError',
      field: 'apiUrl',
    });
  });

  it('a missing file or an unknown context is a failing kubeconfig item; the answer holds no kubeconfig content', async () => {
    const missing = await checkKubernetesNode({ kubeconfigPath: '/nonexistent/east.kubeconfig', kubeNamespace: 'team-a' });
    expect(missing.ok).toBe(false);
    expect(missing.settings).toEqual({
      credentials: 'kubeconfig',
      kubeconfigPath: '/nonexistent/east.kubeconfig',
      kubeContext: undefined,
      kubeNamespace: 'team-a',
      tlsVerify: true,
      gpu: { resource: 'nvidia.com/gpu', runtimeClass: undefined },
    });
    expect(missing.report.items[0]).toMatchObject({ id: 'kubeconfig', status: 'fail', error: 'KubeconfigNotFoundError' });

    const path = join(mkdtempSync(join(tmpdir(), 'kp-node-')), 'east.kubeconfig');
    writeFileSync(path, kubeconfigText);
    const unknown = await checkKubernetesNode({ kubeconfigPath: path, kubeContext: 'west' });
    expect(unknown.report.items[0]).toMatchObject({ status: 'fail', message: 'Context "west" is not in the kubeconfig (available: east)' });
    expect(JSON.stringify(unknown)).not.toContain(token);
  });
});
