// Every refusal names the value it refused (src/input/given.ts), except a value the
// container receives as is, which may hold a credential. Pure functions: no cluster.
import { describe, expect, it } from 'vitest';
import { InvalidSpecError } from '../../../src/errors/input.js';
import { describeValue, withGiven } from '../../../src/input/given.js';
import { parseWorkloadSpec } from '../../../src/input/workload-spec.js';

const base = { containerId: 1, nodeId: 1, hostname: 'web', image: 'nginx:1.27', cpus: 1, memoryMb: 64 };

function messageOf(input: unknown): string {
  try {
    parseWorkloadSpec(input);
  } catch (error) {
    if (error instanceof InvalidSpecError) return error.message;
    throw error;
  }
  throw new Error('accepted');
}

describe('a refusal names the value given', () => {
  it('names a refused Service type, storage seed and runtime class', () => {
    expect(messageOf({ ...base, ports: [{ port: 22 }], serviceType: 'External' })).toBe(
      'Invalid workload spec: serviceType: must be "ClusterIP", "LoadBalancer" or "NodePort" (got "External")',
    );
    expect(messageOf({ ...base, storage: { sizeGb: 1, seed: 'copy' } })).toContain(
      'storage.seed: must be one of: image, empty (got "copy")',
    );
    expect(messageOf({ ...base, runtimeClass: 'Bad_Name' })).toMatch(/runtimeClass: must be a DNS-1123 subdomain.* \(got "Bad_Name"\)$/);
  });

  it('shows a string quoted on one line, a long one cut, a list or object by its kind', () => {
    expect(describeValue('a\nb')).toBe('"a\\nb"');
    expect(describeValue('x'.repeat(200))).toBe(`"${'x'.repeat(80)}..." (200 characters)`);
    expect(describeValue([1])).toBe('a list');
    expect(describeValue({})).toBe('an object');
    expect(describeValue(null)).toBe('null');
  });

  it('does not repeat a value the message names already, nor invent one for an absent field', () => {
    expect(withGiven('must be from 1 to 65535 (got 70000)', { port: 70000 }, ['port'])).toBe('must be from 1 to 65535 (got 70000)');
    expect(withGiven('is required', {}, ['image'])).toBe('is required');
  });

  it('never shows a variable value or an argument: they may hold a credential', () => {
    const message = messageOf({ ...base, env: { PASSWORD: 'hunter2\0' }, args: ['--token=s3cr3t\0'] });
    expect(message).toContain('env.PASSWORD: must not contain a NUL character');
    expect(message).toContain('args.0: must not contain a NUL character');
    expect(message).not.toContain('hunter2');
    expect(message).not.toContain('s3cr3t');
  });
});
