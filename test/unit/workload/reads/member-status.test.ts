// The members as a status reads them (member-status.ts): which members take part, the key
// of a workload's objects, and what their views make of its readiness and fields. Pure
// functions over the library's table and the test-only settings member; no client.
import { describe, expect, it } from 'vitest';
import { parseWorkloadSpec } from '../../../../src/input/workload-spec.js';
import { buildDeployment } from '../../../../src/members/deployment/manifest.js';
import { MEMBERS } from '../../../../src/members/set.js';
import { DEFAULT_FAILURE_POLICY } from '../../../../src/rollout/failure-policy.js';
import { judgeMembers, memberKey, statusMembers } from '../../../../src/workload/reads/member-status.js';
import { SETTINGS_TABLE } from '../../../support/members/settings-member.js';

const spec = parseWorkloadSpec({
  containerId: 42,
  nodeId: 7,
  hostname: 'web',
  image: 'nginx:1.27',
  cpus: 0.5,
  memoryMb: 256,
  ports: [{ port: 80, protocol: 'tcp' }],
  storage: { sizeGb: 1, paths: ['/srv'] },
});
const deployment = buildDeployment(spec, { namespace: 'apps' });

describe('statusMembers and memberKey', () => {
  it('takes the members with a part in the status, in table order; the Deployment is the status itself', () => {
    expect(statusMembers(MEMBERS).map((member) => member.kind)).toEqual(['persistentvolumeclaims', 'services']);
    expect(statusMembers(SETTINGS_TABLE).map((member) => member.kind)).toEqual(['persistentvolumeclaims', 'services', 'configmaps']);
  });

  it('keys a member by the workload name, by its own name in the workload, or by what the Deployment names', () => {
    const [claim, service, settings] = statusMembers(SETTINGS_TABLE);
    expect([claim!.keyedByWorkload, service!.keyedByWorkload, settings!.keyedByWorkload]).toEqual([false, true, false]);
    expect(memberKey(service!, 'web', deployment)).toBe('web');
    expect(memberKey(settings!, 'web', deployment)).toBe('web-settings');
    expect(memberKey(claim!, 'web', deployment)).toBe('web');
    const { storage: _, ...withoutStorage } = spec;
    expect(memberKey(claim!, 'web', buildDeployment(withoutStorage, { namespace: 'apps' }))).toBeUndefined();
  });
});

describe('judgeMembers', () => {
  it("no Service there: no gate, and the fields say so; the claim's say it is missing", () => {
    const [claim, service] = statusMembers(MEMBERS);
    const judged = judgeMembers(
      [
        { member: claim!, key: 'web', view: undefined },
        { member: service!, key: 'web', view: undefined },
      ],
      deployment,
      [],
      DEFAULT_FAILURE_POLICY,
    );
    expect(judged.gates).toEqual([]);
    expect(judged.fields?.(undefined)).toMatchObject({ address: null, service: null, storage: { name: 'web', phase: 'Missing' } });
  });

  it('a Service that routes to no Pod yet is a gate the tracker waits for', () => {
    const [, service] = statusMembers(MEMBERS);
    const view = {
      service: { metadata: { name: 'web', uid: 's1' }, spec: { clusterIP: '10.0.0.9', ports: [{ port: 80, protocol: 'TCP' }] } },
      slices: [],
    };
    const judged = judgeMembers([{ member: service!, key: 'web', view }], deployment, [], DEFAULT_FAILURE_POLICY);
    expect(judged.gates.map((gate) => [gate.kind, gate.name])).toEqual([['Service', 'web']]);
    expect(judged.fields?.(undefined)).toMatchObject({ address: '10.0.0.9', service: { routed: false, reason: 'NoEndpoint' } });
  });

  it('no member: no fields to add', () => {
    expect(judgeMembers([], deployment, [], DEFAULT_FAILURE_POLICY)).toEqual({ gates: [], fields: undefined });
  });
});
