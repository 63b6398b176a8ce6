import { describe, expect, it } from 'vitest';
import { InvalidSpecError } from '../../src/errors/input.js';
import type { SpecIssue } from '../../src/errors/input.js';
import { imageReferenceProblem, isValidImageReference, parseImageReference } from '../../src/input/image-reference.js';
import { MAX_CPUS, MAX_MEMORY_MB, parseWorkloadSpec, workloadSpecSchema } from '../../src/input/workload-spec.js';

const HEX64 = '0123456789abcdef'.repeat(4);

function validInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    containerId: 42,
    nodeId: 7,
    hostname: 'web-1',
    image: 'nginx:1.27',
    cpus: 2,
    memoryMb: 1024,
    ...overrides,
  };
}

function issuesOf(input: unknown): readonly SpecIssue[] {
  try {
    parseWorkloadSpec(input);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidSpecError);
    return (error as InvalidSpecError).issues;
  }
  throw new Error('expected parseWorkloadSpec to throw InvalidSpecError');
}

/** The issues for one field of an otherwise valid input. */
function fieldIssues(field: string, value: unknown): readonly SpecIssue[] {
  return issuesOf(validInput({ [field]: value }));
}

describe('parseWorkloadSpec: a valid spec', () => {
  it('normalises numeric IDs to strings, defaults env to {} and leaves optional fields out', () => {
    expect(parseWorkloadSpec(validInput())).toEqual({
      containerId: '42',
      nodeId: '7',
      hostname: 'web-1',
      image: 'nginx:1.27',
      cpus: 2,
      memoryMb: 1024,
      env: {},
    });
    const keys = Object.keys(parseWorkloadSpec(validInput({ entrypoint: null, args: null, namespace: null })));
    expect(keys).not.toContain('entrypoint');
    expect(keys).not.toContain('args');
    expect(keys).not.toContain('namespace');
  });

  it('keeps every optional field when given', () => {
    const spec = parseWorkloadSpec(validInput({ env: { A: '1' }, entrypoint: ['/bin/app'], args: ['--port', '80'], namespace: 'team-a' }));
    expect(spec).toMatchObject({ env: { A: '1' }, entrypoint: ['/bin/app'], args: ['--port', '80'], namespace: 'team-a' });
  });

  it('exports the zod schema, which reports the same problems', () => {
    expect(workloadSpecSchema.safeParse(validInput()).success).toBe(true);
    expect(workloadSpecSchema.safeParse(validInput({ cpus: 0 })).success).toBe(false);
  });
});

describe('containerId and nodeId', () => {
  it.each(['containerId', 'nodeId'])('%s accepts a positive integer or a label-safe string', (field) => {
    expect(parseWorkloadSpec(validInput({ [field]: 1 }))[field as 'nodeId']).toBe('1');
    expect(parseWorkloadSpec(validInput({ [field]: 123456 }))[field as 'nodeId']).toBe('123456');
    expect(parseWorkloadSpec(validInput({ [field]: 'abc-1.2_X' }))[field as 'nodeId']).toBe('abc-1.2_X');
    expect(parseWorkloadSpec(validInput({ [field]: 'a'.repeat(63) }))[field as 'nodeId']).toHaveLength(63);
  });

  it.each([
    ['zero', 0],
    ['a negative number', -3],
    ['a fraction', 1.5],
    ['NaN', Number.NaN],
    ['an unsafe integer', 2 ** 53],
    ['an empty string', ''],
    ['a 64-character string', 'a'.repeat(64)],
    ['a string with a space', 'a b'],
    ['a string starting with "-"', '-a'],
    ['a string ending with "."', 'a.'],
    ['a string with "/"', 'a/b'],
    ['a boolean', true],
    ['null', null],
  ])('containerId rejects %s', (_label, value) => {
    const issues = fieldIssues('containerId', value);
    expect(issues).toHaveLength(1);
    expect(issues[0]?.path).toBe('containerId');
  });

  it('names the label value rule when a string breaks it', () => {
    expect(fieldIssues('nodeId', 'a b')[0]?.message).toMatch(/label value.*1-63 characters.*it contains " "/);
  });

  it('says a missing ID is required', () => {
    const { containerId: _omitted, ...input } = validInput();
    expect(issuesOf(input)).toEqual([{ path: 'containerId', message: 'is required' }]);
  });
});

