// docs/manager.md followed literally: each of its excerpts is applied, where the guide says, to
// the files of Manager's it edits, and the result parses, holds every line the Manager-shaped
// test app (test/support/manager/, what the other tests run) marks as the kit's, and its
// OpenAPI file declares every route that app serves. The files are Manager-shaped stand-ins
// for Manager's at ee03a1b (test/support/manager/before/: the lines the guide names as
// Manager has them, the rest in our words), or Manager's own with MANAGER_CHECKOUT set to its
// create-a-container/ at ee03a1b. Reads files, runs `node --check`, and loads the patched
// routers and Node model in a child process with Manager's own modules (models index,
// middlewares, utils) stubbed (test/support/manager/load-patched.cjs); no cluster.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_COLUMN_NAMES } from '../../../src/manager/kit/node-columns.js';
import { ROOT } from '../../support/examples.js';
import { applyGuide, applyPlacement, dedent, guideExcerpts, namedTexts } from '../../support/manager-guide.js';

const BEFORE = `${ROOT}test/support/manager/before/`;
const MANAGER = process.env.MANAGER_CHECKOUT ? `${process.env.MANAGER_CHECKOUT.replace(/\/$/, '')}/` : BEFORE;
const SHAPED = `${ROOT}test/support/manager/`;
const before = (file: string) => readFileSync(`${MANAGER}${file}`, 'utf8');

/** Manager's file each Manager-shaped test file stands for. */
const SHAPED_FILES: Record<string, readonly string[]> = {
  'models/node.cjs': ['models/node.js'],
  'routers/nodes.cjs': ['routers/api/v1/nodes.js'],
  'routers/containers.cjs': ['routers/api/v1/containers.js'],
  'routers/container-sessions.cjs': ['routers/api/v1/containers.js'],
  'sessions-server.cjs': ['app.js', 'server.js'],
  'bin/create-container.cjs': ['bin/create-container.js'],
  'bin/reconfigure-container.cjs': ['bin/reconfigure-container.js'],
  'openapi-paths.yaml': ['openapi.v1.yaml'],
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) =>
    statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name)) : [relative(BEFORE, join(dir, name))],
  );
}

const excerpts = guideExcerpts();
let patched: Map<string, string>;
let dir: string;

beforeAll(() => {
  patched = applyGuide(before);
  dir = mkdtempSync(join(tmpdir(), 'kp-guide-'));
  for (const [file, text] of patched) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
});

interface Loaded {
  readonly 'routers/api/v1/containers.js': readonly string[];
  readonly 'routers/api/v1/nodes.js': readonly string[];
  readonly nodeAttributes: readonly string[];
}

/** The patched routers' routes and the patched Node model's attributes, loaded in a child process (test/support/manager/load-patched.cjs). */
function loadPatched(): Loaded {
  const run = spawnSync(process.execPath, [`${SHAPED}load-patched.cjs`, dir], { encoding: 'utf8', timeout: 30_000 });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as Loaded;
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the guide says where each excerpt goes in Manager's file", () => {
  it('finds an excerpt for each file it edits, and a before-copy of exactly those files', () => {
    expect(excerpts.length).toBeGreaterThan(20);
    const edited = new Set(excerpts.map((excerpt) => excerpt.file));
    expect(edited).toEqual(new Set(Object.values(SHAPED_FILES).flat()));
    expect(new Set(filesUnder(BEFORE).filter((file) => file !== 'README.md'))).toEqual(edited);
  });

  it.each(excerpts.map((excerpt) => [`docs/manager.md:${excerpt.line}: ${excerpt.file}`, excerpt] as const))(
    '%s: the words before it name the file and every line it is placed by',
    (_, excerpt) => {
      const file = excerpt.file.split('/').pop()!;
      expect(excerpt.prose, `the section names ${excerpt.file}`).toContain(file);
      for (const text of excerpt.placements.flatMap(namedTexts))
        expect(excerpt.prose, 'the guide names the line, as written').toContain(text);
    },
  );

  it('the before-copies are the files before the guide: no line of the kit in them', () => {
    for (const file of new Set(excerpts.map((excerpt) => excerpt.file))) expect(before(file)).not.toMatch(/kube-provisioner/);
  });

  it('refuses a placement whose line is not in the file, or is there twice', () => {
    const excerpt = excerpts[0]!;
    expect(() => applyPlacement(['a', 'b'], excerpt, { after: 'c' })).toThrow('`c` must be one line, found 0');
    expect(() => applyPlacement(['a', 'a'], excerpt, { after: 'a' })).toThrow('`a` must be one line, found 2 (lines 1, 2)');
  });
});

