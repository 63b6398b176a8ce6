// The LXC-style `env` encoding shared by Manager's Proxmox and Docker clients:
// NUL-separated `KEY=value` pairs, plus an `entrypoint` string.
import { normalizeEnvironment } from './environment.js';
import type { Environment } from './environment.js';

export interface LxcEnvironmentConfig {
  env?: string;
  entrypoint?: string;
}

export function parseLxcEnvironment(encoded: unknown): Record<string, string> {
  if (typeof encoded !== 'string' || encoded === '') return {};
  const pairs: Record<string, string> = {};
  for (const pair of encoded.split('\0')) {
    const equals = pair.indexOf('=');
    if (equals > 0) pairs[pair.slice(0, equals)] = pair.slice(equals + 1);
  }
  return normalizeEnvironment(pairs);
}

/**
 * The config update for env and entrypoint. Empty parts are omitted rather than deleted,
 * so values the template already carries survive (creation never unsets anything).
 */
export function lxcEnvironmentConfig(environment: Environment, entrypoint: string | null): LxcEnvironmentConfig {
  const config: LxcEnvironmentConfig = {};
  const pairs = Object.entries(environment).map(([name, value]) => `${name}=${value}`);
  if (pairs.length > 0) config.env = pairs.join('\0');
  if (entrypoint) config.entrypoint = entrypoint;
  return config;
}
