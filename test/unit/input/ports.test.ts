// The ports input rules (src/input/ports.ts) through parseWorkloadSpec, as a caller meets
// them: every problem with its field path, nothing dropped, one order for equal sets.
import { describe, expect, it } from 'vitest';
import { InvalidSpecError, type SpecIssue } from '../../../src/errors/input.js';
import { MAX_PORTS, portNameProblem, servicePortName } from '../../../src/input/ports.js';
import { parseWorkloadSpec } from '../../../src/input/workload-spec.js';

const base = { containerId: 42, nodeId: 7, hostname: 'web', image: 'nginx:1.27', cpus: 0.5, memoryMb: 256 };

function issuesOf(input: Record<string, unknown>): readonly SpecIssue[] {
  try {
    parseWorkloadSpec({ ...base, ...input });
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidSpecError);
    return (error as InvalidSpecError).issues;
  }
  throw new Error('expected InvalidSpecError');
}

describe('ports: valid input', () => {
  it('defaults the protocol to tcp, keeps names and node ports, and sorts by port then protocol', () => {
    const spec = parseWorkloadSpec({
      ...base,
      serviceType: 'NodePort',
      ports: [{ port: 8080, name: 'web' }, { port: 53, protocol: 'udp' }, { port: 53, protocol: 'tcp', nodePort: 30053 }, { port: 22 }],
    });
    expect(spec.ports).toEqual([
      { port: 22, protocol: 'tcp' },
      { port: 53, protocol: 'tcp', nodePort: 30053 },
      { port: 53, protocol: 'udp' },
      { port: 8080, protocol: 'tcp', name: 'web' },
    ]);
    expect(spec.serviceType).toBe('NodePort');
  });

  it('treats no ports, null and an empty list alike: no ports field, no Service', () => {
    for (const ports of [undefined, null, []]) expect(Object.keys(parseWorkloadSpec({ ...base, ports }))).not.toContain('ports');
  });

  it('gives equal sets in any order the same spec', () => {
    const a = parseWorkloadSpec({ ...base, ports: [{ port: 80 }, { port: 22 }] });
    const b = parseWorkloadSpec({ ...base, ports: [{ port: 22 }, { port: 80, protocol: 'tcp' }] });
    expect(a).toEqual(b);
  });

  it('accepts the edges of the port range and the longest port name', () => {
    const spec = parseWorkloadSpec({ ...base, ports: [{ port: 1 }, { port: 65535, name: 'a23456789012345' }] });
    expect(spec.ports?.map((port) => port.port)).toEqual([1, 65535]);
  });
});

