// A crash's log lines and the documented Role (docs/kube-provisioner-role.yaml), on the
// real node: with the Role, a user gets them; with its optional `get pods/log` rule taken
// out, the crash is still named in the same words, only without the lines.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

import { RolloutFailedError, provision } from '../../src/index.js';
import { apiFor, kubectl } from '../support/kube.js';
import { createRealNodeNamespace, realSpec } from '../support/real-node.js';

const ROLE = readFileSync(fileURLToPath(new URL('../../docs/kube-provisioner-role.yaml', import.meta.url)), 'utf8');
const LOG_RULE = / {2}# get pods\/log:[\s\S]*?verbs: \['get'\]\n/;

const namespaces: string[] = [];
afterAll(() => {
  kubectl(['delete', 'namespace', ...namespaces, '--wait=false']);
});

function realNamespaceWithRole(role: string): string {
  const namespace = createRealNodeNamespace('rn-rbac');
  namespaces.push(namespace);
  kubectl(['apply', '-n', namespace, '-f', '-'], { input: role });
  kubectl(['create', 'rolebinding', 'kube-provisioner', '-n', namespace, '--role', 'kube-provisioner', '--user', 'restricted']);
  return namespace;
}

async function crash(namespace: string): Promise<RolloutFailedError> {
  const spec = realSpec({ namespace, entrypoint: ['sh', '-c', 'echo cannot read /etc/app.conf; exit 1'] });
  const error = await provision(apiFor('restricted'), spec, { timeoutMs: 120_000 }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RolloutFailedError);
  return error as RolloutFailedError;
}

describe('a crash’s log lines need only the Role’s optional get pods/log', () => {
  it('are there with the documented Role, and left out (the crash still named) without that rule', async () => {
    expect(ROLE).toMatch(LOG_RULE);
    const [withRule, withoutRule] = await Promise.all([
      crash(realNamespaceWithRole(ROLE)),
      crash(realNamespaceWithRole(ROLE.replace(LOG_RULE, ''))),
    ]);
    expect(withRule.reason).toBe('CrashLoopBackOff');
    expect(withRule.logs).toEqual(['cannot read /etc/app.conf']);
    expect(withoutRule.reason).toBe('CrashLoopBackOff');
    expect(withoutRule.detail).toContain('last exit: Error (exit code 1)');
    expect(withoutRule.logs).toEqual([]);
    expect(withoutRule.message).not.toContain('log lines');
  });
});
