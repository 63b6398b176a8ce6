// reconfigure()'s input: validation with creation's field rules, and the pure application
// of the changes to a live container (shaped as the API server returns it: quantities
// canonicalised, empty env values dropped). No cluster, no fake.
import type { V1Container } from '../../src/kube/objects.js';
import { describe, expect, it } from 'vitest';
import { InvalidSpecError } from '../../src/errors/input.js';
import { coresOf, mebibytesOf, quantityUnits } from '../../src/input/parse-quantity.js';
import { applyChanges, parseWorkloadChanges } from '../../src/workload/operations/workload-changes.js';

/** The container of buildDeployment() as kube-apiserver stores it (cpus 1, 1024 MiB, EMPTY=""). */
const live: V1Container = {
  name: 'web',
  image: 'docker.io/library/nginx:1.27',
  command: ['nginx', '-g', 'daemon off;'],
  env: [{ name: 'EMPTY' }, { name: 'GREETING', value: 'hello' }],
  resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } },
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'File',
  imagePullPolicy: 'IfNotPresent',
};

function issuesOf(input: unknown): { path: string; message: string }[] {
  try {
    parseWorkloadChanges(input);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidSpecError);
    return [...(error as InvalidSpecError).issues];
  }
  throw new Error('expected InvalidSpecError');
}

describe('quantities read back as numbers', () => {
  it.each([
    ['1', 1],
    ['250m', 0.25],
    ['1500m', 1.5],
    ['1e3', 1000],
    ['2k', 2000],
    ['0.5', 0.5],
  ])('%s -> %d cores', (text, value) => expect(coresOf(text)).toBe(value));
  it.each([
    ['1Gi', 2 ** 30],
    ['256Mi', 256 * 2 ** 20],
  ])('%s -> %d bytes', (text, value) => expect(quantityUnits(text)).toBe(value));
  it.each(['', 'abc', '1 Gi', '1GiB', '--1'])('rejects %j', (text) => {
    expect(coresOf(text)).toBeUndefined();
    expect(mebibytesOf(text)).toBeUndefined();
  });
  it('reads canonical forms back into Manager units', () => {
    expect(coresOf('1')).toBe(1);
    expect(coresOf('100m')).toBe(0.1);
    expect(mebibytesOf('1Gi')).toBe(1024);
    expect(mebibytesOf('1536Mi')).toBe(1536);
  });
});

describe('parseWorkloadChanges', () => {
  it('accepts every field, splits the entrypoint like shell words, keeps null as a reset', () => {
    expect(
      parseWorkloadChanges({
        env: { A: '1', EMPTY: '' },
        unsetEnv: ['OLD'],
        entrypoint: 'sh -c "echo hi"',
        args: ['-v'],
        cpus: 0.5,
        memoryMb: 512,
        image: 'nginx:1.28',
      }),
    ).toEqual({
      env: { A: '1', EMPTY: '' },
      unsetEnv: ['OLD'],
      entrypoint: ['sh', '-c', 'echo hi'],
      args: ['-v'],
      cpus: 0.5,
      memoryMb: 512,
      image: 'nginx:1.28',
    });
    expect(parseWorkloadChanges({ entrypoint: null, args: null })).toEqual({ env: {}, unsetEnv: [], entrypoint: null, args: null });
    expect(parseWorkloadChanges({})).toEqual({ env: {}, unsetEnv: [] });
  });

  it('names every bad field with creation’s rules, all at once', () => {
    const issues = issuesOf({
      cpus: 0,
      memoryMb: 1.5,
      image: 'UPPER/Case',
      env: { '1BAD': 'x' },
      unsetEnv: ['has space'],
      entrypoint: 'a "b',
    });
    const paths = issues.map((issue) => issue.path).sort();
    expect(paths).toEqual(['cpus', 'entrypoint', 'env.1BAD', 'image', 'memoryMb', 'unsetEnv.0']);
    expect(issues.find((issue) => issue.path === 'cpus')?.message).toBe('must be greater than 0 (got 0)');
    expect(issues.find((issue) => issue.path === 'memoryMb')?.message).toBe('must be a whole number of MB (MiB) (got 1.5)');
    expect(issues.find((issue) => issue.path === 'unsetEnv.0')?.message).toMatch(/environment variable name/);
  });

  it('refuses unknown fields (a typo never passes silently) and non-objects', () => {
    expect(issuesOf({ memory: 512 })).toEqual([{ path: 'memory', message: expect.stringMatching(/not a field reconfigure can change/) }]);
    expect(issuesOf({ hostname: 'other' })[0]?.path).toBe('hostname');
    expect(issuesOf('cpus=2')).toEqual([{ path: '', message: 'must be an object of the fields to change (got "cpus=2")' }]);
  });

  it('refuses setting and unsetting the same variable', () => {
    expect(issuesOf({ env: { A: '1' }, unsetEnv: ['B', 'A'] })).toEqual([{ path: 'unsetEnv.1', message: 'A is also set in env' }]);
  });
});

