// --port, --no-ports and --service-type: parsing, and issues named by the flag as typed.
// In-process, no cluster.
import { describe, expect, it } from 'vitest';
import { parseCreateArgs, withFlags } from '../../../src/cli/args.js';
import { parsePortFlag, portsFromFlags } from '../../../src/cli/port-flags.js';
import { runCli } from '../../../src/cli/run.js';
import { EXIT } from '../../../src/cli/exit-codes.js';
import { InvalidSpecError, UsageError } from '../../../src/errors/input.js';
import { parseWorkloadSpec } from '../../../src/input/workload-spec.js';

const base = [
  '--container-id',
  '42',
  '--node-id',
  '7',
  '--hostname',
  'web',
  '--image',
  'nginx:1.27',
  '--cpus',
  '0.5',
  '--memory-mb',
  '512',
];

function specIssues(argv: string[]) {
  const command = parseCreateArgs([...base, ...argv]);
  if (command === 'help') throw new Error('help');
  try {
    parseWorkloadSpec(command.spec);
  } catch (error) {
    if (!(error instanceof InvalidSpecError)) throw error;
    return withFlags(error, command.sources).issues.map((issue) => `${issue.flag}: ${issue.message}`);
  }
  throw new Error('expected InvalidSpecError');
}

describe('parsePortFlag', () => {
  it.each([
    ['22', { port: 22, protocol: 'tcp' }],
    ['8080/tcp', { port: 8080, protocol: 'tcp' }],
    ['53/udp', { port: 53, protocol: 'udp' }],
    [' 53/udp ', { port: 53, protocol: 'udp' }],
    ['http', { port: 'http', protocol: 'tcp' }],
    ['22/sctp', { port: 22, protocol: 'sctp' }],
  ])('%j', (text, value) => {
    expect(parsePortFlag(text)).toEqual(value);
  });

  it.each(['', '/tcp', '22/', '/'])('refuses %j as a usage error', (text) => {
    expect(() => parsePortFlag(text)).toThrow(UsageError);
    expect(() => parsePortFlag(text)).toThrow('--port must be PORT, PORT/tcp or PORT/udp');
  });

  it('--no-ports is an empty list, and contradicts --port', () => {
    expect(portsFromFlags(undefined, true)).toEqual([]);
    expect(portsFromFlags(['22'], undefined)).toEqual([{ port: 22, protocol: 'tcp' }]);
    expect(portsFromFlags(undefined, undefined)).toBeUndefined();
    expect(() => portsFromFlags(['22'], true)).toThrow('--no-ports and --port contradict each other');
  });
});

describe('create --port and --service-type', () => {
  it('become the spec’s ports (repeatable, in order) and serviceType', () => {
    const command = parseCreateArgs([...base, '--port', '22', '--port', '8080/tcp', '--port', '53/udp', '--service-type', 'LoadBalancer']);
    if (command === 'help') throw new Error('help');
    expect(command.spec.ports).toEqual([
      { port: 22, protocol: 'tcp' },
      { port: 8080, protocol: 'tcp' },
      { port: 53, protocol: 'udp' },
    ]);
    expect(parseWorkloadSpec(command.spec)).toMatchObject({
      serviceType: 'LoadBalancer',
      ports: [{ port: 22 }, { port: 53 }, { port: 8080 }],
    });
  });

  it('replace the spec file’s ports rather than merge with them', () => {
    const command = parseCreateArgs(['-f', '-', '--port', '22'], () => JSON.stringify({ ports: [{ port: 80 }] }));
    if (command === 'help') throw new Error('help');
    expect(command.spec.ports).toEqual([{ port: 22, protocol: 'tcp' }]);
  });

  it('name the --port flag as typed in every issue', () => {
    expect(specIssues(['--port', '22', '--port', '70000', '--port', '22/tcp', '--port', '53/UDP', '--port', 'ssh'])).toEqual([
      '--port 70000: must be from 1 to 65535 (got 70000)',
      '--port 53/UDP: must be "tcp" or "udp" (lowercase) (got "UDP")',
      '--port ssh: must be a whole number from 1 to 65535 (got "ssh")',
    ]);
    expect(specIssues(['--port', '22', '--port', '22/tcp'])).toEqual(['--port 22/tcp: 22/tcp is given twice (also ports.0)']);
    // Each refusal names the value given, as every other flag's does.
    expect(specIssues(['--service-type', 'Ingress', '--port', '22'])).toEqual([
      '--service-type: must be "ClusterIP", "LoadBalancer" or "NodePort" (got "Ingress")',
    ]);
    expect(specIssues(['--service-type', 'External', '--port', '22'])).toEqual([
      '--service-type: must be "ClusterIP", "LoadBalancer" or "NodePort" (got "External")',
    ]);
    expect(specIssues(['--service-type', 'NodePort'])).toEqual([
      '--service-type: needs ports: a container without ports gets no Service (got "NodePort" and no ports)',
    ]);
  });

  it('exits 2 with the flag named, before any kubeconfig is read', async () => {
    const err: string[] = [];
    const code = await runCli(['create', ...base, '--port', '0', '--kubeconfig', '/nonexistent'], {
      stdout: () => undefined,
      stderr: (line) => err.push(line),
    });
    expect(code).toBe(EXIT.invalidInput);
    expect(err.join('\n')).toContain('--port 0: must be from 1 to 65535 (got 0)');
  });
});
