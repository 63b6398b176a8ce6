// The job-log printer: one complete line per event, in one write, control characters
// escaped; text for people (the CLI's words) or JSON. Pure, with a recording `write`.
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../../src/errors/input.js';
import type { CreateFlowEvent } from '../../../src/manager/create-flow.js';
import { describeFlowEvent, eventPrinter, type JobEvent } from '../../../src/manager/event-printer.js';
import type { PodDiagnosis } from '../../../src/rollout/events.js';
import type { RolloutStatus } from '../../../src/rollout/events.js';

const status: RolloutStatus = {
  state: 'InProgress',
  reason: 'WaitingForAvailable',
  message: '0 of 1 replicas available',
  generation: 1,
  observedGeneration: 1,
  replicas: { desired: 1, total: 1, updated: 1, ready: 0, available: 0 },
};
const base = { namespace: 'team-a', name: 'web', providerId: 'team-a/web' };
const at = (second: number) => `2026-11-30T17:07:${String(second).padStart(2, '0')}.250Z`;

const events: CreateFlowEvent[] = [
  { type: 'created', at: at(1), uid: 'uid-1', ...base },
  { type: 'progress', at: at(2), status, message: 'waiting to be scheduled', ...base },
  { type: 'progress', at: at(3), status, message: 'waiting to be scheduled', ...base },
  { type: 'progress', at: at(4), status, message: 'cannot pull the image yet (ErrImagePull): line one\nline two\u001b[2J', ...base },
  { type: 'ready', at: at(5), adopted: false, durationMs: 4200, address: null, service: null, ...base },
  { type: 'provisioned', at: at(5), provider: 'kubernetes', providerId: 'team-a/web', macAddress: null, ipAddress: null },
  { type: 'saved', at: at(6), containerId: 101, providerId: 'team-a/web', macAddress: null, ipAddress: null },
  { type: 'step', at: at(7), provider: 'proxmox', step: 'acl', message: 'ACL not set', severity: 'warning' },
];

function printed(output?: 'text' | 'json'): string[] {
  const writes: string[] = [];
  const print = eventPrinter({ write: (line) => writes.push(line), ...(output ? { output } : {}) });
  for (const event of events) print(event);
  return writes;
}

describe('eventPrinter', () => {
  it('writes each event as one complete line in one write, for people by default', () => {
    const writes = printed();
    for (const chunk of writes) expect(chunk).toMatch(/^[^\n]*\n$/);
    expect(writes).toEqual([
      '17:07:01.250 team-a/web created Deployment\n',
      '17:07:02.250 team-a/web waiting to be scheduled\n',
      // the same words again are not repeated
      '17:07:04.250 team-a/web cannot pull the image yet (ErrImagePull): line one\\nline two\\u001b[2J\n',
      '17:07:05.250 team-a/web ready in 4.2s\n',
      '17:07:05.250 team-a/web provisioned on kubernetes (MAC none, IP none)\n',
      "17:07:06.250 team-a/web stored as container 101's provider ID\n",
      '17:07:07.250 proxmox: warning: ACL not set\n',
    ]);
  });

  it('json: every event as one JSON line in one write, nothing left out', () => {
    const writes = printed('json');
    expect(writes).toHaveLength(events.length);
    for (const chunk of writes) expect(chunk).toMatch(/^\{[^\n]*\}\n$/);
    expect(writes.map((chunk) => JSON.parse(chunk) as unknown)).toEqual(events);
  });

  it('refuses an unknown output naming the option', () => {
    expect(() => eventPrinter({ output: 'yaml' as 'json' })).toThrow(InvalidOptionError);
  });
});

const pod: PodDiagnosis = {
  severity: 'failed',
  reason: 'CrashLoopBackOff',
  message: 'back-off 10s restarting',
  pod: 'web-7c9f5d-x1',
  container: 'web',
};
const outcome = { ...base, changed: true, durationMs: 2100 };

