// What the figures were measured on: machine, runtime and package versions, date.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, totalmem, type as osType, release } from 'node:os';

export interface MachineInfo {
  readonly date: string;
  readonly os: string;
  readonly cpuModel: string;
  readonly cpuCount: number;
  readonly memoryGiB: number;
  readonly node: string;
  readonly packages: Readonly<Record<string, string>>;
  readonly kubectl?: string;
  readonly gitCommit?: string;
}

function packageVersion(name: string): string {
  try {
    const text = readFileSync(new URL(`../../node_modules/${name}/package.json`, import.meta.url), 'utf8');
    return (JSON.parse(text) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'not installed';
  }
}

function quiet(command: string, args: readonly string[]): string | undefined {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 }).trim();
  } catch {
    return undefined;
  }
}

export function machineInfo(): MachineInfo {
  const processors = cpus();
  const kubectlJson = quiet('kubectl', ['version', '--client', '-o', 'json']);
  let kubectl: string | undefined;
  if (kubectlJson) {
    try {
      kubectl = (JSON.parse(kubectlJson) as { clientVersion?: { gitVersion?: string } }).clientVersion?.gitVersion;
    } catch {
      kubectl = undefined;
    }
  }
  const gitCommit = quiet('git', ['rev-parse', '--short', 'HEAD']);
  return {
    date: new Date().toISOString(),
    os: `${osType()} ${release()}`,
    cpuModel: processors[0]?.model.trim() ?? 'unknown',
    cpuCount: processors.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    packages: {
      '@kubernetes/client-node': packageVersion('@kubernetes/client-node'),
      rxjs: packageVersion('rxjs'),
      typescript: packageVersion('typescript'),
      tsx: packageVersion('tsx'),
    },
    ...(kubectl ? { kubectl } : {}),
    ...(gitCommit ? { gitCommit } : {}),
  };
}

export function machineMarkdown(info: MachineInfo, extra: Readonly<Record<string, string>> = {}): string {
  const lines = [
    `- date: ${info.date}`,
    `- machine: ${info.cpuModel}, ${info.cpuCount} CPU(s), ${info.memoryGiB} GiB, ${info.os}`,
    `- Node ${info.node}; ${Object.entries(info.packages)
      .map(([name, version]) => `${name} ${version}`)
      .join(', ')}`,
    ...(info.kubectl ? [`- kubectl ${info.kubectl}`] : []),
    ...(info.gitCommit ? [`- kube-provisioner at git ${info.gitCommit} (plus uncommitted changes, if any)`] : []),
    ...Object.entries(extra).map(([key, value]) => `- ${key}: ${value}`),
  ];
  return lines.join('\n');
}
