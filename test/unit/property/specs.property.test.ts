// Property: whatever a caller hands over, provision$ either refuses it with a typed error
// before any request (InvalidSpecError naming each field, one line each), or sends a
// manifest the API server takes as is (test/support/api-validity.ts, itself checked against
// the real API server in the integration suite), and equal input always gives the
// byte-identical manifest. The spec-file path of the CLI reaches the same verdict as the
// library for the same JSON. 10,000 generated inputs per run. Unit test: a stub client
// that records the one request and answers nothing.
import fc from 'fast-check';
import { lastValueFrom } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import type { V1Deployment } from '../../../src/kube/objects.js';
import { parseCreateArgs } from '../../../src/cli/args.js';
import { InvalidSpecError } from '../../../src/errors/input.js';
import { KubeProvisionerError } from '../../../src/errors/base.js';
import type { KubernetesClient } from '../../../src/kube/client.js';
import { parseWorkloadSpec } from '../../../src/input/workload-spec.js';
import { provision$ } from '../../../src/workload/operations/provision.js';
import { hasControlCharacters } from '../../../src/text.js';
import { apiServerProblems } from '../../support/api-validity.js';
import { faithfulCopy, specInputs } from '../../support/spec-arbitraries.js';

const RUNS = 10_000;
const FIELDS = new Set(['containerId', 'nodeId', 'hostname', 'image', 'cpus', 'memoryMb', 'env', 'entrypoint', 'args', 'namespace']);

/** Sent instead of an answer: the request was made, and that is all this test needs. */
class Recorded extends Error {}

function stubClient(sent: V1Deployment[]): KubernetesClient {
  const unused = () => Promise.reject(new Error('not used'));
  return {
    namespace: 'default',
    server: 'https://stub.invalid',
    create: (_kind, _namespace, body) => {
      sent.push(body as V1Deployment);
      return Promise.reject(new Recorded());
    },
    read: unused,
    list: unused,
    watch: () => ({ abort: () => {} }),
    version: unused,
    selfSubjectReview: unused,
    selfSubjectAccessReview: unused,
    readNamespace: unused,
    listLimitRanges: unused,
    listResourceQuotas: unused,
    patch: unused,
    delete: unused,
    connection: { kubeconfigPath: '(stub)', context: 'stub', server: 'https://stub.invalid', tlsVerify: true, customCa: false },
  };
}

type Verdict = { readonly manifest: string } | { readonly rejected: InvalidSpecError | KubeProvisionerError };

/** What provision$ does with `input`: the JSON it sends, or the typed error it ends with before sending. */
async function verdict(input: unknown): Promise<Verdict> {
  const sent: V1Deployment[] = [];
  try {
    await lastValueFrom(provision$(stubClient(sent), input));
  } catch (error) {
    if (error instanceof Recorded) {
      expect(sent).toHaveLength(1);
      return { manifest: JSON.stringify(sent[0]) };
    }
    expect(sent, 'a refused input must not reach the API').toHaveLength(0);
    if (error instanceof KubeProvisionerError) return { rejected: error };
    throw error;
  }
  throw new Error('provision$ completed against a stub that answers nothing');
}

const figures = {
  inputs: 0,
  accepted: 0,
  rejected: 0,
  manifestsChecked: 0,
  determinismChecks: 0,
  specFileAgreements: 0,
  apiProblems: 0,
  rejectedByField: Object.create(null) as Record<string, number>,
};

afterAll(() => console.log(`[reliability] specs: ${JSON.stringify(figures)}`));

describe('property: every input is refused typed, or becomes a manifest the API server takes, identically', () => {
  it(`${RUNS} generated inputs`, async () => {
    await fc.assert(
      fc.asyncProperty(specInputs, async (input) => {
        figures.inputs += 1;
        const first = await verdict(input);
        const again = await verdict(faithfulCopy(input));
        figures.determinismChecks += 1;
        if ('manifest' in first) {
          figures.accepted += 1;
          figures.manifestsChecked += 1;
          const problems = apiServerProblems(JSON.parse(first.manifest));
          figures.apiProblems += problems.length;
          expect(problems).toEqual([]);
          // Equal input, byte-identical manifest.
          expect(again).toEqual(first);
        } else {
          figures.rejected += 1;
          const error = first.rejected;
          expect(error).toBeInstanceOf(InvalidSpecError);
          const issues = (error as InvalidSpecError).issues;
          expect(issues.length).toBeGreaterThan(0);
          for (const issue of issues) {
            expect(typeof issue.path).toBe('string');
            expect(issue.message).not.toBe('');
            const top = issue.path.split('.')[0] ?? '';
            const field = FIELDS.has(top) ? top : top === '' ? '(not an object)' : '(unknown key or list index)';
            figures.rejectedByField[field] = (figures.rejectedByField[field] ?? 0) + 1;
          }
          // One line, whatever the input held.
          expect(hasControlCharacters(error.message)).toBe(false);
          expect('rejected' in again && again.rejected.message).toBe(error.message);
        }

        // The CLI's spec file takes the same path: for the same JSON, the same verdict.
        if (input !== null && typeof input === 'object' && !Array.isArray(input)) {
          const json = JSON.stringify(input);
          const fromJson: unknown = JSON.parse(json);
          let library: string;
          try {
            library = JSON.stringify(parseWorkloadSpec(fromJson));
          } catch (error) {
            library = (error as Error).message;
          }
          let cli: string;
          try {
            const command = parseCreateArgs(['-f', '-'], () => json);
            cli = command === 'help' ? 'help' : JSON.stringify(parseWorkloadSpec(command.spec));
          } catch (error) {
            cli = (error as Error).message;
          }
          expect(cli).toBe(library);
          figures.specFileAgreements += 1;
        }
      }),
      { numRuns: RUNS },
    );
    expect(figures.apiProblems).toBe(0);
    // The generator reaches both sides.
    expect(figures.accepted).toBeGreaterThan(RUNS / 20);
    expect(figures.rejected).toBeGreaterThan(RUNS / 4);
  }, 120_000);
});