describe(`the excerpts applied to Manager's files at ee03a1b (${relative(ROOT, MANAGER) || MANAGER})`, () => {
  it.each(excerpts.map((excerpt) => [`docs/manager.md:${excerpt.line}: ${excerpt.file}`, excerpt] as const))(
    '%s is in the patched file, whole and as written',
    (_, excerpt) => {
      const lines = patched.get(excerpt.file)!.split('\n');
      const block = dedent(excerpt.body.replace(/\n$/, '').split('\n'));
      const at = lines.findIndex((_line, start) => dedent(lines.slice(start, start + block.length)).every((line, i) => line === block[i]));
      expect(at, `the excerpt at ${excerpt.line} must be consecutive lines of the patched ${excerpt.file}`).toBeGreaterThanOrEqual(0);
    },
  );

  it.each(Object.entries(SHAPED_FILES))(
    "every line test/support/manager/%s marks as the kit's is in Manager's patched file",
    (shaped, files) => {
      const marked = readFileSync(`${SHAPED}${shaped}`, 'utf8')
        .split('\n')
        .filter((line) => /^\s*(?:\/\/|#) kube-provisioner:/.test(line))
        .map((line) => line.trim());
      expect(marked.length).toBeGreaterThan(0);
      const patchedLines = new Set(
        files.flatMap((file) =>
          patched
            .get(file)!
            .split('\n')
            .map((line) => line.trim()),
        ),
      );
      for (const line of marked) expect(patchedLines, `${line} (from ${shaped}) in ${files.join(' or ')}`).toContain(line);
    },
  );

  it.each([...new Set(excerpts.map((excerpt) => excerpt.file))].filter((file) => file.endsWith('.js')))(
    '%s, patched, parses (node --check)',
    (file) => {
      const path = join(dir, file);
      const check = spawnSync(process.execPath, ['--check', path], { encoding: 'utf8' });
      expect(check.stderr).toBe('');
      expect(check.status).toBe(0);
    },
  );

  it("the patched routers and Node model load (Manager's own modules stubbed), with the kit's routes and columns", () => {
    const loaded = loadPatched();
    expect(loaded['routers/api/v1/containers.js']).toEqual(expect.arrayContaining(['post /:id/start', 'post /:id/stop', 'get /:id/logs']));
    expect(loaded['routers/api/v1/nodes.js']).toEqual(expect.arrayContaining(['post /', 'put /:id']));
    expect(loaded.nodeAttributes).toEqual(expect.arrayContaining([...NODE_COLUMN_NAMES]));
  });

  it('node --check fails on a file the excerpts would break (the check can fail)', () => {
    const path = join(dir, 'broken.js');
    writeFileSync(
      path,
      patched.get('models/node.js')!.replace('...kubernetes.nodeAttributes(DataTypes),', '...kubernetes.nodeAttributes(DataTypes)) {'),
    );
    expect(spawnSync(process.execPath, ['--check', path], { encoding: 'utf8' }).status).not.toBe(0);
  });
});

/** Routes the Manager-shaped app serves, as OpenAPI paths under Manager's /api/v1: `get /sites/{siteId}/...`. */
function shapedRoutes(): string[] {
  const mounts: [string, string][] = [
    ['routers/nodes.cjs', '/sites/{siteId}/nodes'],
    ['routers/containers.cjs', '/sites/{siteId}/containers'],
    ['routers/container-sessions.cjs', '/sites/{siteId}/containers'],
  ];
  const app = readFileSync(`${SHAPED}app.cjs`, 'utf8') + readFileSync(`${SHAPED}sessions-server.cjs`, 'utf8');
  const routes: string[] = [];
  for (const [file, prefix] of mounts) {
    // The app mounts the router there, under /api/v1 (Manager's OpenAPI server URL).
    expect(app.replaceAll(':siteId', '{siteId}')).toContain(`'/api/v1${prefix}'`);
    const source = readFileSync(`${SHAPED}${file}`, 'utf8');
    const loop = /for \(const action of \[([^\]]*)\]\)/.exec(source)?.[1]?.match(/[a-z]+/g) ?? [];
    for (const [, method, path] of source.matchAll(/router\.(get|post|put|delete)\(\s*['`]([^'`]+)['`]/g)) {
      const paths = path!.includes('${action}') ? loop.map((action) => path!.replace('${action}', action)) : [path!];
      for (const each of paths) routes.push(`${method} ${prefix}${each === '/' ? '' : each.replace(/:(\w+)/g, '{$1}')}`);
    }
  }
  // The terminal is a WebSocket upgrade of a GET, on the path its comment in sessions-server.cjs names.
  const terminal = /WebSocket on \/api\/v1(\S+)\./.exec(app)?.[1];
  expect(terminal).toBeDefined();
  routes.push(`get ${terminal!.replace(/:(\w+)/g, '{$1}')}`);
  return routes;
}

function declaredRoutes(yaml: string): Set<string> {
  const doc = load(yaml) as { paths: Record<string, Record<string, unknown>> };
  return new Set(
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => ['get', 'post', 'put', 'delete', 'patch'].includes(key))
        .map((method) => `${method} ${path}`),
    ),
  );
}

