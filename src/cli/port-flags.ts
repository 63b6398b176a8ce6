// --port PORT[/tcp|/udp] (repeatable), --no-ports and --service-type, for create and
// reconfigure. The values stay raw: the spec's rules (src/input/ports.ts) judge them, and
// each issue is then named by the --port flag it came from.
import { UsageError } from '../errors/input.js';

/** One --port flag as the spec takes it: the number (or the text, for validation to refuse) and the protocol. */
export interface PortFlagValue {
  readonly port: number | string;
  readonly protocol: string;
}

const PORT_FLAG = /^([^/]*)(?:\/(.*))?$/;

/** `22` -> { port: 22, protocol: 'tcp' }; `53/udp` -> { port: 53, protocol: 'udp' }. */
export function parsePortFlag(text: string): PortFlagValue {
  const match = PORT_FLAG.exec(text.trim());
  const number = match?.[1] ?? '';
  const protocol = match?.[2];
  if (number === '' || protocol === '') {
    throw new UsageError(`--port must be PORT, PORT/tcp or PORT/udp (e.g. --port 22, --port 53/udp), not "${text}"`);
  }
  return { port: /^\d+$/.test(number) ? Number(number) : number, protocol: protocol ?? 'tcp' };
}

export function parsePortFlags(texts: readonly string[]): PortFlagValue[] {
  return texts.map(parsePortFlag);
}

/**
 * The ports of create's or reconfigure's flags: the --port list, [] for --no-ports,
 * undefined for neither. Both at once contradict each other.
 */
export function portsFromFlags(ports: readonly string[] | undefined, noPorts: boolean | undefined): PortFlagValue[] | undefined {
  if (noPorts && ports !== undefined) throw new UsageError('--no-ports and --port contradict each other: give one of them');
  if (noPorts) return [];
  return ports === undefined ? undefined : parsePortFlags(ports);
}

/** The flag an issue at `ports.<index>...` came from: `--port 22/tcp` as typed. */
export function portFlagFor(path: string, texts: readonly string[]): string | undefined {
  const [field, index] = path.split('.');
  if (field !== 'ports') return undefined;
  if (index === undefined) return '--port';
  const text = texts[Number(index)];
  return text === undefined ? '--port' : `--port ${text}`;
}

export const SERVICE_TYPE_FLAG_HELP = 'ClusterIP (default), LoadBalancer or NodePort';