describe('ports: every problem named by its field', () => {
  it.each([
    [0, 'ports.0.port', 'must be from 1 to 65535 (got 0)'],
    [65536, 'ports.0.port', 'must be from 1 to 65535 (got 65536)'],
    [22.5, 'ports.0.port', 'must be a whole number from 1 to 65535 (got 22.5)'],
    ['22', 'ports.0.port', 'must be a whole number from 1 to 65535 (got "22")'],
    [Number.NaN, 'ports.0.port', 'must be a whole number from 1 to 65535 (got NaN)'],
  ])('port %s', (port, path, message) => {
    expect(issuesOf({ ports: [{ port }] })).toEqual([{ path, message }]);
  });

  it('a missing port, an unknown key, a protocol in capitals or another protocol', () => {
    expect(issuesOf({ ports: [{ protocol: 'tcp' }] })).toEqual([{ path: 'ports.0.port', message: 'is required' }]);
    expect(issuesOf({ ports: [{ port: 22, proto: 'tcp' }] })).toEqual([
      { path: 'ports.0.proto', message: 'is not a known field (allowed: port, protocol, name, nodePort)' },
    ]);
    expect(issuesOf({ ports: [{ port: 22, protocol: 'TCP' }] })).toEqual([
      { path: 'ports.0.protocol', message: 'must be "tcp" or "udp" (lowercase) (got "TCP")' },
    ]);
    expect(issuesOf({ ports: [{ port: 22, protocol: 'sctp' }] })[0]?.path).toBe('ports.0.protocol');
  });

  it('a list that is not a list, an entry that is not an object, too many entries', () => {
    expect(issuesOf({ ports: 22 })).toEqual([{ path: 'ports', message: 'must be a list of { port, protocol?, name? } entries (got 22)' }]);
    expect(issuesOf({ ports: [22] })).toEqual([
      { path: 'ports.0', message: 'must be an object { port, protocol?, name?, nodePort? } (got 22)' },
    ]);
    const many = Array.from({ length: MAX_PORTS + 1 }, (_, index) => ({ port: index + 1 }));
    expect(issuesOf({ ports: many })).toEqual([{ path: 'ports', message: `must have at most ${MAX_PORTS} entries (got a list)` }]);
  });

  it('the same port and protocol twice; the same number with both protocols is fine', () => {
    expect(issuesOf({ ports: [{ port: 22 }, { port: 22, protocol: 'tcp' }] })).toEqual([
      { path: 'ports.1', message: '22/tcp is given twice (also ports.0)' },
    ]);
    expect(parseWorkloadSpec({ ...base, ports: [{ port: 53 }, { port: 53, protocol: 'udp' }] }).ports).toHaveLength(2);
  });

  it('a name given twice, or equal to the name another port is given by default', () => {
    expect(
      issuesOf({
        ports: [
          { port: 22, name: 'ssh' },
          { port: 2222, name: 'ssh' },
        ],
      }),
    ).toEqual([{ path: 'ports.1.name', message: '"ssh" is also the name of ports.0; each port needs a name of its own' }]);
    // Port 22 is named tcp-22 by default; naming port 80 so would make two ports tcp-22.
    expect(issuesOf({ ports: [{ port: 22 }, { port: 80, name: 'tcp-22' }] })).toEqual([
      { path: 'ports.1.name', message: '"tcp-22" is also the name of ports.0; each port needs a name of its own' },
    ]);
  });

  it.each([
    ['', 'it is empty'],
    ['a234567890123456', 'it has 16 characters'],
    ['SSH', 'it contains "S", "H"'],
    ['2222', 'it has no letter'],
    ['a--b', 'it contains "--"'],
    ['-ssh', "it starts or ends with '-'"],
  ])('port name %j: %s', (name, detail) => {
    const [issue] = issuesOf({ ports: [{ port: 22, name }] });
    expect(issue?.path).toBe('ports.0.name');
    expect(issue?.message).toContain(detail);
    expect(issue?.message).toBe(`${portNameProblem(name)} (got ${JSON.stringify(name)})`);
  });

  it('a node port without a type that has node ports, or given twice', () => {
    expect(issuesOf({ ports: [{ port: 22, nodePort: 30022 }] })).toEqual([
      {
        path: 'ports.0.nodePort',
        message: 'is only for serviceType "NodePort" or "LoadBalancer" (got 30022 with serviceType "ClusterIP")',
      },
    ]);
    expect(
      issuesOf({
        serviceType: 'LoadBalancer',
        ports: [
          { port: 22, nodePort: 30022 },
          { port: 23, nodePort: 30022 },
        ],
      }),
    ).toEqual([{ path: 'ports.1.nodePort', message: '30022/tcp is also the node port of ports.0' }]);
  });

  it('a Service type without ports, and one Kubernetes does not have', () => {
    expect(issuesOf({ serviceType: 'LoadBalancer' })).toEqual([
      { path: 'serviceType', message: 'needs ports: a container without ports gets no Service (got "LoadBalancer" and no ports)' },
    ]);
    expect(issuesOf({ serviceType: 'ExternalName', ports: [{ port: 22 }] })).toEqual([
      { path: 'serviceType', message: 'must be "ClusterIP", "LoadBalancer" or "NodePort" (got "ExternalName")' },
    ]);
  });

  it('a hostname that cannot name a Service, only when there are ports', () => {
    expect(parseWorkloadSpec({ ...base, hostname: '1web' }).hostname).toBe('1web');
    expect(issuesOf({ hostname: '1web', ports: [{ port: 22 }] })).toEqual([
      {
        path: 'hostname',
        message:
          'must start with a letter when the container has ports: its Service takes this name, and a Service name is a DNS-1035 label (got "1web")',
      },
    ]);
  });

  it('lists the ports problems together with the other fields’ problems', () => {
    const paths = issuesOf({ cpus: 0, serviceType: 'NodePort', ports: [{ port: 22 }, { port: 22 }] }).map((issue) => issue.path);
    expect(paths).toEqual(['cpus', 'ports.1']);
  });
});

describe('servicePortName', () => {
  it('is the name given, else protocol-port', () => {
    expect(servicePortName({ port: 22, protocol: 'tcp' })).toBe('tcp-22');
    expect(servicePortName({ port: 53, protocol: 'udp' })).toBe('udp-53');
    expect(servicePortName({ port: 22, protocol: 'tcp', name: 'ssh' })).toBe('ssh');
    expect(portNameProblem('udp-65535')).toBeUndefined();
  });
});
