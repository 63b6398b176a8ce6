// The ports of a container and the kind of Service that carries them: the input rules.
// A container with ports gets one Service with one port per entry; every rule the API
// server would apply to those ports (and one it applies to the Service's name) is checked
// here first, so bad input never reaches a cluster.

import * as z from 'zod';

/** The transport protocols a Manager service uses (Manager's TransportService.protocol). */
export const PORT_PROTOCOLS = ['tcp', 'udp'] as const;
export type PortProtocol = (typeof PORT_PROTOCOLS)[number];

/** How the Service is reached: only inside the cluster (the default), through a load balancer, or on every node. */
export const SERVICE_TYPES = ['ClusterIP', 'LoadBalancer', 'NodePort'] as const;
export type ServiceType = (typeof SERVICE_TYPES)[number];
export const DEFAULT_SERVICE_TYPE: ServiceType = 'ClusterIP';

/** One port of a container, normalised: the protocol is always there. */
export interface WorkloadPort {
  /** The port the container listens on, and the Service's port: the same number. */
  readonly port: number;
  readonly protocol: PortProtocol;
  /** The Service port's name; absent: `<protocol>-<port>` (see servicePortName). */
  readonly name?: string;
  /** A fixed node port (NodePort and LoadBalancer only); absent: the API server picks one. */
  readonly nodePort?: number;
}

export const MIN_PORT = 1;
export const MAX_PORT = 65_535;
/**
 * Far above what a container serves; each port is a rule in every node's proxy, so a longer
 * list is a mistake (a range typed out, say) rather than a container.
 */
export const MAX_PORTS = 100;

const PORT_NAME_MAX = 15;
const PORT_NAME_RULE =
  "must be a Kubernetes port name (IANA service name): lowercase letters, digits and '-', 1-15 characters, at least one letter, no '--', not starting or ending with '-'";

/** The problem with `name` as a Kubernetes port name (IANA_SVC_NAME), or undefined. */
export function portNameProblem(name: string): string | undefined {
  if (name.length === 0) return `${PORT_NAME_RULE} (it is empty)`;
  if (name.length > PORT_NAME_MAX) return `${PORT_NAME_RULE} (it has ${name.length} characters)`;
  const disallowed = [...new Set([...name].filter((char) => !/[-a-z0-9]/.test(char)))];
  if (disallowed.length > 0) return `${PORT_NAME_RULE} (it contains ${disallowed.map((char) => JSON.stringify(char)).join(', ')})`;
  if (!/[a-z]/.test(name)) return `${PORT_NAME_RULE} (it has no letter)`;
  if (name.includes('--')) return `${PORT_NAME_RULE} (it contains "--")`;
  if (name.startsWith('-') || name.endsWith('-')) return `${PORT_NAME_RULE} (it starts or ends with '-')`;
  return undefined;
}

/**
 * The Service port's name: the one given, else `<protocol>-<port>` (e.g. `tcp-22`). A
 * Service with more than one port must name each, and a generated name is a valid port
 * name and the same for the same port, so the Service never depends on who named what.
 */
export function servicePortName(port: Pick<WorkloadPort, 'port' | 'protocol' | 'name'>): string {
  return port.name ?? `${port.protocol}-${port.port}`;
}

/** `22/tcp`, as the CLI takes it and messages show it. */
export function formatPort(port: Pick<WorkloadPort, 'port' | 'protocol'>): string {
  return `${port.port}/${port.protocol}`;
}

function portNumberProblem(value: number): string | undefined {
  if (!Number.isInteger(value)) return `must be a whole number from ${MIN_PORT} to ${MAX_PORT}`;
  if (value < MIN_PORT || value > MAX_PORT) return `must be from ${MIN_PORT} to ${MAX_PORT} (got ${value})`;
  return undefined;
}

