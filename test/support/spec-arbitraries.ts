// Generated workload specs, as a careless or hostile caller would hand them over: mostly
// plausible values, with every field sometimes wrong in type, range or shape (Object.prototype
// names as variable names, sparse lists, unpaired surrogates, control characters, values too
// large for the API server), plus unknown keys. `plausibleSpecs` leans to valid input, for
// the dry-run sample against the real API server.
import fc from 'fast-check';
import { IMAGE_REFERENCE_CASES } from './image-reference-cases.js';

const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/);
const anyValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.boolean(),
  fc.double(),
  fc.string(),
  fc.array(fc.nat(), { maxLength: 2 }),
  fc.object({ maxDepth: 1 }),
);

const id = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 2 ** 40 }) },
  { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,10}[A-Za-z0-9])?$/) },
  { weight: 1, arbitrary: fc.constantFrom(0, -1, 1.5, Number.NaN, 2 ** 53, Infinity, '', 'a b', '-a', 'x'.repeat(64)) },
  { weight: 1, arbitrary: anyValue },
);

const hostname = fc.oneof(
  { weight: 8, arbitrary: label },
  { weight: 1, arbitrary: fc.constantFrom('', 'Web', 'a_b', '-a', 'a-', 'x'.repeat(64), 'a.b', 'we\nb') },
  { weight: 1, arbitrary: anyValue },
);

const image = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.constantFrom(
      'nginx',
      'nginx:1.27',
      'docker.io/library/nginx:1.27',
      'registry.example.com:5000/team/app:v1',
      `ghcr.io/o/a@sha256:${'ab'.repeat(32)}`,
    ),
  },
  { weight: 3, arbitrary: fc.constantFrom(...IMAGE_REFERENCE_CASES.map((c) => c.ref)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: anyValue },
);

const cpus = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: 1, max: 64_000 }).map((millicores) => millicores / 1000) },
  { weight: 1, arbitrary: fc.constantFrom(0, -1, 0.0005, 1.0005, 0.1 + 0.2, 1024, 1025, Number.NaN, Infinity, '2', '.5') },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: anyValue },
);

const memoryMb = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: 1, max: 65_536 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, -1, 1.5, 1_048_576, 1_048_577, 2 ** 31, 2 ** 53, Number.NaN, '512') },
  { weight: 1, arbitrary: anyValue },
);

const envName = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,12}$/) },
  {
    weight: 2,
    arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'prototype'),
  },
  { weight: 1, arbitrary: fc.constantFrom('', '1A', 'A-B', 'A B', 'A=B', 'A\nB', 'A\u0000', 'É') },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
);

const text = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8, unit: 'binary' }) },
  { weight: 1, arbitrary: fc.constantFrom('', 'a\nb', 'a\u0000b', '\u001b[31mred', '\uD800', 'x\u2028y') },
);

const envValue = fc.oneof({ weight: 8, arbitrary: text }, { weight: 1, arbitrary: anyValue });

/** Env as an object built by definition (so "__proto__" is an own key, as JSON.parse makes it). */
const env = fc.oneof(
  { weight: 40, arbitrary: fc.array(fc.tuple(envName, envValue), { maxLength: 6 }).map(definedObject) },
  // Now and then too large for the API server (checked before the request).
  { weight: 1, arbitrary: fc.constantFrom({ BIG: 'x'.repeat(1_100_000) }, { BIG: 'x'.repeat(1_040_000) }) },
  { weight: 5, arbitrary: fc.constantFrom(null, undefined, [], 'A=1', 5) },
);

/** A list, sometimes sparse (holes, not undefined). */
function words(item: fc.Arbitrary<unknown>) {
  return fc.tuple(fc.array(item, { maxLength: 5 }), fc.array(fc.nat({ max: 5 }), { maxLength: 2 })).map(([items, holes]) => {
    const list = [...items];
    // A hole, not undefined: the index is no longer an own property of the list.
    for (const hole of holes) if (hole < list.length) Reflect.deleteProperty(list, hole);
    return list;
  });
}

const word = fc.oneof({ weight: 8, arbitrary: text }, { weight: 1, arbitrary: anyValue });

const entrypoint = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom('nginx -g "daemon off;"', "sh -c 'echo hi'", '/bin/app', 'a\\', '"open', "'open", '   ', 'x\ny'),
  },
  { weight: 2, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 2, arbitrary: words(word) },
  { weight: 1, arbitrary: anyValue },
);

const args = fc.oneof({ weight: 3, arbitrary: words(word) }, { weight: 1, arbitrary: anyValue });

const namespace = fc.oneof(
  { weight: 4, arbitrary: label },
  { weight: 1, arbitrary: fc.constantFrom('', 'Team', 'a_b', null) },
  { weight: 1, arbitrary: anyValue },
);

function definedObject(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [key, value] of entries) Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  return object;
}