describe("Manager's OpenAPI file (openapi.v1.yaml) with the guide's paths", () => {
  it('parses, and declares every route the Manager-shaped app serves', () => {
    const routes = shapedRoutes();
    expect(routes).toEqual(
      expect.arrayContaining([
        'post /sites/{siteId}/containers/{id}/start',
        'post /sites/{siteId}/containers/{id}/stop',
        'get /sites/{siteId}/containers/{id}/logs',
        'get /sites/{siteId}/containers/{id}/terminal',
      ]),
    );
    const declared = declaredRoutes(patched.get('openapi.v1.yaml')!);
    for (const route of routes) expect(declared, route).toContain(route);
  });

  it("declares every route of Manager's patched routers", () => {
    const loaded = loadPatched();
    const served = [
      ...loaded['routers/api/v1/containers.js'].map((route) => route.replace(' ', ' /sites/{siteId}/containers')),
      ...loaded['routers/api/v1/nodes.js'].map((route) => route.replace(' ', ' /sites/{siteId}/nodes')),
    ].map((route) => route.replace(/\/$/, '').replace(/:(\w+)/g, '{$1}'));
    const declared = declaredRoutes(patched.get('openapi.v1.yaml')!);
    expect(served.filter((route) => !declared.has(route))).toEqual([]);
  });

  it("Manager's own file, before the guide, is no YAML and lacks the kit's routes", () => {
    expect(() => load(before('openapi.v1.yaml'))).toThrow('bad indentation of a mapping entry');
    expect(() => load(patched.get('openapi.v1.yaml')!)).not.toThrow();
    const paths = new Set(
      before('openapi.v1.yaml')
        .split('\n')
        .map((line) => line.trim()),
    );
    const missing = shapedRoutes().filter((route) => !paths.has(`${route.split(' ')[1]!}:`));
    expect(missing.sort()).toEqual([
      'get /sites/{siteId}/containers/{id}/logs',
      'get /sites/{siteId}/containers/{id}/terminal',
      'post /sites/{siteId}/containers/{id}/start',
      'post /sites/{siteId}/containers/{id}/stop',
    ]);
  });
});