const portNumber = z
  .number({ error: (issue) => (issue.input === undefined ? 'is required' : `must be a whole number from ${MIN_PORT} to ${MAX_PORT}`) })
  .superRefine((value, ctx) => {
    const problem = portNumberProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

const portEntry = z.strictObject(
  {
    port: portNumber,
    protocol: z.enum(PORT_PROTOCOLS, { error: 'must be "tcp" or "udp" (lowercase)' }).default('tcp'),
    name: z
      .string({ error: 'must be a string (a port name such as "ssh")' })
      .superRefine((value, ctx) => {
        const problem = portNameProblem(value);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .optional(),
    nodePort: portNumber.optional(),
  },
  { error: (issue) => (issue.code === 'invalid_type' ? 'must be an object { port, protocol?, name?, nodePort? }' : undefined) },
);

/** The fields of one entry of `ports`. */
export const PORT_FIELDS: readonly string[] = Object.keys(portEntry.shape);

/** `ports`: a list of entries; absent or null means none. Each entry's own rules; the list's rules are in portListIssues. */
export const portsSchema = z
  .array(portEntry, { error: 'must be a list of { port, protocol?, name? } entries' })
  .max(MAX_PORTS, { error: `must have at most ${MAX_PORTS} entries` })
  .nullish()
  .transform((value) => value ?? undefined);

export const serviceTypeSchema = z
  .enum(SERVICE_TYPES, { error: 'must be "ClusterIP", "LoadBalancer" or "NodePort"' })
  .nullish()
  .transform((value) => value ?? undefined);

export interface PortListIssue {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/**
 * The rules across entries and fields, as the API server applies them to a Service: no
 * port (with its protocol) twice, no name twice (a generated one included), no node port
 * twice, a node port only where the type has node ports, and a type only with ports.
 * Paths are relative to the spec: `ports.1`, `ports.0.name`, `serviceType`.
 */
export function portListIssues(ports: readonly WorkloadPort[] | undefined, serviceType: ServiceType | undefined): PortListIssue[] {
  const issues: PortListIssue[] = [];
  const list = ports ?? [];
  if (serviceType !== undefined && list.length === 0) {
    issues.push({
      path: ['serviceType'],
      message: `needs ports: a container without ports gets no Service (got "${serviceType}" and no ports)`,
    });
  }
  const byPort = new Map<string, number>();
  const byName = new Map<string, number>();
  const byNodePort = new Map<string, number>();
  const type = serviceType ?? DEFAULT_SERVICE_TYPE;
  list.forEach((entry, index) => {
    const key = formatPort(entry);
    const samePort = byPort.get(key);
    if (samePort !== undefined) {
      // One problem per entry: a repeated port repeats its default name too.
      issues.push({ path: ['ports', index], message: `${key} is given twice (also ports.${samePort})` });
      return;
    }
    byPort.set(key, index);

    const name = servicePortName(entry);
    const sameName = byName.get(name);
    if (sameName !== undefined) {
      const path = entry.name !== undefined ? ['ports', index, 'name'] : ['ports', sameName, 'name'];
      const other = entry.name !== undefined ? sameName : index;
      issues.push({ path, message: `"${name}" is also the name of ports.${other}; each port needs a name of its own` });
    } else byName.set(name, index);

    if (entry.nodePort !== undefined) {
      if (type === 'ClusterIP') {
        issues.push({
          path: ['ports', index, 'nodePort'],
          message: `is only for serviceType "NodePort" or "LoadBalancer" (got ${entry.nodePort} with serviceType "${type}")`,
        });
      }
      const nodeKey = `${entry.nodePort}/${entry.protocol}`;
      const sameNodePort = byNodePort.get(nodeKey);
      if (sameNodePort !== undefined) {
        issues.push({ path: ['ports', index, 'nodePort'], message: `${nodeKey} is also the node port of ports.${sameNodePort}` });
      } else byNodePort.set(nodeKey, index);
    }
  });
  return issues;
}

/** The same ports in one order (by port, then protocol), so equal sets give equal Services. */
export function sortPorts(ports: readonly WorkloadPort[]): WorkloadPort[] {
  return [...ports].sort((a, b) => a.port - b.port || a.protocol.localeCompare(b.protocol));
}

/** Copies an entry without undefined fields: `{ port, protocol }` plus name and nodePort when set. */
export function normalisePort(entry: {
  port: number;
  protocol: PortProtocol;
  name?: string | undefined;
  nodePort?: number | undefined;
}): WorkloadPort {
  return {
    port: entry.port,
    protocol: entry.protocol,
    ...(entry.name !== undefined ? { name: entry.name } : {}),
    ...(entry.nodePort !== undefined ? { nodePort: entry.nodePort } : {}),
  };
}

const DNS_1035_LABEL = /^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A Service's name must be a DNS-1035 label (a DNS-1123 label that starts with a letter).
 * The Service takes the hostname, so a container with ports needs such a hostname.
 */
export function serviceNameProblem(hostname: string): string | undefined {
  if (DNS_1035_LABEL.test(hostname)) return undefined;
  return 'must start with a letter when the container has ports: its Service takes this name, and a Service name is a DNS-1035 label';
}
