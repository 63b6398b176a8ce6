// The kit's client code (manager-kit/client/) builds in Manager's React client, as
// docs/manager.md step 8 tells Manager to apply it: a stand-in for Manager's client and its
// container routes at commit ee03a1b (test/support/manager-client/, our code shaped like
// Manager's where the patch meets it: its paths, dependencies, tsconfig and the lines the
// hunks anchor on), the two components copied in, the patch applied with `git apply`, `npm
// ci` and the guide's `npm i @xterm/xterm@^6 @xterm/addon-fit@^0.11` from the npm registry,
// then the client's `npm run build` (tsc -b, then vite build) and `node --check` of the
// patched route file. With MANAGER_CHECKOUT set to the `create-a-container/` folder of a
// checkout of Manager at ee03a1b, the same steps run on Manager's own files instead.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const KIT_CLIENT = join(root, 'manager-kit', 'client');
const SOURCE = process.env.MANAGER_CHECKOUT || join(root, 'test', 'support', 'manager-client', 'create-a-container');

let scratch: string;
let manager: string;
let client: string;

// npm and vite run on the Node that runs the tests (Manager's is 24).
const env = {
  ...process.env,
  PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
  npm_config_audit: 'false',
  npm_config_fund: 'false',
};

function run(command: string, args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 400_000 });
}

function ok(result: SpawnSyncReturns<string>): string {
  expect(result.status, `exit ${String(result.status)}\n${result.stdout}\n${result.stderr}`).toBe(0);
  return result.stdout;
}

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'kp-manager-client-'));
  manager = join(scratch, 'create-a-container');
  client = join(manager, 'client');
  // The files the patch touches and the client that builds them; a local install or build is not part of it.
  cpSync(join(SOURCE, 'client'), client, {
    recursive: true,
    filter: (source) => !['node_modules', 'dist'].includes(basename(source)),
  });
  const routes = join('routers', 'api', 'v1', 'containers.js');
  cpSync(join(SOURCE, routes), join(manager, routes));
}, 60_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("the kit's client code in (a stand-in for) Manager's React client at ee03a1b", () => {
  it('the patch applies to the four files it names, and nothing else changes', () => {
    const patch = join(KIT_CLIENT, 'manager-ee03a1b.patch');
    const touched = [...readFileSync(patch, 'utf8').matchAll(/^\+\+\+ b\/(\S+)$/gm)].map((match) => match[1]);
    expect(touched).toEqual([
      'client/src/components/containers/RowActions.tsx',
      'client/src/lib/types.ts',
      'client/src/pages/nodes/NodeFormPage.tsx',
      'routers/api/v1/containers.js',
    ]);
    ok(run('git', ['apply', '--check', patch], manager));
    ok(run('git', ['apply', patch], manager));
    for (const file of readdirSync(KIT_CLIENT).filter((name) => name.endsWith('.tsx'))) {
      copyFileSync(join(KIT_CLIENT, file), join(client, 'src', 'components', 'containers', file));
    }
    expect(readFileSync(join(client, 'src', 'pages', 'nodes', 'NodeFormPage.tsx'), 'utf8')).toContain(
      '<option value="kubernetes">Kubernetes</option>',
    );
  });

  it("the patched route file still parses (the serializer's nodeType)", () => {
    ok(run(process.execPath, ['--check', join(manager, 'routers', 'api', 'v1', 'containers.js')], manager));
    expect(readFileSync(join(manager, 'routers', 'api', 'v1', 'containers.js'), 'utf8')).toContain(
      'nodeType: c.node ? c.node.nodeType : null,',
    );
  });

  it("installs the client and xterm from the npm registry, and the client's build (tsc -b, vite build) passes", () => {
    ok(run('npm', ['ci'], client));
    ok(run('npm', ['i', '@xterm/xterm@^6', '@xterm/addon-fit@^0.11'], client));
    const build = ok(run('npm', ['run', 'build'], client));
    expect(build).toContain('built in');
    expect(existsSync(join(client, 'dist', 'index.html'))).toBe(true);
    const assets = readdirSync(join(client, 'dist', 'assets'));
    const script = assets
      .filter((file) => file.endsWith('.js'))
      .map((file) => readFileSync(join(client, 'dist', 'assets', file), 'utf8'))
      .join('\n');
    // Our components are in the bundle, with xterm (its class names) and the routes they call.
    expect(script).toContain('/terminal?columns=');
    expect(script).toContain('/logs?');
    expect(script).toContain('xterm-helper-textarea');
    const styles = assets
      .filter((file) => file.endsWith('.css'))
      .map((file) => readFileSync(join(client, 'dist', 'assets', file), 'utf8'))
      .join('\n');
    expect(styles).toContain('.xterm');
  });
});
