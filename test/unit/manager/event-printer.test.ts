// The job-log printer: one complete line per event, in one write, control characters
// escaped; text for people (the CLI's words) or JSON. Pure, with a recording `write`.
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../../src/errors/input.js';
import type { CreateFlowEvent } from '../../../src/manager/create-flow.js';
import { eventPrinter } from '../../../src/manager/event-printer.js';
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
