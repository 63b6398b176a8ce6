// `node --import tsx --import ./test/support/undici-stand-in.mjs`: a child process that runs
// the sources loads client-node the way the unit tests and the bundle do, without undici
// (which needs Node 22.19+), so it runs on every Node line the unit tests run on.
import { register } from 'node:module';

register('./undici-stand-in-hooks.mjs', import.meta.url);
