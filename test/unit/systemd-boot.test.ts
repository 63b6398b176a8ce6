// classifySystemdBoot(): systemd's console lines to the cause of a failed boot, with the lines
// systemd 252 (Debian 12) and 257 (Debian 13) print in a Pod; the tracker ending a rollout at
// the first such exit (pure, explicit times, no client); terminal codes stripped from crash
// lines as a console writes them (a fake client's log text).
import { describe, expect, it } from 'vitest';
import { Masker } from '../../src/mask.js';
import { DEFAULT_FAILURE_POLICY } from '../../src/rollout/failure-policy.js';
import { SYSTEM_BOOT_FAILED_REASON, classifySystemdBoot } from '../../src/rollout/systemd-boot.js';
import { INITIAL_TRACKER_STATE, trackRollout } from '../../src/rollout/tracker.js';
import { stripTerminalCodes } from '../../src/text.js';
import { logLines } from '../../src/workload/toolkit/crash-logs.js';
import { deployment, progressingDeployment, terminatedPod } from '../support/fixtures.js';

const CGROUP = '/kubepods/besteffort/pod0d3c/4f1e9a';
const HEAD = [
  'systemd 257.9-1~deb13u1 running in system mode (+PAM +AUDIT +SELINUX +APPARMOR +IMA)',
  'Detected virtualization container-other.',
  'Detected architecture x86-64.',
];
const READ_ONLY = [
  ...HEAD,
  `Failed to create ${CGROUP}/init.scope control group: Read-only file system`,
  'Failed to allocate manager object: Read-only file system',
  '[!!!!!!] Failed to allocate manager object.',
  'Exiting PID 1...',
];
const MISSING = [
  ...HEAD,
  `Failed to create ${CGROUP}/init.scope control group: No such file or directory`,
  'Failed to allocate manager object: No such file or directory',
  '[!!!!!!] Failed to allocate manager object.',
  'Exiting PID 1...',
];
const NO_RUN = [
  ...HEAD,
  'Failed to mount tmpfs at /run: Operation not permitted',
  '[!!!!!!] Failed to mount API filesystems.',
  'Exiting PID 1...',
];

describe('classifySystemdBoot', () => {
  it('a read-only cgroup: the runtime gives no writable cgroup, with the fix', () => {
    const found = classifySystemdBoot(READ_ONLY);
    expect(found).toMatchObject({
      kind: 'CgroupsNotWritable',
      line: `Failed to create ${CGROUP}/init.scope control group: Read-only file system`,
    });
    expect(found?.message).toContain('cgroup_writable = true');
    expect(found?.message).toContain('CRI-O or sysbox');
    expect(found?.message.endsWith(`systemd said: ${found.line}`)).toBe(true);
  });

  it('a missing cgroup (systemd 252 on cgroup v1) is the same cause', () => {
    expect(classifySystemdBoot(MISSING)).toMatchObject({
      kind: 'CgroupsNotWritable',
      line: expect.stringContaining('No such file or directory'),
    });
  });

  it('only the manager object line left in the tail still names the cgroups', () => {
    expect(classifySystemdBoot(READ_ONLY.slice(-3))).toMatchObject({
      kind: 'CgroupsNotWritable',
      line: 'Failed to allocate manager object: Read-only file system',
    });
  });

  it('/run not mountable: the tmpfs is missing', () => {
    const found = classifySystemdBoot(NO_RUN);
    expect(found).toMatchObject({ kind: 'RunNotMountable', line: 'Failed to mount tmpfs at /run: Operation not permitted' });
    expect(found?.message).toContain('systemContainer: true');
    expect(classifySystemdBoot(NO_RUN.slice(-2))).toMatchObject({
      kind: 'RunNotMountable',
      line: '[!!!!!!] Failed to mount API filesystems.',
    });
  });

  it('a cgroup filesystem systemd cannot mount is the cgroups, not /run', () => {
    const lines = [
      'Failed to mount cgroup at /sys/fs/cgroup/systemd: Operation not permitted',
      '[!!!!!!] Failed to mount API filesystems.',
    ];
    expect(classifySystemdBoot(lines)).toMatchObject({ kind: 'CgroupsNotWritable', line: lines[0] });
  });

  it('cgroup v1 refused by a newer systemd', () => {
    const line = 'Detected cgroup v1 / legacy hierarchy, refusing execution.';
    expect(classifySystemdBoot([...HEAD, line, 'Exiting PID 1...'])).toMatchObject({ kind: 'CgroupV1Refused', line });
    // A mere mention of v1 is not a refusal.
    expect(classifySystemdBoot(['Using cgroup v1 hierarchy.'])).toBeUndefined();
  });

  it('an older systemd that freezes: the line before names it, unless a known cause is there', () => {
    expect(classifySystemdBoot(['Some fatal thing went wrong.', 'Freezing execution.'])).toMatchObject({
      kind: 'Frozen',
      line: 'Some fatal thing went wrong.',
    });
    expect(classifySystemdBoot(['Freezing execution.'])).toMatchObject({ kind: 'Frozen', line: 'Freezing execution.' });
    expect(classifySystemdBoot([...READ_ONLY.slice(0, -1), 'Freezing execution.'])).toMatchObject({ kind: 'CgroupsNotWritable' });
  });

  it('an ordinary crash is none of them', () => {
    expect(classifySystemdBoot([])).toBeUndefined();
    expect(classifySystemdBoot(['Error: listen EADDRINUSE: address already in use :::3000', 'Exiting PID 1...'])).toBeUndefined();
  });
});