/** A wrong value for one field (or an unknown key), to corrupt a plausible spec with. */
const corruption: fc.Arbitrary<readonly [string, unknown]> = fc.oneof(
  fc.tuple(fc.constantFrom('containerId', 'nodeId'), id),
  fc.tuple(fc.constant('hostname'), hostname),
  fc.tuple(fc.constant('image'), image),
  fc.tuple(fc.constant('cpus'), cpus),
  fc.tuple(fc.constant('memoryMb'), memoryMb),
  fc.tuple(fc.constant('env'), env),
  fc.tuple(fc.constant('entrypoint'), entrypoint),
  fc.tuple(fc.constant('args'), args),
  fc.tuple(fc.constant('namespace'), namespace),
  fc.tuple(fc.constantFrom('memory', 'cpu', 'Image', 'replicas', '__proto__', 'constructor'), anyValue),
);

/**
 * Any input at all: a plausible spec (itself with Object.prototype names, odd text and
 * sparse lists in places), with none, one or a few fields replaced by hostile values; and
 * now and then not an object at all.
 */
export const specInputs: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 30,
    arbitrary: fc
      .tuple(
        fc.record({
          containerId: fc.oneof(fc.integer({ min: 1, max: 2 ** 40 }), fc.stringMatching(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,10}[A-Za-z0-9])?$/)),
          nodeId: fc.integer({ min: 1, max: 1000 }),
          hostname: label,
          image: fc.constantFrom(
            'nginx',
            'nginx:1.27',
            'docker.io/library/nginx:1.27',
            'registry.example.com:5000/team/app:v1',
            'Reg/app',
            `ghcr.io/o/a@sha256:${'ab'.repeat(32)}`,
          ),
          cpus: fc.integer({ min: 1, max: 64_000 }).map((millicores) => millicores / 1000),
          memoryMb: fc.integer({ min: 1, max: 65_536 }),
          env: fc.option(
            fc
              .array(
                fc.tuple(
                  fc.oneof(fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,12}$/), fc.constantFrom('__proto__', 'constructor', 'toString')),
                  fc.string({ maxLength: 30 }),
                ),
                { maxLength: 5 },
              )
              .map(definedObject),
            { nil: undefined },
          ),
          entrypoint: fc.option(fc.constantFrom('nginx -g "daemon off;"', "sh -c 'echo hi'", '/bin/app', ['/bin/app', '-x', '']), {
            nil: undefined,
          }),
          args: fc.option(fc.array(fc.string({ maxLength: 12 }), { minLength: 1, maxLength: 4 }), { nil: undefined }),
          namespace: fc.option(label, { nil: undefined }),
        }),
        fc.oneof({ weight: 2, arbitrary: fc.constant([]) }, { weight: 3, arbitrary: fc.array(corruption, { minLength: 1, maxLength: 3 }) }),
      )
      .map(([fields, corruptions]) => {
        const input = definedObject(Object.entries(fields).filter(([, value]) => value !== undefined));
        for (const [key, value] of corruptions) {
          Object.defineProperty(input, key, { value, enumerable: true, writable: true, configurable: true });
        }
        return input;
      }),
  },
  { weight: 1, arbitrary: anyValue },
);

/** Specs that are nearly always valid: for a sample the real API server checks. */
export const plausibleSpecs: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    containerId: fc.integer({ min: 1, max: 2 ** 40 }),
    nodeId: fc.integer({ min: 1, max: 1000 }),
    hostname: label,
    image: fc.constantFrom(...IMAGE_REFERENCE_CASES.filter((c) => c.accepted).map((c) => c.ref)),
    cpus: fc.integer({ min: 1, max: 64_000 }).map((millicores) => millicores / 1000),
    memoryMb: fc.integer({ min: 1, max: 65_536 }),
    env: fc
      .array(
        fc.tuple(
          fc.oneof(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,12}$/), fc.constantFrom('__proto__', 'constructor', 'toString')),
          fc.string({ maxLength: 40 }),
        ),
        {
          maxLength: 6,
        },
      )
      .map(definedObject),
    entrypoint: fc.option(
      fc.oneof(
        fc.constantFrom('nginx -g "daemon off;"', "sh -c 'echo hi'"),
        fc.array(fc.string({ maxLength: 12 }), { minLength: 1, maxLength: 4 }).filter((w) => w[0] !== ''),
      ),
      {
        nil: undefined,
      },
    ),
    args: fc.option(fc.array(fc.string({ maxLength: 12 }), { minLength: 1, maxLength: 4 }), { nil: undefined }),
  })
  .map((fields) => definedObject(Object.entries(fields).filter(([, value]) => value !== undefined)));

/** A deep copy that keeps what structuredClone would lose or change: holes, symbol keys, own "__proto__" keys. */
export function faithfulCopy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const copy = new Array<unknown>(value.length);
    for (const key of Object.keys(value)) copy[Number(key)] = faithfulCopy(value[Number(key)]);
    return copy;
  }
  const copy = Object.create(Object.getPrototypeOf(value) as object | null) as Record<PropertyKey, unknown>;
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key)!;
    Object.defineProperty(copy, key, { ...descriptor, value: faithfulCopy(descriptor.value) });
  }
  return copy;
}
