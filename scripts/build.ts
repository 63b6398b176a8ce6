// Builds the published package into dist/ (see docs/runtime.md):
//   dist/bundle.js         the core and the Manager adapter, with their dependencies, in one
//                          CommonJS file: one copy of the module state per process
//   dist/index.js          `kube-provisioner`: the core's exports of bundle.js
//   dist/manager/index.js  `kube-provisioner/manager`: the adapter's exports of bundle.js
//                          (`kube-provisioner/manager-kit` is manager-kit/index.js, the kit's
//                          exports of bundle.js: it lives beside the migration it ships with)
//   dist/cli/main.js       the kube-provision command: turns on Node's compile cache, then
//                          loads dist/cli/kube-provision.js (self-contained)
//   dist/**/*.d.ts         declarations from tsc (CommonJS, like the code: dist/package.json)
//   dist/THIRD-PARTY-NOTICES.md  the licences of the bundled packages
//   web/vendor/            xterm.js for the live page's terminal (src/ui/vendor-files.ts)
//
// CommonJS because plain Jest loads packages with its own CommonJS loader, which cannot load
// ES modules (@kubernetes/client-node and p-timeout ship only those). `import` gets the same
// file through Node's CommonJS interop, so there is no second copy for ESM callers.
// Bundling also makes a cold start cheap: a handful of files instead of hundreds (rxjs and
// zod alone load most of them when required whole), and only the parts of client-node that
// KubeConfig and its auth providers use.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { VENDOR_FILES, vendorSource } from '../src/ui/vendor-files.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

/**
 * client-node's index re-exports every generated API model, and its package does not declare
 * its modules free of side effects, so esbuild would keep all of them. Their only top-level
 * effects are static fields on their own classes (and a File polyfill for undici on Node 18):
 * declaring them side-effect-free keeps just what KubeConfig and its auth providers use.
 */
const clientNodeWithoutSideEffects: esbuild.Plugin = {
  name: 'client-node-without-side-effects',
  setup(build) {
    build.onResolve({ filter: /^\./ }, async (args) => {
      if (!args.importer.includes('/node_modules/@kubernetes/client-node/') || args.pluginData === 'resolving') return undefined;
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: 'resolving',
      });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      return { path: resolved.path, sideEffects: false };
    });
  },
};

/**
 * client-node's KubeConfig imports undici (1.3 MB) for its fetch transport. Our transport
 * speaks node:https and asks KubeConfig only for TLS material and credentials, so the bundle
 * gets a stand-in that fails loudly if that path is ever taken.
 */
const undiciStandIn: esbuild.Plugin = {
  name: 'undici-stand-in',
  setup(build) {
    build.onResolve({ filter: /^undici$/ }, () => ({ path: join(root, 'scripts', 'build', 'undici-stand-in.mjs') }));
  },
};

/**
 * Our code uses client-node at run time only to construct a KubeConfig (src/kube/kubeconfig.ts)
 * once a kubeconfig is loaded. client-node (with YAML, auth providers and proxy agents, about
 * half of the code) is bundled into a file of its own, dist/client-node.js, and the bundles
 * that need it get a KubeConfig whose first construction requires that file: importing the
 * package reads and compiles none of it.
 */
function lazyClientNode(clientNodeFile: string): esbuild.Plugin {
  return {
    name: 'lazy-client-node',
    setup(build) {
      build.onResolve({ filter: /^@kubernetes\/client-node$/ }, (args) =>
        args.importer.includes('/node_modules/') ? undefined : { path: '@kubernetes/client-node', namespace: 'lazy-client-node' },
      );
      build.onResolve({ filter: /client-node\.js$/, namespace: 'lazy-client-node' }, (args) => ({ path: args.path, external: true }));
      build.onLoad({ filter: /.*/, namespace: 'lazy-client-node' }, () => ({
        resolveDir: root,
        loader: 'js',
        contents: `let clientNode;
export class KubeConfig {
  constructor() {
    clientNode ??= require(${JSON.stringify(clientNodeFile)});
    return new clientNode.KubeConfig();
  }
}
`,
      }));
    },
  };
}

/** rxjs's "node" export is its CommonJS build, which cannot be tree-shaken: take its ES build. */
const rxjsEsm: esbuild.Plugin = {
  name: 'rxjs-esm',
  setup(build) {
    build.onResolve({ filter: /^rxjs$/ }, () => ({ path: join(root, 'node_modules', 'rxjs', 'dist', 'esm', 'index.js') }));
  },
};

const common: esbuild.BuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  // The oldest Node the package supports (package.json engines).
  target: 'node22',
  plugins: [clientNodeWithoutSideEffects, undiciStandIn, rxjsEsm],
  // import.meta.url (src/ui/server.ts finds the page's files from it) is the bundle file's URL.
  inject: [join(root, 'scripts', 'build', 'import-meta-url.mjs')],
  define: { 'import.meta.url': 'importMetaUrl' },
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
};

rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });

