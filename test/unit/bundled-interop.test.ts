// The BUILT package bundles rxjs and zod (docs/runtime.md says why). What a caller's own copy
// of each can still do with ours, and the one thing it cannot (instanceof rxjs's Observable),
// so the documentation of the hazard is checked. `npm test` builds first.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Observable, firstValueFrom, from, isObservable, lastValueFrom, map, of, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type * as PublicApi from '../../src/index.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

function builtPackage(): typeof PublicApi {
  expect(existsSync(join(root, 'dist', 'bundle.js')), 'dist/ is missing: run `npm run build` (npm test does)').toBe(true);
  return createRequire(import.meta.url)(join(root, 'dist', 'index.js')) as typeof PublicApi;
}

describe("the bundle's rxjs with the caller's rxjs", () => {
  it("an Observable from the package works with the caller's operators, from() and firstValueFrom, but is no instanceof", async () => {
    const { fromAbortable } = builtPackage();
    const ours = fromAbortable(async () => 41);
    expect(isObservable(ours)).toBe(true);
    expect(ours instanceof Observable).toBe(false);
    expect(await firstValueFrom(ours.pipe(map((value) => value + 1)))).toBe(42);
    expect(await lastValueFrom(from(ours))).toBe(41);
  });

  it("the package's operators work on the caller's Observables", async () => {
    const { abortOn } = builtPackage();
    const controller = new AbortController();
    const upToAbort = of(1, 2, 3).pipe(
      abortOn(controller.signal, () => new Error('aborted')),
      toArray(),
    );
    expect(await lastValueFrom(upToAbort)).toEqual([1, 2, 3]);
  });

  it("a caller's TestScheduler passed in as the scheduler drives the package's timers", () => {
    const { provision$, RolloutTimeoutError } = builtPackage();
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    scheduler.maxFrames = 10_000;
    // A client whose create never answers: only the (virtual) timeout can end the provisioning.
    const silent = {
      namespace: 'default',
      server: 'https://fake.invalid',
      create: () => new Promise<never>(() => undefined),
      read: () => new Promise<never>(() => undefined),
      list: () => new Promise<never>(() => undefined),
      watch: () => ({ abort: () => undefined }),
      version: () => new Promise<never>(() => undefined),
      selfSubjectReview: () => new Promise<never>(() => undefined),
      selfSubjectAccessReview: () => new Promise<never>(() => undefined),
      readNamespace: () => new Promise<never>(() => undefined),
      listLimitRanges: () => new Promise<never>(() => undefined),
      listResourceQuotas: () => new Promise<never>(() => undefined),
      patch: () => new Promise<never>(() => undefined),
      delete: () => new Promise<never>(() => undefined),
    };
    const errors: unknown[] = [];
    const spec = { containerId: 1, nodeId: 1, hostname: 'web', image: 'nginx:1.27', cpus: 1, memoryMb: 64 };
    provision$(silent, spec, { timeoutMs: 1_000, scheduler }).subscribe({ error: (error: unknown) => errors.push(error) });
    expect(errors).toEqual([]);
    scheduler.flush();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(RolloutTimeoutError);
    expect(scheduler.now()).toBe(1_000);
  });
});

describe("the bundle's zod with the caller's zod", () => {
  it("workloadSpecSchema nests in the caller's schemas and parses", () => {
    const { workloadSpecSchema } = builtPackage();
    const job = z.object({ spec: workloadSpecSchema });
    const parsed = job.parse({ spec: { containerId: 1, nodeId: 2, hostname: 'web', image: 'nginx:1.27', cpus: 1, memoryMb: 64 } });
    expect(parsed.spec).toMatchObject({ containerId: '1', nodeId: '2', hostname: 'web', cpus: 1, memoryMb: 64 });
    const failed = job.safeParse({ spec: { containerId: 1 } });
    expect(failed.success).toBe(false);
    expect(failed.error).toBeInstanceOf(z.ZodError);
    expect(workloadSpecSchema).toBeInstanceOf(z.ZodType);
  });
});
