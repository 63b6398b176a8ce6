// A kubeconfig whose API server nothing answers: port 1 on loopback, where every connection
// is refused at once. For tests of what a client says and does while a cluster cannot be
// reached; written to a fresh temporary folder the caller may remove (`dir`).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const UNREACHABLE_SERVER = 'https://127.0.0.1:1';

export function unreachableKubeconfig(options: { readonly token: string; readonly namespace?: string }): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'kp-unreachable-'));
  const path = join(dir, 'config');
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'current-context: c',
      `clusters: [{name: c, cluster: {server: "${UNREACHABLE_SERVER}"}}]`,
      `users: [{name: u, user: {token: ${options.token}}}]`,
      `contexts: [{name: c, context: {cluster: c, user: u${options.namespace ? `, namespace: ${options.namespace}` : ''}}}]`,
    ].join('\n'),
  );
  return { dir, path };
}
