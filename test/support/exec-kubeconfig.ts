// A kubeconfig for the test cluster whose user's credentials an exec plugin prints: this
// Node running `args` (a script, then its arguments), with TOKEN_FILE in its environment.
import { readFileSync, writeFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { clusterEnv } from './cluster-env.js';

export function writeExecKubeconfig(path: string, options: { namespace: string; args: readonly string[]; tokenFile: string }): string {
  const admin = new KubeConfig();
  admin.loadFromFile(clusterEnv().kubeconfigPath);
  const cluster = admin.getCurrentCluster()!;
  const ca = cluster.caData ?? readFileSync(cluster.caFile!).toString('base64');
  writeFileSync(
    path,
    `apiVersion: v1
kind: Config
current-context: exec
clusters:
- name: local
  cluster:
    server: ${cluster.server}
    certificate-authority-data: ${ca}
contexts:
- name: exec
  context: { cluster: local, user: exec-user, namespace: ${options.namespace} }
users:
- name: exec-user
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ${JSON.stringify(process.execPath)}
      args: ${JSON.stringify(options.args)}
      env: [{ name: TOKEN_FILE, value: ${JSON.stringify(options.tokenFile)} }]
      interactiveMode: Never
`,
  );
  return path;
}
