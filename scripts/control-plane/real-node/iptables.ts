// The iptables chains the real node's parts create: the kubelet's (KUBE-FIREWALL,
// KUBE-KUBELET-CANARY, ...), kube-proxy's (KUBE-SERVICES, KUBE-SVC-..., ...) and the CNI
// plugins' (CNI-<id> for masquerade, CNI-HOSTPORT-... for host ports). Removing them means
// removing every rule that jumps to them, then flushing and deleting them, one table at a
// time with iptables-restore --noflush, so rules of anyone else stay exactly as they are.
import { execFileSync } from 'node:child_process';

import { findCommand } from './preflight.js';

const OUR_CHAIN = /^(KUBE-|CNI-)/;
const TABLES = ['filter', 'nat', 'mangle', 'raw'] as const;
const FAMILIES = [
  { save: 'iptables-save', restore: 'iptables-restore' },
  { save: 'ip6tables-save', restore: 'ip6tables-restore' },
] as const;

/** Our chains per family and table, e.g. "iptables nat: KUBE-SERVICES, CNI-1a2b...". */
export function listNodeChains(): string[] {
  const found: string[] = [];
  for (const family of availableFamilies()) {
    for (const table of TABLES) {
      const chains = parseTable(save(family.save, table)).chains.filter((chain) => OUR_CHAIN.test(chain));
      if (chains.length > 0) found.push(`${family.save.replace('-save', '')} ${table}: ${chains.join(', ')}`);
    }
  }
  return found;
}

/** Removes our chains and every jump to them; returns what could not be removed. */
export function removeNodeChains(): string[] {
  const problems: string[] = [];
  for (const family of availableFamilies()) {
    for (const table of TABLES) {
      const script = removalScript(table, save(family.save, table));
      if (script === undefined) continue;
      try {
        execFileSync(family.restore, ['--noflush', '-w', '5'], { input: script, stdio: ['pipe', 'ignore', 'pipe'] });
      } catch (error) {
        const stderr = (error as { stderr?: Buffer }).stderr?.toString('utf8').trim() ?? '';
        problems.push(`${family.restore} ${table}: ${stderr || (error as Error).message}`);
      }
    }
  }
  return problems;
}

/**
 * The iptables-restore --noflush input that removes our chains from one table, given what
 * iptables-save printed for it; undefined when the table has none.
 */
export function removalScript(table: string, saved: string): string | undefined {
  const parsed = parseTable(saved);
  const ours = parsed.chains.filter((chain) => OUR_CHAIN.test(chain));
  if (ours.length === 0) return undefined;
  const jumps = parsed.rules.filter((rule) => !OUR_CHAIN.test(rule.chain) && ours.includes(rule.target ?? ''));
  return [
    `*${table}`,
    ...jumps.map((rule) => `-D ${rule.text.slice('-A '.length)}`),
    ...ours.map((chain) => `-F ${chain}`),
    ...ours.map((chain) => `-X ${chain}`),
    'COMMIT',
    '',
  ].join('\n');
}

interface Rule {
  readonly chain: string;
  readonly target: string | undefined;
  /** The line as iptables-save wrote it, starting with "-A ". */
  readonly text: string;
}

function parseTable(text: string): { chains: string[]; rules: Rule[] } {
  const chains: string[] = [];
  const rules: Rule[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith(':')) chains.push(line.slice(1).split(' ')[0] ?? '');
    else if (line.startsWith('-A ')) {
      const chain = line.split(' ')[1] ?? '';
      const target = / -[jg] (\S+)/.exec(line)?.[1];
      rules.push({ chain, target, text: line });
    }
  }
  return { chains, rules };
}

function save(command: string, table: string): string {
  try {
    return execFileSync(command, ['-t', table], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    // A table the kernel does not have (raw, say) holds nothing of ours.
    return '';
  }
}

function availableFamilies(): (typeof FAMILIES)[number][] {
  return FAMILIES.filter((family) => findCommand(family.save) !== undefined && findCommand(family.restore) !== undefined);
}
