import { describe, expect, it } from 'vitest';
import { InvalidSpecError } from '../../../src/errors/input.js';
import { formatProviderId, parseProviderId } from '../../../src/input/provider-id.js';

function issuesOf(action: () => unknown): readonly { path: string; message: string }[] {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidSpecError);
    return (error as InvalidSpecError).issues;
  }
  throw new Error('expected InvalidSpecError');
}

describe('formatProviderId', () => {
  it('joins namespace and Deployment name with one slash', () => {
    expect(formatProviderId('default', 'web-1')).toBe('default/web-1');
    expect(formatProviderId('team-a', 'db')).toBe('team-a/db');
  });

  it('rejects parts that are not DNS-1123 labels, reporting each part', () => {
    const issues = issuesOf(() => formatProviderId('Team_A', ''));
    expect(issues.map((issue) => issue.path)).toEqual(['namespace', 'name']);
    expect(issues[0]?.message).toMatch(/DNS-1123 label/);
    expect(issues[1]?.message).toMatch(/it is empty/);
  });

  it('rejects a name with a slash, which would make the ID ambiguous', () => {
    expect(issuesOf(() => formatProviderId('default', 'a/b'))[0]?.path).toBe('name');
  });

  it('rejects a 64-character name', () => {
    expect(() => formatProviderId('default', 'a'.repeat(64))).toThrow(/it has 64 characters/);
  });
});

describe('parseProviderId', () => {
  it('splits namespace/name', () => {
    expect(parseProviderId('default/web-1')).toEqual({ namespace: 'default', name: 'web-1' });
  });

  it('round-trips with formatProviderId', () => {
    const id = formatProviderId('kube-system', 'manager-42');
    expect(formatProviderId(parseProviderId(id).namespace, parseProviderId(id).name)).toBe(id);
  });

  it.each(['', 'web', 'a/b/c', 'default//web', 'default/web/'])('rejects %j: not exactly two parts joined by one slash', (id) => {
    expect(issuesOf(() => parseProviderId(id))).toEqual([
      { path: 'providerId', message: `must be "namespace/deployment-name" (got ${JSON.stringify(id)})` },
    ]);
  });

  it.each([
    ['/web', 'namespace'],
    ['default/', 'name'],
  ])('rejects %j: its %s part is empty', (id, part) => {
    const issues = issuesOf(() => parseProviderId(id));
    expect(issues).toHaveLength(1);
    expect(issues[0]?.message).toMatch(new RegExp(`^its ${part} part .*\\(it is empty\\)$`));
  });

  it.each(['Default/web', 'default/Web', 'default/web_1', 'default/-web', 'default/ web'])(
    'rejects %j: a part is not a DNS-1123 label',
    (id) => {
      const issues = issuesOf(() => parseProviderId(id));
      expect(issues[0]).toMatchObject({ path: 'providerId', message: expect.stringMatching(/DNS-1123 label/) });
    },
  );

  it('names which part is wrong', () => {
    const issues = issuesOf(() => parseProviderId('BAD/worse_'));
    expect(issues.map((issue) => issue.message.split(' ').slice(0, 2).join(' '))).toEqual(['its namespace', 'its name']);
  });
});
