// Cleans the machine after a real node, from its record (host-state.ts):
//
//   npx tsx scripts/control-plane/real-node/cleanup.ts [record file]
//
// The reaper runs it when a node's owner dies without stopping it; by hand, it undoes what
// a node left behind (the next start does the same). By hand it first takes the machine-
// wide lock, so it never cleans under a running node; the reaper already holds it.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { cleanHost, hostRecordFile, readHostRecord, realNodeLockFile } from './host-state.js';

const LOCK_HELD = 'KUBE_PROVISIONER_REAL_NODE_LOCK_HELD';

async function main(): Promise<number> {
  const file = process.argv[2] ?? hostRecordFile();
  if (process.env[LOCK_HELD] !== '1') {
    const script = fileURLToPath(import.meta.url);
    const child = spawnSync('flock', ['-w', '60', realNodeLockFile(), process.execPath, ...process.execArgv, script, file], {
      stdio: 'inherit',
      env: { ...process.env, [LOCK_HELD]: '1' },
    });
    return child.status ?? 1;
  }
  const record = readHostRecord(file);
  if (record === undefined) {
    process.stderr.write(`no real node recorded in ${file}: nothing to clean\n`);
    return 0;
  }
  const left = await cleanHost(record, { log: (line) => process.stderr.write(`${line}\n`), recordFile: file });
  if (left.length === 0) {
    rmSync(`${realNodeLockFile()}.owner`, { force: true });
    process.stderr.write(`cleaned up after the real node in ${record.workDir}\n`);
  }
  return left.length === 0 ? 0 : 1;
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exitCode = 1;
  },
);
