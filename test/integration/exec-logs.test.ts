// exec and logs against the real control plane (kube-apiserver, KWOK's simulated nodes):
// the Pod is found by the workload's labels, RBAC is checked by the real API server (the
// documented Role is enough, without its pods/exec rule the terminal is a ForbiddenError
// naming pods/exec), and the API server's exec and log endpoints are reached; a KWOK node
// has no kubelet behind them, which our error names (the real-node suite reaches a kubelet).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { lastValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForbiddenError } from '../../src/errors/api.js';
import { KubeletUnreachableError, NoRunningContainerError } from '../../src/errors/exec.js';
import { execCommand, logs$, openTerminal, provision, stop } from '../../src/index.js';
import { WorkloadNotFoundError } from '../../src/workload/toolkit/ownership.js';
import { apiFor, createNamespace, kubectl, sampleSpec } from '../support/kube.js';

const ROLE = readFileSync(fileURLToPath(new URL('../../docs/kube-provisioner-role.yaml', import.meta.url)), 'utf8');
const EXEC_RULE = / {2}# get, create pods\/exec:[\s\S]*?verbs: \['get', 'create'\]\n/;
const namespaces: string[] = [];
let namespace: string;
let providerId: string;

function namespaceWithRole(role: string): string {
  const created = createNamespace('it-exec');
  namespaces.push(created);
  kubectl(['apply', '-n', created, '-f', '-'], { input: role });
  kubectl(['create', 'rolebinding', 'kube-provisioner', '-n', created, '--role', 'kube-provisioner', '--user', 'restricted']);
  return created;
}

beforeAll(async () => {
  namespace = namespaceWithRole(ROLE);
  providerId = (await provision(apiFor('restricted'), sampleSpec({ namespace }), { timeoutMs: 60_000 })).providerId;
}, 90_000);

afterAll(() => {
  kubectl(['delete', 'namespace', ...namespaces, '--wait=false']);
});

describe('exec and logs on the control plane', () => {
  it("reaches the API server's exec endpoint for the workload's Pod; a KWOK node's missing kubelet is named", async () => {
    const pod = JSON.parse(kubectl(['get', 'pods', '-n', namespace, '-o', 'json'])) as {
      items: { metadata: { name: string }; spec: { nodeName: string } }[];
    };
    const error = await execCommand(apiFor('restricted'), providerId, ['true'], { connectTimeoutMs: 45_000 }).catch(
      (caught: unknown) => caught,
    );
    expect(error, String(error)).toBeInstanceOf(KubeletUnreachableError);
    const named = error as KubeletUnreachableError;
    expect(named.pod).toBe(pod.items[0]?.metadata.name);
    expect(named.node).toBe(pod.items[0]?.spec.nodeName);
    expect(named.message).toContain(`the API server cannot reach the kubelet of node ${named.node} for pod ${namespace}/${named.pod}`);
  }, 60_000);

  it('the log of a Pod on a KWOK node is the same named error', async () => {
    const error = await lastValueFrom(logs$(apiFor('restricted'), providerId)).catch((caught: unknown) => caught);
    expect(error, String(error)).toBeInstanceOf(KubeletUnreachableError);
  }, 60_000);

  it('without the Role’s pods/exec rule, a terminal is a ForbiddenError naming pods/exec', async () => {
    expect(ROLE).toMatch(EXEC_RULE);
    const other = namespaceWithRole(ROLE.replace(EXEC_RULE, ''));
    const id = (await provision(apiFor('restricted'), sampleSpec({ namespace: other }), { timeoutMs: 60_000 })).providerId;
    const error = await openTerminal(apiFor('restricted'), id).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ForbiddenError);
    expect((error as ForbiddenError).resource).toBe('pods/exec');
  }, 90_000);

  it('a workload that does not exist, or is stopped, is named before any exec', async () => {
    await expect(openTerminal(apiFor('restricted'), `${namespace}/no-such`)).rejects.toThrow(WorkloadNotFoundError);
    await stop(apiFor('restricted'), providerId, { timeoutMs: 60_000 });
    const error = await openTerminal(apiFor('restricted'), providerId).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NoRunningContainerError);
    expect((error as Error).message).toContain('it is stopped (0 replicas)');
  }, 90_000);
});