describe('hostname', () => {
  it.each(['a', 'web', 'web-1', '1web', 'a'.repeat(63), 'a-b-c-9'])('accepts %j', (hostname) => {
    expect(parseWorkloadSpec(validInput({ hostname })).hostname).toBe(hostname);
  });

  it.each([
    ['64 characters', 'a'.repeat(64), /it has 64 characters/],
    ['a leading "-"', '-web', /starts or ends/],
    ['a trailing "-"', 'web-', /starts or ends/],
    ['uppercase', 'Web', /it contains "W"/],
    ['an underscore', 'web_1', /it contains "_"/],
    ['a dot', 'web.example', /it contains "."/],
    ['an empty string', '', /it is empty/],
  ])('rejects %s', (_label, hostname, detail) => {
    const issues = fieldIssues('hostname', hostname);
    expect(issues).toHaveLength(1);
    expect(issues[0]?.path).toBe('hostname');
    expect(issues[0]?.message).toMatch(/^must be a DNS-1123 label: lowercase letters, digits and '-', 1-63 characters/);
    expect(issues[0]?.message).toMatch(detail);
  });

  it('rejects a non-string', () => {
    expect(fieldIssues('hostname', 5)).toEqual([{ path: 'hostname', message: 'must be a string (got 5)' }]);
  });
});

describe('image', () => {
  const valid = [
    'nginx',
    'nginx:1.27',
    'docker.io/library/nginx:latest',
    'registry.example.com:5000/team/sub/app:v1.2.3',
    'localhost:5000/app',
    `ghcr.io/org/app@sha256:${HEX64}`,
    `ghcr.io/org/app:1.0@sha256:${HEX64}`,
    '[::1]:5000/app:tag',
    '192.168.1.10:5000/app',
    'localhost/app',
    'my_org/my__app/a-b--c.d:Tag_1.0-rc',
    `app@sha512:${HEX64}${HEX64}`,
  ];

  it.each(valid)('accepts %j and keeps it verbatim', (image) => {
    expect(isValidImageReference(image)).toBe(true);
    expect(parseWorkloadSpec(validInput({ image })).image).toBe(image);
  });

  it.each([
    ['', /must not be empty/],
    [' nginx', /whitespace/],
    ['nginx ', /whitespace/],
    ['app:tag with space', /whitespace/],
    ['Nginx', /repository path "Nginx" must be lowercase/],
    ['ghcr.io/Org/app', /repository path "Org\/app" must be lowercase/],
    ['app:', /the tag "" must be 1-128/],
    ['app@', /digest after "@"/],
    ['app@sha256:abc', /digest after "@" must be an algorithm, ":" and at least 32 hex digits/],
    [`app@sha256:${HEX64.slice(1)}`, /exactly 64 hex digits, not 63/],
    [`app@sha256:${HEX64}0`, /exactly 64/],
    [`app@sha256:${HEX64.toUpperCase()}`, /lowercase hex/],
    [`app@md5:${HEX64}`, /sha256, sha384 or sha512/],
    ['app:.tag', /the tag/],
    [`app:${'t'.repeat(129)}`, /the tag/],
    ['/app', /empty component/],
    ['team//app', /empty component/],
    ['app/', /empty component/],
    ['te$m/app', /path component "te\$m"/],
    ['a-/app', /path component "a-"/],
    ['registry.example.com:/app', /the registry "registry.example.com:" must be a host name/],
    ['-bad.example.com/app', /the registry "-bad.example.com"/],
    ['[zz]:5000/app', /the registry "\[zz\]:5000"/],
    [`${'a'.repeat(248)}`, /at most 255 characters \(it has 256, "library\/" included\)/],
    [`example.com/${'a'.repeat(4096)}`, /at most 255 characters/],
  ])('rejects %j, naming the rule', (image, rule) => {
    expect(isValidImageReference(image)).toBe(false);
    expect(imageReferenceProblem(image)).toMatch(rule);
    const issues = fieldIssues('image', image);
    expect(issues).toHaveLength(1);
    expect(issues[0]?.path).toBe('image');
    expect(issues[0]?.message).toMatch(rule);
  });

  it.each([
    ['nginx', { registry: undefined, repository: 'nginx', tag: undefined, digest: undefined }],
    ['library/nginx:1.27', { registry: undefined, repository: 'library/nginx', tag: '1.27', digest: undefined }],
    ['docker.io/library/nginx:latest', { registry: 'docker.io', repository: 'library/nginx', tag: 'latest', digest: undefined }],
    [
      'registry.example.com:5000/team/sub/app',
      { registry: 'registry.example.com:5000', repository: 'team/sub/app', tag: undefined, digest: undefined },
    ],
    ['localhost/app', { registry: 'localhost', repository: 'app', tag: undefined, digest: undefined }],
    ['[::1]:5000/app:tag', { registry: '[::1]:5000', repository: 'app', tag: 'tag', digest: undefined }],
    [`ghcr.io/org/app:1.0@sha256:${HEX64}`, { registry: 'ghcr.io', repository: 'org/app', tag: '1.0', digest: `sha256:${HEX64}` }],
  ])('parseImageReference takes %j apart the way the validation reads it', (image, parts) => {
    expect(parseImageReference(image)).toEqual(parts);
  });

  it('parseImageReference refuses what the validation refuses, with InvalidSpecError on path image naming the rule', () => {
    expect(() => parseImageReference('ghcr.io/Org/app')).toThrow(InvalidSpecError);
    expect(() => parseImageReference('ghcr.io/Org/app')).toThrow(/image: the repository path "Org\/app" must be lowercase/);
    expect(() => parseImageReference(3 as unknown as string)).toThrow(/image: must be a string/);
  });

  it('rejects a non-string and a missing image', () => {
    expect(fieldIssues('image', 3)[0]?.message).toMatch(/must be a string/);
    expect(fieldIssues('image', undefined)).toEqual([{ path: 'image', message: 'is required' }]);
  });
});