describe('console lines lose their terminal codes', () => {
  it('colours, the terminal reset and CRLF line ends go; the words stay', () => {
    const console =
      '\u001bc\u001b[0;1;31mFailed to mount tmpfs at /run: Operation not permitted\u001b[0m\r\n[\u001b[0;1;31m!!!!!!\u001b[0m] Failed to mount API filesystems.\r\nExiting PID 1...\r\n';
    expect(stripTerminalCodes(console)).toBe(
      'Failed to mount tmpfs at /run: Operation not permitted\n[!!!!!!] Failed to mount API filesystems.\nExiting PID 1...\n',
    );
    expect(logLines(console, new Masker([]))).toEqual(NO_RUN.slice(-3));
  });
});

describe('the tracker ends a rollout at the first exit systemd gives up', () => {
  // One Pod object: the fixture names each new one afresh.
  const exited = terminatedPod(255, 'Error');
  const crashed = () => exited;
  const key = (step: ReturnType<typeof trackRollout>) => step.crash?.key ?? '';

  it('names the cause once the lines are read, long before the crash loop rule', () => {
    const first = trackRollout(DEFAULT_FAILURE_POLICY, INITIAL_TRACKER_STATE, {
      deployment: progressingDeployment(),
      pods: [crashed()],
      now: 0,
    });
    expect(first.failure).toBeUndefined();
    expect(first.crash).toBeDefined();
    const named = trackRollout(DEFAULT_FAILURE_POLICY, first.state, {
      deployment: progressingDeployment(),
      pods: [crashed()],
      now: 1000,
      logs: { key: key(first), lines: READ_ONLY.slice(-5) },
    });
    expect(named.failure).toMatchObject({
      source: 'pod',
      reason: SYSTEM_BOOT_FAILED_REASON,
      pod: { systemBoot: { kind: 'CgroupsNotWritable' } },
    });
    expect(named.failure?.detail).toMatch(/^CgroupsNotWritable: the node's container runtime does not give/);
    expect(named.pod?.reason).toBe(SYSTEM_BOOT_FAILED_REASON);
  });

  it('lines that are not systemd giving up leave the crash loop rule to judge', () => {
    const first = trackRollout(DEFAULT_FAILURE_POLICY, INITIAL_TRACKER_STATE, {
      deployment: progressingDeployment(),
      pods: [crashed()],
      now: 0,
    });
    const step = trackRollout(DEFAULT_FAILURE_POLICY, first.state, {
      deployment: progressingDeployment(),
      pods: [crashed()],
      now: 1000,
      logs: { key: key(first), lines: ['panic: boom'] },
    });
    expect(step.failure).toBeUndefined();
    expect(step.pod?.logs).toEqual(['panic: boom']);
  });

  it('a rollout that is not under way is not failed by old lines', () => {
    const step = trackRollout(DEFAULT_FAILURE_POLICY, INITIAL_TRACKER_STATE, {
      deployment: deployment({ replicas: 0 }),
      pods: [crashed()],
      now: 0,
      logs: { key: 'x', lines: READ_ONLY },
    });
    expect(step.failure).toBeUndefined();
  });
});