describe('applyChanges', () => {
  it('changes only what differs, reporting it in the spec’s words; the input is not modified', () => {
    const before = structuredClone(live);
    const { container, fields } = applyChanges(
      live,
      parseWorkloadChanges({ image: 'nginx:1.28', env: { GREETING: 'hi', NEW: 'x' }, unsetEnv: ['EMPTY'], cpus: 2 }),
    );
    expect(fields).toEqual(['image', 'env.EMPTY', 'env.GREETING', 'env.NEW', 'cpus']);
    expect(container.image).toBe('nginx:1.28');
    expect(container.env).toEqual([
      { name: 'GREETING', value: 'hi' },
      { name: 'NEW', value: 'x' },
    ]);
    expect(container.resources).toEqual({ limits: { cpu: '2000m', memory: '1Gi' }, requests: { cpu: '2000m', memory: '1Gi' } });
    expect(container.terminationMessagePath).toBe('/dev/termination-log');
    expect(live).toEqual(before);
  });

  it('sees no change where the server only wrote the same value differently ("1" cores, "1Gi", an empty value left out)', () => {
    const { fields } = applyChanges(
      live,
      parseWorkloadChanges({ cpus: 1, memoryMb: 1024, env: { EMPTY: '', GREETING: 'hello' }, entrypoint: 'nginx -g "daemon off;"' }),
    );
    expect(fields).toEqual([]);
    expect(applyChanges(live, parseWorkloadChanges({ unsetEnv: ['NOT_THERE'] })).fields).toEqual([]);
  });

  it('resets the entrypoint and args to the image’s own with null', () => {
    const withArgs = { ...live, args: ['-T'] };
    const { container, fields } = applyChanges(withArgs, parseWorkloadChanges({ entrypoint: null, args: null }));
    expect(fields).toEqual(['entrypoint', 'args']);
    expect(container.command).toBeUndefined();
    expect(container.args).toBeUndefined();
  });

  it('replaces a variable taken from a reference with the plain value asked for', () => {
    const fromSecret = { ...live, env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] };
    const { container, fields } = applyChanges(fromSecret, parseWorkloadChanges({ env: { TOKEN: 'plain' } }));
    expect(fields).toEqual(['env.TOKEN']);
    expect(container.env).toEqual([{ name: 'TOKEN', value: 'plain' }]);
  });

  it('sets requests and limits together (Guaranteed QoS), also when only one of them differed', () => {
    const skewed = { ...live, resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } } };
    const { container, fields } = applyChanges(skewed, parseWorkloadChanges({ cpus: 1 }));
    expect(fields).toEqual(['cpus']);
    expect(container.resources?.requests?.cpu).toBe('1000m');
    expect(container.resources?.limits?.cpu).toBe('1000m');
  });
});