describe('cpus', () => {
  it.each([0.001, 0.5, 1, 2, 0.1 + 0.2, MAX_CPUS])('accepts %s', (cpus) => {
    expect(parseWorkloadSpec(validInput({ cpus })).cpus).toBe(cpus);
  });

  it.each([
    [0, /greater than 0/],
    [-1, /greater than 0/],
    [0.0005, /at least 0.001/],
    [1.0005, /multiple of 0.001/],
    [MAX_CPUS + 1, new RegExp(`at most ${MAX_CPUS}`)],
    [Number.NaN, /finite number/],
    [Number.POSITIVE_INFINITY, /finite number/],
    ['1', /finite number/],
  ])('rejects %s', (cpus, rule) => {
    const issues = fieldIssues('cpus', cpus);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ path: 'cpus', message: expect.stringMatching(rule) });
  });
});

describe('memoryMb', () => {
  it.each([1, 1024, 4096, MAX_MEMORY_MB])('accepts %s', (memoryMb) => {
    expect(parseWorkloadSpec(validInput({ memoryMb })).memoryMb).toBe(memoryMb);
  });

  it.each([
    [0, /greater than 0/],
    [-1, /greater than 0/],
    [1.5, /whole number/],
    [MAX_MEMORY_MB + 1, /at most/],
    [Number.NaN, /finite whole number/],
    ['1024', /finite whole number/],
  ])('rejects %s', (memoryMb, rule) => {
    expect(fieldIssues('memoryMb', memoryMb)).toEqual([{ path: 'memoryMb', message: expect.stringMatching(rule) }]);
  });
});

