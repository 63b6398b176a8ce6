// Module resolution hooks (registered by undici-stand-in.mjs): `undici` resolves to the
// stand-in the bundle carries, as vitest.config.ts aliases it for the unit tests.
const standIn = new URL('../../scripts/build/undici-stand-in.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'undici') return { url: standIn, format: 'module', shortCircuit: true };
  return nextResolve(specifier, context);
}
