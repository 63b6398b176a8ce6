// Issue 17's checks that need the real control plane: the API server's own verdict on
// generated manifests (a dry-run create of a sample, which keeps test/support/api-validity.ts
// honest), the manifest size limit on both sides of it (a real create just under, nothing
// sent just over), Object.prototype names as variables reaching the Deployment, and a
// Deployment with progressDeadlineSeconds = 2147483647, which the real deployment
// controller never marks NewReplicaSetAvailable, completing instead of waiting forever.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { V1Deployment } from '../../src/kube/objects.js';
import { InvalidSpecError } from '../../src/errors/input.js';
import { InformerRegistry } from '../../src/informers/registry.js';
import { parseWorkloadSpec } from '../../src/input/workload-spec.js';
import { buildDeployment, checkManifestSize, MAX_MANIFEST_BYTES } from '../../src/members/deployment/manifest.js';
import { provision } from '../../src/workload/operations/provision.js';
import { apiServerProblems } from '../support/api-validity.js';
import { apiFor, createNamespace, kubectl, kubectlJson, sampleSpec, uniqueName } from '../support/kube.js';
import { plausibleSpecs } from '../support/spec-arbitraries.js';

let namespace: string;
beforeAll(() => {
  namespace = createNamespace('it-hardening');
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

const SAMPLE = 150;

describe('generated manifests against the real API server', () => {
  it(`a sample of ${SAMPLE} generated specs: every manifest we would send, the API server accepts (dry-run create) as is`, async () => {
    const api = apiFor('admin');
    const specs = fc.sample(plausibleSpecs, { numRuns: SAMPLE, seed: 17 });
    let accepted = 0;
    let refusedByUs = 0;
    for (const [index, input] of specs.entries()) {
      let manifest: V1Deployment;
      try {
        const spec = parseWorkloadSpec({ ...input, hostname: `gen-${index}` });
        manifest = buildDeployment(spec, { namespace });
        checkManifestSize(manifest, spec);
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidSpecError);
        refusedByUs += 1;
        continue;
      }
      expect(apiServerProblems(manifest)).toEqual([]);
      const created = await api.create('deployments', namespace, manifest, { dryRun: true });
      // Nothing changed on the way: what we sent is what the server would store (an empty
      // value is stored as no value, which sets the variable to "" all the same).
      const variables = (deployment: V1Deployment) =>
        (deployment.spec?.template.spec?.containers[0]?.env ?? []).map((variable) => ({
          name: variable.name,
          value: variable.value ?? '',
        }));
      expect(variables(created)).toEqual(variables(manifest));
      expect(created.spec?.template.spec?.containers[0]?.command).toEqual(manifest.spec?.template.spec?.containers[0]?.command);
      expect(created.spec?.template.spec?.containers[0]?.args).toEqual(manifest.spec?.template.spec?.containers[0]?.args);
      expect(created.spec?.template.spec?.containers[0]?.image).toBe(manifest.spec?.template.spec?.containers[0]?.image);
      accepted += 1;
    }
    console.log(`[reliability] dry-run sample: ${JSON.stringify({ generated: SAMPLE, acceptedByApiServer: accepted, refusedByUs })}`);
    expect(accepted).toBeGreaterThan(SAMPLE * 0.9);
  });
});

describe('the manifest size limit', () => {
  it(`a manifest just under ${MAX_MANIFEST_BYTES} bytes is created for real; one byte of env over is refused before any request`, async () => {
    const base = sampleSpec({ hostname: uniqueName('big') });
    const sizeOf = (value: string) => {
      const spec = parseWorkloadSpec({ ...base, namespace, env: { ...(base.env as object), BIG: value } });
      return Buffer.byteLength(JSON.stringify(buildDeployment(spec, { namespace })));
    };
    const overhead = sizeOf('');
    const fits = 'x'.repeat(MAX_MANIFEST_BYTES - overhead);
    expect(sizeOf(fits)).toBe(MAX_MANIFEST_BYTES);

    let requests = 0;
    const api = apiFor('admin', { onRequest: () => (requests += 1) });
    const tooBig = provision(
      api,
      { ...base, namespace, env: { ...(base.env as object), BIG: `${fits}x` } },
      { informers: new InformerRegistry() },
    );
    await expect(tooBig).rejects.toThrow(InvalidSpecError);
    await expect(tooBig).rejects.toThrow(/env: makes the Deployment 1048577 bytes of JSON, more than the 1048576 bytes allowed/);
    expect(requests).toBe(0);

    const registry = new InformerRegistry();
    const result = await provision(
      api,
      { ...base, namespace, env: { ...(base.env as object), BIG: fits } },
      { informers: registry, timeoutMs: 90_000 },
    );
    expect(result.providerId).toBe(`${namespace}/${base.hostname as string}`);
    const stored = await api.read('deployments', namespace, base.hostname as string);
    expect(stored.spec?.template.spec?.containers[0]?.env?.find((variable) => variable.name === 'BIG')?.value).toHaveLength(fits.length);
  });

  it('a manifest of 34,000 small variables just under the limit is stored too (the server drops managedFields, not the object)', async () => {
    const api = apiFor('admin');
    const name = uniqueName('many');
    const env = Object.fromEntries(Array.from({ length: 34_000 }, (_, index) => [`V${String(index).padStart(6, '0')}`, '']));
    const spec = parseWorkloadSpec(sampleSpec({ hostname: name, namespace, env }));
    const manifest = buildDeployment(spec, { namespace });
    checkManifestSize(manifest, spec);
    expect(Buffer.byteLength(JSON.stringify(manifest))).toBeGreaterThan(MAX_MANIFEST_BYTES * 0.97);
    const created = await api.create('deployments', namespace, manifest);
    expect(created.spec?.template.spec?.containers[0]?.env).toHaveLength(34_000);
  });
});

describe('what used to be changed or lost on the way', () => {
  it('variables named like Object.prototype members reach the Deployment as variables', async () => {
    const name = uniqueName('proto');
    const env: Record<string, string> = JSON.parse('{"__proto__":"a","constructor":"b","toString":"c","hasOwnProperty":"d"}') as Record<
      string,
      string
    >;
    await provision(apiFor('admin'), sampleSpec({ hostname: name, namespace, env }), {
      informers: new InformerRegistry(),
      timeoutMs: 90_000,
    });
    const stored = kubectlJson<V1Deployment>(['get', 'deployment', '-n', namespace, name]);
    expect(stored.spec?.template.spec?.containers[0]?.env).toEqual([
      { name: '__proto__', value: 'a' },
      { name: 'constructor', value: 'b' },
      { name: 'hasOwnProperty', value: 'd' },
      { name: 'toString', value: 'c' },
    ]);
  });

  it('progressDeadlineSeconds = 2147483647: the controller never writes NewReplicaSetAvailable, and the rollout completes all the same', async () => {
    const name = uniqueName('nodeadline');
    const result = await provision(apiFor('admin'), sampleSpec({ hostname: name, namespace }), {
      informers: new InformerRegistry(),
      progressDeadlineSeconds: 2147483647,
      timeoutMs: 90_000,
    });
    expect(result.providerId).toBe(`${namespace}/${name}`);
    const stored = kubectlJson<V1Deployment>(['get', 'deployment', '-n', namespace, name]);
    expect(stored.spec?.progressDeadlineSeconds).toBe(2147483647);
    // The controller's own rule: no Progressing condition at all for "no deadline".
    expect(stored.status?.conditions?.some((condition) => condition.type === 'Progressing')).toBe(false);
  });
});
