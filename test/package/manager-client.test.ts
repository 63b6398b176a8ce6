// The kit's client code (manager-kit/client/) builds in Manager's React client, as
// docs/manager.md step 8 tells Manager to apply it: Manager's client and its container
// routes at commit ee03a1b (mieweb/opensource-server, Apache-2.0, kept as a `git archive` in
// test/support/manager-client/ because only package registries are reachable here), the two
// components copied in, the patch applied with `git apply`, `npm ci` and the guide's
// `npm i @xterm/xterm@^6 @xterm/addon-fit@^0.11` from the npm registry, then Manager's own
// `npm run build` (tsc -b, then vite build) and `node --check` of the patched route file.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const KIT_CLIENT = join(root, 'manager-kit', 'client');
const ARCHIVE = join(root, 'test', 'support', 'manager-client', 'opensource-server-ee03a1b.tar.gz');

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
  ok(run('tar', ['-xzf', ARCHIVE, '-C', scratch], scratch));
  manager = join(scratch, 'opensource-server-ee03a1b', 'create-a-container');
  client = join(manager, 'client');
}, 60_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("the kit's client code in Manager's React client at ee03a1b", () => {
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

  it("installs Manager's client and xterm from the npm registry, and Manager's build (tsc -b, vite build) passes", () => {
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
