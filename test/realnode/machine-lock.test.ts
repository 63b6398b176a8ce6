// One real node per machine: a second one waits for the machine-wide lock that this run's
// node holds, and gives up after its bound with an error naming the lock and its holder,
// before it has started or changed anything.
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';

import { startCluster } from '../../scripts/control-plane/cluster.js';
import { realNodeLockFile } from '../../scripts/control-plane/real-node/host-state.js';

describe('the machine-wide real-node lock', () => {
  it('makes a second real node wait, then fail naming the lock and who holds it, with nothing started', async () => {
    const before = new Set(readdirSync(tmpdir()));
    const lines: string[] = [];
    const started = Date.now();
    const error = await startCluster({ realNode: { lockTimeoutMs: 2_000 }, log: (line) => lines.push(line) }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(error).toBeInstanceOf(Error);
    // The holder is this run's global setup, which started the suite's real node.
    expect((error as Error).message).toContain(`the machine-wide lock ${realNodeLockFile()} was not free within 2 s: held by pid `);
    expect((error as Error).message).toContain('vitest');
    // Neither a control plane nor a node work dir was made for the refused node.
    const created = readdirSync(tmpdir()).filter((entry) => !before.has(entry) && /^kube-provisioner-(cluster|real-node)-/.test(entry));
    expect(created).toEqual([]);
    expect(lines.some((line) => line.includes('etcd ready'))).toBe(false);
    expect(existsSync(realNodeLockFile())).toBe(true);
  });
});
