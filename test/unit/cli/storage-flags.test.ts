// The storage flags, exactly as issue 24 names them (a contract other checks run):
// create --storage-gb N --storage-class NAME --persist PATH (repeatable), delete
// --keep-data, reconfigure --storage-gb N. Flag parsing only; the cluster side is in
// test/unit/storage-lifecycle.test.ts and test/integration/storage.test.ts.
import { describe, expect, it } from 'vitest';
import { parseCreateArgs, withFlags } from '../../../src/cli/args.js';
import { parseLifecycleArgs } from '../../../src/cli/commands/lifecycle-args.js';
import { EXIT, exitCodeFor } from '../../../src/cli/exit-codes.js';
import type { InvalidSpecError } from '../../../src/errors/input.js';
import { UsageError } from '../../../src/errors/input.js';
import { parseWorkloadSpec } from '../../../src/input/workload-spec.js';
import { NoDefaultStorageClassError } from '../../../src/workload/operations/storage-class-choice.js';

const base = ['--container-id', '42', '--node-id', '7', '--hostname', 'web', '--image', 'debian:12', '--cpus', '1', '--memory-mb', '512'];

function flagsOf(error: unknown): string[] {
  return (error as InvalidSpecError).issues.map((issue) => issue.flag ?? '');
}

describe('create storage flags', () => {
  it('--storage-gb, --storage-class and repeated --persist become spec.storage', () => {
    const command = parseCreateArgs([
      ...base,
      '--storage-gb',
      '50',
      '--storage-class',
      'fast',
      '--persist',
      '/home',
      '--persist',
      '/var/lib',
    ]);
    if (command === 'help') throw new Error('help');
    expect(command.spec.storage).toEqual({ sizeGb: 50, storageClass: 'fast', paths: ['/home', '/var/lib'] });
    expect(parseWorkloadSpec(command.spec).storage).toEqual({
      sizeGb: 50,
      storageClass: 'fast',
      paths: ['/home', '/var/lib'],
      seed: 'image',
    });
  });

  it('without --storage-gb: no volume; --persist alone is a usage error naming --storage-gb', () => {
    const command = parseCreateArgs(base);
    if (command === 'help') throw new Error('help');
    expect(command.spec.storage).toBeUndefined();
    expect(() => parseCreateArgs([...base, '--persist', '/home'])).toThrow(UsageError);
    expect(() => parseCreateArgs([...base, '--persist', '/home'])).toThrow(/--persist need --storage-gb/);
  });

  it('a bad value is reported under the flag the user typed', () => {
    const command = parseCreateArgs([...base, '--storage-gb', '0', '--persist', '/home', '--persist', 'relative']);
    if (command === 'help') throw new Error('help');
    let error: unknown;
    try {
      parseWorkloadSpec(command.spec);
    } catch (caught) {
      error = withFlags(caught as InvalidSpecError, command.sources);
    }
    expect(flagsOf(error).sort()).toEqual(['--persist #2', '--storage-gb']);
  });

  it('no default StorageClass exits 2 (invalid input: name one with --storage-class)', () => {
    expect(exitCodeFor(new NoDefaultStorageClassError([]))).toBe(EXIT.invalidInput);
  });
});

describe('delete --keep-data and reconfigure --storage-gb', () => {
  it('delete --keep-data keeps the claim; without it the claim is deleted', () => {
    expect(parseLifecycleArgs('delete', ['default/web', '--container-id', '42', '--keep-data'])).toMatchObject({ keepData: true });
    expect(parseLifecycleArgs('delete', ['default/web', '--container-id', '42'])).toMatchObject({ keepData: false });
    expect(() => parseLifecycleArgs('stop', ['default/web', '--keep-data'])).toThrow(UsageError);
  });

  it('reconfigure PROVIDER_ID --container-id ID --storage-gb N is a change of storageGb', () => {
    expect(parseLifecycleArgs('reconfigure', ['default/web', '--container-id', '42', '--storage-gb', '80'])).toMatchObject({
      containerId: '42',
      changes: { storageGb: 80 },
    });
  });
});
