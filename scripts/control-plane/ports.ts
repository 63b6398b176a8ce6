// Free loopback ports for the control plane's components.
//
// Ports are drawn at random from BELOW the kernel's ephemeral range: a port the kernel
// hands out for port 0 could meanwhile become the local port of some outgoing connection
// (say, the apiserver's to etcd) before our component binds it, which is a classic flake.
// Each candidate is proven free by binding it, and all listeners of one request are held
// together until every port is found, so one cluster never gets a port twice.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { randomInt } from 'node:crypto';

export const LOOPBACK = '127.0.0.1';

const LOWEST_CANDIDATE = 20_000;
const FALLBACK_EPHEMERAL_START = 32_768;
const MAX_ATTEMPTS_PER_PORT = 50;

export async function reserveFreePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  const upperBound = ephemeralRangeStart();
  try {
    while (servers.length < count) servers.push(await bindSomeFreePort(upperBound));
    return servers.map(portOf);
  } finally {
    await Promise.all(servers.map(closeServer));
  }
}

async function bindSomeFreePort(upperBoundExclusive: number): Promise<Server> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS_PER_PORT; attempt += 1) {
    const server = await tryListen(randomInt(LOWEST_CANDIDATE, upperBoundExclusive));
    if (server !== undefined) return server;
  }
  throw new Error(`no free loopback port found in [${LOWEST_CANDIDATE}, ${upperBoundExclusive}) after ${MAX_ATTEMPTS_PER_PORT} attempts`);
}

function tryListen(port: number): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen({ host: LOOPBACK, port, exclusive: true }, () => resolve(server));
  });
}

function ephemeralRangeStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const start = Number(low);
    return Number.isInteger(start) && start > LOWEST_CANDIDATE + 1000 ? start : FALLBACK_EPHEMERAL_START;
  } catch {
    return FALLBACK_EPHEMERAL_START;
  }
}

function portOf(server: Server): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('a TCP listener has no port');
  return address.port;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
