// A throw-away PostgreSQL server for the tests, Manager's production database: Debian's
// `postgresql` package's binaries (.ci/run installs it), a cluster made by initdb in a
// temporary directory, and a server listening only on a unix socket in that directory (no
// port to collide with another run). PostgreSQL refuses to run as root, so under root the
// directory is handed to the package's `postgres` user and the server runs as it. The
// server is stopped by its pid and the directory removed. Not installed: a loud error
// naming what is missing, never a skip.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const POSTGRES_ROOT = '/usr/lib/postgresql';
/** The port only names the socket file (.s.PGSQL.5432); nothing listens on TCP. */
const SOCKET_PORT = 5432;
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;

export interface PostgresServer {
  /** The directory of the server's unix socket: Sequelize's and pg's `host`. */
  readonly host: string;
  readonly port: number;
  /** A superuser, trusted on the socket (no password). */
  readonly username: string;
  readonly database: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/** The newest installed PostgreSQL's bin directory, or an error naming what is missing. */
export function postgresBinaries(): { initdb: string; postgres: string } {
  const versions = existsSync(POSTGRES_ROOT)
    ? readdirSync(POSTGRES_ROOT)
        .filter((version) => existsSync(join(POSTGRES_ROOT, version, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const bin = versions[0] !== undefined ? join(POSTGRES_ROOT, versions[0], 'bin') : undefined;
  if (!bin || !existsSync(join(bin, 'postgres'))) {
    throw new Error(
      `PostgreSQL is not installed: no ${POSTGRES_ROOT}/<version>/bin/initdb and postgres. ` +
        "The kit's migrations are tested on a real PostgreSQL server: install Debian's postgresql package " +
        '(apt-get install --no-install-recommends postgresql; .ci/run does)',
    );
  }
  return { initdb: join(bin, 'initdb'), postgres: join(bin, 'postgres') };
}

/** The user the server runs as: this process's, or the package's `postgres` user under root. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch (error) {
    throw new Error(
      "PostgreSQL refuses to run as root, and there is no `postgres` user to run it as (Debian's postgresql package adds it)",
      {
        cause: error,
      },
    );
  }
}

export async function startPostgres(): Promise<PostgresServer> {
  const { initdb, postgres } = postgresBinaries();
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), 'kp-pg-'));
  const data = join(dir, 'data');
  const socket = join(dir, 'socket');
  mkdirSync(socket);
  if (user) {
    for (const path of [dir, socket]) chownSync(path, user.uid, user.gid);
  }
  const username = 'manager';
  const asUser = user ? { uid: user.uid, gid: user.gid } : {};
  try {
    execFileSync(initdb, ['-D', data, '-U', username, '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions'], {
      ...asUser,
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: dir,
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${String((error as { stderr?: unknown }).stderr ?? error)}`, { cause: error });
  }
  const child = spawn(
    postgres,
    ['-D', data, '-k', socket, '-p', String(SOCKET_PORT), '-c', 'listen_addresses=', '-c', 'fsync=off', '-c', 'max_connections=20'],
    { ...asUser, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`PostgreSQL did not start within ${START_TIMEOUT_MS} ms:\n${log}`)),
        START_TIMEOUT_MS,
      );
      const onOutput = (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes('database system is ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on('data', onOutput);
      child.stderr?.on('data', onOutput);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`PostgreSQL exited (${String(code)}) before it was ready:\n${log}`));
      });
    });
  } catch (error) {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    host: socket,
    port: SOCKET_PORT,
    username,
    database: 'postgres',
    pid: child.pid!,
    async stop() {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fast shutdown (SIGINT) by pid, then SIGKILL if it lingers; resolves once it exited. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(child.pid!, 'SIGINT');
  const timer = setTimeout(
    () => child.exitCode === null && child.signalCode === null && process.kill(child.pid!, 'SIGKILL'),
    STOP_TIMEOUT_MS,
  );
  await exited;
  clearTimeout(timer);
}
