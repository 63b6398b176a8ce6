// xterm.js (the page's terminal) comes from its npm packages, served by the page's own
// server (no CDN). The build copies these files into web/vendor/, which ships in the
// package (it has no runtime dependency on xterm); a source tree that was not built serves
// them from node_modules.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

export const VENDOR_FILES: Readonly<Record<string, { package: string; file: string; type: string }>> = {
  '/vendor/xterm.js': { package: '@xterm/xterm', file: 'lib/xterm.js', type: 'text/javascript; charset=utf-8' },
  '/vendor/xterm.css': { package: '@xterm/xterm', file: 'css/xterm.css', type: 'text/css; charset=utf-8' },
  '/vendor/addon-fit.js': { package: '@xterm/addon-fit', file: 'lib/addon-fit.js', type: 'text/javascript; charset=utf-8' },
};

/** The package's own file for a vendor path (what the build copies). */
export function vendorSource(path: string, from: string = import.meta.url): string {
  const vendor = VENDOR_FILES[path];
  if (vendor === undefined) throw new Error(`no vendor file ${path}`);
  return createRequire(from).resolve(`${vendor.package}/${vendor.file}`);
}

/** Where a vendor file is: web/vendor/ once built, else its package in node_modules. */
export function vendorFile(pageDir: string, path: string): string {
  const built = join(pageDir, path);
  return existsSync(built) ? built : vendorSource(path);
}