const clientNode = await esbuild.build({
  ...common,
  stdin: {
    contents: "export { KubeConfig } from '@kubernetes/client-node';\n",
    resolveDir: root,
    sourcefile: 'client-node.ts',
    loader: 'ts',
  },
  outfile: join(dist, 'client-node.js'),
});
const shared = await esbuild.build({
  ...common,
  plugins: [lazyClientNode('./client-node.js'), ...common.plugins!],
  stdin: {
    contents:
      "export * as core from './src/index.ts';\nexport * as manager from './src/manager/index.ts';\nexport * as kit from './src/manager/kit/index.ts';\n",
    resolveDir: root,
    sourcefile: 'kube-provisioner-bundle.ts',
    loader: 'ts',
  },
  outfile: join(dist, 'bundle.js'),
});
const cli = await esbuild.build({
  ...common,
  plugins: [lazyClientNode('../client-node.js'), ...common.plugins!],
  // src/cli/main.ts starts with its #! line, which esbuild keeps; main.js below replaces it.
  entryPoints: [join(root, 'src', 'cli', 'main.ts')],
  outfile: join(dist, 'cli', 'kube-provision.js'),
});

/**
 * An entry point that hands out one part of bundle.js. The last line is never run: it lists
 * the names for Node's CommonJS export detection, so `import { provision } from ...` works.
 */
function entryPoint(file: string, bundlePath: string, part: 'core' | 'manager'): void {
  const bundle = createRequire(import.meta.url)(join(dist, 'bundle.js')) as Record<string, object>;
  const names = Object.keys(bundle[part]!).sort();
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(
    file,
    [
      '"use strict";',
      `// kube-provisioner${part === 'core' ? '' : '/manager'}: the ${part === 'core' ? 'core' : 'Manager adapter'} of the one bundle (see bundle.js).`,
      `module.exports = require(${JSON.stringify(bundlePath)}).${part};`,
      `0 && (module.exports = { ${names.join(', ')} });`,
      '',
    ].join('\n'),
  );
}

entryPoint(join(dist, 'index.js'), './bundle.js', 'core');
entryPoint(join(dist, 'manager', 'index.js'), '../bundle.js', 'manager');

// The compile cache must be on before the bundle is compiled, hence a file of its own.
// Node 22.1+ has module.enableCompileCache; it keeps compiled code under the OS temp folder.
const launcher = join(dist, 'cli', 'main.js');
writeFileSync(
  launcher,
  ['#!/usr/bin/env node', '"use strict";', "require('node:module').enableCompileCache?.();", "require('./kube-provision.js');", ''].join(
    '\n',
  ),
);
chmodSync(launcher, 0o755);

writeFileSync(join(dist, 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
// xterm.js for the live page's terminal, served from the package (web/vendor/ is not in git).
const vendorDir = join(root, 'web', 'vendor');
rmSync(vendorDir, { recursive: true, force: true });
mkdirSync(vendorDir, { recursive: true });
const vendorPackages = new Set<string>();
for (const path of Object.keys(VENDOR_FILES)) {
  const source = vendorSource(path, import.meta.url);
  copyFileSync(source, join(root, 'web', path));
  vendorPackages.add(join(root, 'node_modules', VENDOR_FILES[path]!.package));
}
writeFileSync(
  join(dist, 'THIRD-PARTY-NOTICES.md'),
  notices(new Set([...bundledPackages([clientNode.metafile!, shared.metafile!, cli.metafile!]), ...vendorPackages])),
);
// What the bundles are made of (esbuild's metafile), for size questions; not published.
if (process.env.KUBE_PROVISIONER_METAFILE) {
  writeFileSync(
    process.env.KUBE_PROVISIONER_METAFILE,
    JSON.stringify({ clientNode: clientNode.metafile, shared: shared.metafile, cli: cli.metafile }),
  );
}

/** The directories of the packages with code in the output (a nested copy counts on its own). */
function bundledPackages(metafiles: esbuild.Metafile[]): Set<string> {
  const directories = new Set<string>();
  for (const metafile of metafiles) {
    for (const output of Object.values(metafile.outputs)) {
      for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
        const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
        if (match && bytesInOutput > 0) directories.add(join(root, match[1]!));
      }
    }
  }
  return directories;
}

interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly license?: string;
}

/** Name, version, licence and licence text of each bundled package. */
function notices(directories: Set<string>): string {
  const sections = [...directories]
    .map((directory) => ({ directory, ...(JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as Manifest) }))
    .sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version))
    .map(({ directory, name, version, license }) => {
      const file = ['LICENSE', 'LICENSE.md', 'LICENSE.txt', 'license', 'license.md'].find((candidate) =>
        existsSync(join(directory, candidate)),
      );
      const text = file
        ? readFileSync(join(directory, file), 'utf8').trim()
        : `(no licence file; its package.json says ${license ?? 'nothing'})`;
      return `## ${name} ${version} (${license ?? 'licence not stated'})\n\n\`\`\`\n${text}\n\`\`\`\n`;
    });
  return `# Third-party software bundled in kube-provisioner\n\nThe JavaScript files in dist/ and web/vendor/ contain code from these packages.\n\n${sections.join('\n')}`;
}
