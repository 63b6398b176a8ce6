// `node --import tsx --import ./test/support/undici-stand-in.mjs`: a child process that runs
// the sources loads client-node the way the unit tests and the bundle do, without undici
// (which needs Node 22.19+), so it runs on every Node line the unit tests run on.
import module from 'node:module';

const standIn = new URL('../../scripts/build/undici-stand-in.mjs', import.meta.url).href;

if (module.registerHooks) {
  // In-thread hooks (Node 22.15+); module.register() is deprecated from Node 26.
  module.registerHooks({
    resolve: (specifier, context, nextResolve) =>
      specifier === 'undici' ? { url: standIn, format: 'module', shortCircuit: true } : nextResolve(specifier, context),
  });
} else {
  module.register('./undici-stand-in-hooks.mjs', import.meta.url);
}