describe('env', () => {
  it('accepts good names and string values, including the empty string', () => {
    const env = { PATH: '/usr/bin', _private: 'x', a1_B2: '', LANG: 'C.UTF-8 with spaces' };
    expect(parseWorkloadSpec(validInput({ env })).env).toEqual(env);
  });

  it('treats null as no variables', () => {
    expect(parseWorkloadSpec(validInput({ env: null })).env).toEqual({});
  });

  it('reports every bad name and value at env.<NAME>', () => {
    const issues = fieldIssues('env', { '1A': 'x', 'A-B': 'y', '': 'z', NUM: 3, NUL: 'a\u0000b', OK: 'fine' });
    expect(issues).toEqual([
      { path: 'env.1A', message: expect.stringMatching(/environment variable name/) },
      { path: 'env.A-B', message: expect.stringMatching(/environment variable name/) },
      { path: 'env.""', message: expect.stringMatching(/environment variable name/) },
      { path: 'env.NUM', message: 'must be a string (empty allowed)' },
      { path: 'env.NUL', message: 'must not contain a NUL character' },
    ]);
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])(
    'keeps a variable named %j (an Object.prototype name) as a variable',
    (name) => {
      const env: unknown = JSON.parse(`{${JSON.stringify(name)}: "x", "A": "1"}`);
      const spec = parseWorkloadSpec(validInput({ env }));
      expect(Object.keys(spec.env).sort()).toEqual(['A', name].sort());
      expect(Object.getOwnPropertyDescriptor(spec.env, name)?.value).toBe('x');
      expect(JSON.parse(JSON.stringify(spec.env))).toEqual(JSON.parse(`{${JSON.stringify(name)}: "x", "A": "1"}`));
    },
  );

  it('refuses a symbol key instead of dropping it', () => {
    expect(fieldIssues('env', { A: '1', [Symbol('x')]: 'y' })[0]?.message).toMatch(/symbol key/);
  });

  it('gives every spec its own env object', () => {
    const first = parseWorkloadSpec(validInput());
    first.env.CHANGED = 'yes';
    expect(parseWorkloadSpec(validInput()).env).toEqual({});
  });

  it.each([[['A=1']], ['A=1'], [5]])('rejects a non-object (%j)', (env) => {
    expect(fieldIssues('env', env)).toEqual([{ path: 'env', message: expect.stringMatching(/must be an object/) }]);
  });
});

describe('entrypoint', () => {
  it('splits one string like shell words, respecting quotes', () => {
    expect(parseWorkloadSpec(validInput({ entrypoint: `sh -c 'echo "hello world"'` })).entrypoint).toEqual([
      'sh',
      '-c',
      'echo "hello world"',
    ]);
  });

  it('splits a Manager-style Entrypoint+Cmd line', () => {
    expect(parseWorkloadSpec(validInput({ entrypoint: 'docker-entrypoint.sh postgres' })).entrypoint).toEqual([
      'docker-entrypoint.sh',
      'postgres',
    ]);
  });

  it('keeps an argv array as given, including empty later arguments', () => {
    const entrypoint = ['/bin/app', '--flag', '', 'two words'];
    expect(parseWorkloadSpec(validInput({ entrypoint })).entrypoint).toEqual(entrypoint);
  });

  it('copies the argv array rather than aliasing the input', () => {
    const entrypoint = ['/bin/app'];
    const args = ['--a'];
    const spec = parseWorkloadSpec(validInput({ entrypoint, args }));
    entrypoint.push('changed');
    args.push('changed');
    expect(spec.entrypoint).toEqual(['/bin/app']);
    expect(spec.args).toEqual(['--a']);
  });

  it('treats null and undefined as absent', () => {
    expect(parseWorkloadSpec(validInput({ entrypoint: null }))).not.toHaveProperty('entrypoint');
    expect(parseWorkloadSpec(validInput({ entrypoint: undefined }))).not.toHaveProperty('entrypoint');
  });

  it.each([
    ['an empty string', '', 'entrypoint', /must not be empty or blank/],
    ['a blank string', ' \t ', 'entrypoint', /must not be empty or blank/],
    ['an empty list', [], 'entrypoint', /must not be an empty list/],
    ['an unterminated quote', 'sh -c "echo', 'entrypoint', /cannot be split into words: Unterminated double quote/],
    ['a trailing backslash', 'run \\', 'entrypoint', /Trailing backslash/],
    ['an empty command word', "'' x", 'entrypoint.0', /first word/],
    ['an empty command in a list', [''], 'entrypoint.0', /first word/],
    ['a non-string element', ['run', 5], 'entrypoint.1', /must be a string/],
    ['a NUL character', ['run', 'a\u0000'], 'entrypoint.1', /NUL/],
    ['a number', 5, 'entrypoint', /command line string or a list of strings/],
  ])('rejects %s', (_label, entrypoint, path, rule) => {
    expect(fieldIssues('entrypoint', entrypoint)).toEqual([{ path, message: expect.stringMatching(rule) }]);
  });
});

