// Injected into the CommonJS bundles (see scripts/build.ts) for `import.meta.url`, which a
// CommonJS file does not have: the URL of the bundle file that the code was bundled into.
import { pathToFileURL } from 'node:url';

export const importMetaUrl = pathToFileURL(__filename).href;