/** One or more of every event a job prints; the type makes a missing event type a compile error. */
const everyEvent: { readonly [Type in JobEvent['type']]: readonly Extract<JobEvent, { type: Type }>[] } = {
  created: [{ type: 'created', at: at(1), uid: 'uid-1', ...base }],
  adopted: [{ type: 'adopted', at: at(1), uid: 'uid-1', reconfigured: ['image'], ...base }],
  progress: [{ type: 'progress', at: at(2), status, message: 'waiting to be scheduled', ...base }],
  ready: [{ type: 'ready', at: at(3), adopted: false, durationMs: 4200, address: null, service: null, ...base }],
  step: [{ type: 'step', at: at(4), provider: 'proxmox', step: 'start', message: 'Started 104', severity: 'info' }],
  provisioned: [
    { type: 'provisioned', at: at(5), provider: 'kubernetes', providerId: 'team-a/web', macAddress: null, ipAddress: '10.244.0.7' },
  ],
  saved: [
    { type: 'saved', at: at(6), containerId: 101, providerId: 'team-a/web', macAddress: null, ipAddress: '10.244.0.7' },
    { type: 'saved', at: at(6), containerId: 101, operation: 'stop', providerId: 'team-a/web', macAddress: null, ipAddress: null },
    { type: 'saved', at: at(6), containerId: 101, operation: 'remove', providerId: null, macAddress: null, ipAddress: null },
    { type: 'saved', at: at(6), containerId: 101, operation: 'reconfigure', providerId: 'new123' },
  ],
  diagnosed: [{ type: 'diagnosed', at: at(7), pod, ...base }],
  scaled: [{ type: 'scaled', at: at(8), replicas: 0, previousReplicas: 1, generation: 3, ...base }],
  patched: [{ type: 'patched', at: at(9), fields: ['env.PORT', 'cpus'], generation: 4, replicas: 1, ...base }],
  rollback: [{ type: 'rollback', at: at(10), reason: 'Unschedulable', generation: 5, ...base }],
  deleted: [
    { type: 'deleted', at: at(11), uid: 'uid-1', kind: 'Deployment', object: 'web', ...base },
    { type: 'deleted', at: at(11), uid: 'uid-2', kind: 'PersistentVolumeClaim', object: 'web-storage', ...base },
  ],
  resized: [
    {
      type: 'resized',
      at: at(11),
      object: 'web-storage',
      previous: '50Gi',
      requested: '80Gi',
      capacity: '50Gi',
      resize: 'pending',
      message: 'the volume grows when its resizer acts',
      ...base,
    },
  ],
  kept: [{ type: 'kept', at: at(11), kind: 'PersistentVolumeClaim', object: 'web-storage', uid: 'uid-3', ...base }],
  left: [
    {
      type: 'left',
      at: at(11),
      kind: 'Service',
      object: 'web',
      uid: 'uid-5',
      message: 'Service team-a/web belongs to something other than Manager, not container-id 101: left untouched',
      ...base,
    },
  ],
  service: [{ type: 'service', at: at(11), action: 'patched', fields: ['ports'], uid: 'uid-4', ...base }],
  portsSet: [
    { type: 'portsSet', at: at(17), address: '10.96.0.10', service: null, ...outcome },
    { type: 'portsSet', at: at(17), address: null, service: null, ...outcome, changed: false },
  ],
  waiting: [
    { type: 'waiting', at: at(12), message: 'waiting for 1 pod to go (web-7c9f5d-x1: Terminating)', pods: ['web-7c9f5d-x1'], ...base },
  ],
  warned: [
    {
      type: 'warned',
      at: at(12),
      reason: 'SlowHalt',
      pod: 'web-7c9f5d-x1',
      message: 'pod web-7c9f5d-x1 is still running 10 s after it was told to stop',
      ...base,
    },
  ],
  started: [
    { type: 'started', at: at(13), ...outcome },
    { type: 'started', at: at(13), ...outcome, changed: false },
  ],
  stopped: [
    { type: 'stopped', at: at(14), ...outcome },
    { type: 'stopped', at: at(14), ...outcome, changed: false },
  ],
  restarted: [
    { type: 'restarted', at: at(15), running: true, ...outcome },
    { type: 'restarted', at: at(15), running: false, ...outcome, changed: false },
  ],
  reconfigured: [
    { type: 'reconfigured', at: at(16), fields: ['env.PORT'], replicas: 1, ...outcome },
    { type: 'reconfigured', at: at(16), fields: [], replicas: 1, ...outcome, changed: false },
  ],
  removed: [
    { type: 'removed', at: at(17), storage: 'deleted', left: [], ...outcome },
    { type: 'removed', at: at(17), storage: 'kept', left: [], ...outcome },
    { type: 'removed', at: at(17), storage: 'none', left: [], ...outcome, changed: false },
    {
      type: 'removed',
      at: at(17),
      storage: 'none',
      left: [{ kind: 'Service', object: 'web', uid: 'uid-5', message: 'Service team-a/web belongs to something other than Manager' }],
      ...outcome,
    },
  ],
  completed: [
    {
      type: 'completed',
      at: at(18),
      provider: 'kubernetes',
      operation: 'start',
      providerId: 'team-a/web',
      changed: true,
      network: { macAddress: null, ipAddress: '10.244.0.8' },
    },
    { type: 'completed', at: at(18), provider: 'dummy', operation: 'remove', providerId: 'dummy-101', changed: false },
  ],
};

describe('eventPrinter over every event the create flow and the lifecycle emit', () => {
  const all = Object.values(everyEvent).flat() as JobEvent[];

  it('prints each as one line of words, never undefined, null or an object', () => {
    const writes: string[] = [];
    const print = eventPrinter({ write: (line) => writes.push(line) });
    for (const event of all) print(event);
    expect(writes).toHaveLength(all.length);
    for (const line of writes) {
      expect(line).toMatch(/^\d\d:\d\d:\d\d\.\d{3} \S[^\n]*\n$/);
      expect(line).not.toMatch(/undefined|\bnull\b|\[object Object\]/);
    }
  });

  it.each(Object.keys(everyEvent))('%s: its words name what happened', (type) => {
    for (const event of everyEvent[type as JobEvent['type']]) {
      const words = describeFlowEvent(event);
      expect(words.length).toBeGreaterThan(10);
      if ('providerId' in event && event.providerId) expect(words).toContain(event.providerId);
    }
  });

  it('a lifecycle job reads as the CLI does, and says what the row now holds', () => {
    const lines = (everyEvent.saved.slice(1) as JobEvent[]).concat(everyEvent.completed).map(describeFlowEvent);
    expect(lines).toEqual([
      'container 101 saved after stop: provider ID team-a/web, IP none',
      'container 101 saved after remove: provider ID cleared, IP none',
      'container 101 saved after reconfigure: provider ID new123',
      'team-a/web start on kubernetes: done (MAC none, IP 10.244.0.8)',
      'dummy-101 remove on dummy: nothing to do',
    ]);
    expect(describeFlowEvent(everyEvent.scaled[0]!)).toBe('team-a/web scaled from 1 to 0 (generation 3)');
    expect(describeFlowEvent(everyEvent.diagnosed[0]!)).toBe(
      'team-a/web pod web-7c9f5d-x1 (container web): CrashLoopBackOff: back-off 10s restarting',
    );
  });
});