describe('args', () => {
  it('accepts an argv array and treats null as absent', () => {
    expect(parseWorkloadSpec(validInput({ args: ['-c', ''] })).args).toEqual(['-c', '']);
    expect(parseWorkloadSpec(validInput({ args: null }))).not.toHaveProperty('args');
  });

  it.each([
    ['a string', '-c x', 'args', /list of strings/],
    ['an empty list', [], 'args', /empty list/],
    ['a non-string element', ['a', 1], 'args.1', /must be a string/],
    // eslint-disable-next-line no-sparse-arrays -- the hole is the case under test
    ['a sparse list (a hole, not null)', ['a', , 'b'], 'args.1', /is missing \(a hole in a sparse list\)/],
  ])('rejects %s', (_label, args, path, rule) => {
    expect(fieldIssues('args', args)).toEqual([{ path, message: expect.stringMatching(rule) }]);
  });

  it('refuses a sparse entrypoint too, instead of sending null', () => {
    // eslint-disable-next-line no-sparse-arrays -- the hole is the case under test
    expect(fieldIssues('entrypoint', ['/bin/app', , '-x'])).toEqual([{ path: 'entrypoint.1', message: expect.stringMatching(/hole/) }]);
    expect(fieldIssues('args', new Array<string>(2))).toEqual([
      { path: 'args.0', message: expect.stringMatching(/hole/) },
      { path: 'args.1', message: expect.stringMatching(/hole/) },
    ]);
  });
});

describe('namespace', () => {
  it.each(['default', 'team-a', 'a'.repeat(63)])('accepts %j', (namespace) => {
    expect(parseWorkloadSpec(validInput({ namespace })).namespace).toBe(namespace);
  });

  it.each(['', 'Team', 'team_a', 'a'.repeat(64), '-a'])('rejects %j', (namespace) => {
    expect(fieldIssues('namespace', namespace)).toEqual([{ path: 'namespace', message: expect.stringMatching(/DNS-1123 label/) }]);
  });
});

describe('whole-input rules', () => {
  it('reports ALL problems at once, each with its path', () => {
    const issues = issuesOf({
      containerId: 0,
      nodeId: 'a b',
      hostname: 'Bad_Host',
      image: 'ghcr.io/Org/app',
      cpus: Number.NaN,
      memoryMb: 1.5,
      env: { 'A-B': 'x' },
      entrypoint: '',
      args: [1],
      namespace: 'NS',
    });
    expect(issues.map((issue) => issue.path)).toEqual([
      'containerId',
      'nodeId',
      'hostname',
      'image',
      'cpus',
      'memoryMb',
      'env.A-B',
      'entrypoint',
      'args.0',
      'namespace',
    ]);
    expect(issues.every((issue) => issue.message.length > 0)).toBe(true);
  });

  it('rejects unknown keys, naming each one, alongside other problems', () => {
    const issues = issuesOf(validInput({ memory: 1024, hostName: 'x', cpus: 0 }));
    expect(issues).toEqual([
      { path: 'cpus', message: expect.stringMatching(/greater than 0/) },
      { path: 'memory', message: expect.stringMatching(/^is not a known field \(allowed: .*memoryMb/) },
      { path: 'hostName', message: expect.stringMatching(/^is not a known field/) },
    ]);
  });

  it('lists every missing required field', () => {
    expect(issuesOf({}).map((issue) => issue.path)).toEqual(['containerId', 'nodeId', 'hostname', 'image', 'cpus', 'memoryMb']);
  });

  it.each([
    [null, ' (got null)'],
    [undefined, ''],
    ['spec', ' (got "spec")'],
    [42, ' (got 42)'],
    [[validInput()], ' (got a list)'],
  ])('rejects a non-object input (%j), naming it', (input, given) => {
    expect(issuesOf(input)).toEqual([{ path: '', message: `must be an object with the workload's fields${given}` }]);
  });

  it('puts the issues in the error message too', () => {
    expect(() => parseWorkloadSpec(validInput({ cpus: 0 }))).toThrow(/Invalid workload spec: cpus: must be greater than 0/);
  });
});
