// Unit tests of a system container's spec fields, CLI flags and Pod shape: pure functions,
// no cluster (the API server accepting the shape is tested by the integration project).
import { describe, expect, it } from 'vitest';
import { parseCreateArgs, withFlags } from '../../src/cli/args.js';
import { InvalidSpecError, UsageError } from '../../src/errors/input.js';
import { isSystemContainer, SYSTEM_TERMINATION_GRACE_SECONDS } from '../../src/input/system-container.js';
import { parseWorkloadSpec } from '../../src/input/workload-spec.js';
import type { V1Container, V1Deployment, V1PodSpec } from '../../src/kube/objects.js';
import { buildDeployment } from '../../src/members/deployment/manifest.js';

const BASE = { containerId: 7, nodeId: 1, hostname: 'sys', image: 'ghcr.io/mieweb/opensource-server/base:latest', cpus: 1, memoryMb: 512 };

function pod(deployment: V1Deployment): V1PodSpec {
  return deployment.spec!.template.spec!;
}
function main(deployment: V1Deployment): V1Container {
  return pod(deployment).containers[0]!;
}
function issuesOf(input: unknown): { path: string; message: string }[] {
  try {
    parseWorkloadSpec(input);
  } catch (error) {
    if (error instanceof InvalidSpecError) return error.issues.map(({ path, message }) => ({ path, message }));
    throw error;
  }
  return [];
}

describe('which containers are system containers', () => {
  it.each(['/sbin/init', '/lib/systemd/systemd', '/usr/lib/systemd/systemd', '/sbin/init --log-level=debug'])(
    'the command %s makes one (Manager stores it as one string)',
    (entrypoint) => {
      expect(isSystemContainer(parseWorkloadSpec({ ...BASE, entrypoint }))).toBe(true);
    },
  );

  it('an argv array whose first word is /sbin/init makes one', () => {
    expect(isSystemContainer(parseWorkloadSpec({ ...BASE, entrypoint: ['/sbin/init'] }))).toBe(true);
  });

  it.each([undefined, 'nginx -g "daemon off;"', 'init', '/bin/sh -c /sbin/init', '/usr/sbin/init'])(
    'the command %s does not',
    (entrypoint) => {
      expect(isSystemContainer(parseWorkloadSpec({ ...BASE, ...(entrypoint ? { entrypoint } : {}) }))).toBe(false);
    },
  );

  it('systemContainer overrides the detection both ways', () => {
    expect(isSystemContainer(parseWorkloadSpec({ ...BASE, entrypoint: '/sbin/init', systemContainer: false }))).toBe(false);
    expect(isSystemContainer(parseWorkloadSpec({ ...BASE, systemContainer: true }))).toBe(true);
  });

  it('systemContainer and hostUsers must be booleans, named with the rule', () => {
    expect(issuesOf({ ...BASE, systemContainer: 'yes', hostUsers: 0 })).toEqual([
      { path: 'systemContainer', message: 'must be true or false (got "yes")' },
      { path: 'hostUsers', message: 'must be true or false (got 0)' },
    ]);
  });

  it('the spec keeps systemContainer and hostUsers as given, and leaves them out when absent', () => {
    expect(parseWorkloadSpec({ ...BASE, systemContainer: false, hostUsers: false })).toMatchObject({
      systemContainer: false,
      hostUsers: false,
    });
    const plain = parseWorkloadSpec({ ...BASE, entrypoint: '/sbin/init' });
    expect('systemContainer' in plain).toBe(false);
    expect('hostUsers' in plain).toBe(false);
  });

  it("a system container's persisted paths must not be in its memory-backed directories", () => {
    expect(issuesOf({ ...BASE, entrypoint: '/sbin/init', storage: { sizeGb: 1, paths: ['/etc', '/run/app', '/tmp'] } })).toEqual([
      { path: 'storage.paths', message: 'must not hold "/run/app": a system container has /run as a memory-backed directory' },
      { path: 'storage.paths', message: 'must not hold "/tmp": a system container has /tmp as a memory-backed directory' },
    ]);
    // Any other container may persist them.
    expect(issuesOf({ ...BASE, storage: { sizeGb: 1, paths: ['/run/app', '/tmp'] } })).toEqual([]);
  });
});

describe("a system container's Pod", () => {
  const system = parseWorkloadSpec({
    ...BASE,
    entrypoint: '/sbin/init',
    runtimeClass: 'cgroup-writable',
    env: { LANG: 'C.UTF-8', Z: '1' },
    ports: [{ port: 22 }, { port: 3000 }],
  });

  it('has a console, no colours, the memory-backed directories and the RuntimeClass', () => {
    const deployment = buildDeployment(system);
    expect(main(deployment)).toMatchObject({
      tty: true,
      env: [
        { name: 'LANG', value: 'C.UTF-8' },
        { name: 'SYSTEMD_COLORS', value: '0' },
        { name: 'Z', value: '1' },
      ],
      volumeMounts: [
        { name: 'system-run', mountPath: '/run' },
        { name: 'system-run-lock', mountPath: '/run/lock' },
        { name: 'system-tmp', mountPath: '/tmp' },
      ],
    });
    expect(main(deployment).stdin).toBeUndefined();
    expect(pod(deployment)).toMatchObject({
      runtimeClassName: 'cgroup-writable',
      terminationGracePeriodSeconds: SYSTEM_TERMINATION_GRACE_SECONDS,
      volumes: [
        { name: 'system-run', emptyDir: { medium: 'Memory' } },
        { name: 'system-run-lock', emptyDir: { medium: 'Memory' } },
        { name: 'system-tmp', emptyDir: { medium: 'Memory' } },
      ],
    });
  });

  it("keeps the user's SYSTEMD_COLORS", () => {
    const deployment = buildDeployment(parseWorkloadSpec({ ...BASE, entrypoint: '/sbin/init', env: { SYSTEMD_COLORS: '1' } }));
    expect(main(deployment).env).toEqual([{ name: 'SYSTEMD_COLORS', value: '1' }]);
  });

  it('is ready when port 22 accepts a connection: a startup probe only, no readiness probe', () => {
    const container = main(buildDeployment(system));
    expect(container.startupProbe).toEqual({ tcpSocket: { port: 22 }, periodSeconds: 1, failureThreshold: 60 });
    expect(container.readinessProbe).toBeUndefined();
    expect(main(buildDeployment(system, { startupSeconds: 20 })).startupProbe?.failureThreshold).toBe(20);
  });

  it('has no probe without port 22 over TCP', () => {
    for (const ports of [[{ port: 3000 }], [{ port: 22, protocol: 'udp' }], undefined]) {
      const container = main(buildDeployment(parseWorkloadSpec({ ...BASE, entrypoint: '/sbin/init', ...(ports ? { ports } : {}) })));
      expect(container.startupProbe).toBeUndefined();
    }
  });

  it('names the stop signal only where the cluster keeps it, with the OS the API server asks for', () => {
    const without = buildDeployment(system);
    expect(main(without).lifecycle).toBeUndefined();
    expect(pod(without).os).toBeUndefined();
    const withSignals = buildDeployment(system, { stopSignals: true });
    expect(main(withSignals).lifecycle).toEqual({ stopSignal: 'SIGRTMIN+3' });
    expect(pod(withSignals).os).toEqual({ name: 'linux' });
  });

  it('is never privileged, adds no capability and mounts no host path', () => {
    const deployment = buildDeployment(system, { stopSignals: true });
    const text = JSON.stringify(deployment);
    expect(text).not.toContain('privileged');
    expect(text).not.toContain('capabilities');
    expect(text).not.toContain('hostPath');
    expect(main(deployment).securityContext).toBeUndefined();
  });

  it('runs in a user namespace with hostUsers false, for any container', () => {
    expect(pod(buildDeployment(parseWorkloadSpec({ ...BASE, entrypoint: '/sbin/init', hostUsers: false }))).hostUsers).toBe(false);
    expect(pod(buildDeployment(parseWorkloadSpec({ ...BASE, hostUsers: false }))).hostUsers).toBe(false);
    expect('hostUsers' in pod(buildDeployment(parseWorkloadSpec(BASE)))).toBe(false);
  });

  it('an ordinary container gets none of it', () => {
    const deployment = buildDeployment(
      parseWorkloadSpec({ ...BASE, entrypoint: '/sbin/init', systemContainer: false, ports: [{ port: 22 }] }),
    );
    expect(main(deployment)).not.toHaveProperty('tty');
    expect(main(deployment)).not.toHaveProperty('startupProbe');
    expect(pod(deployment)).not.toHaveProperty('terminationGracePeriodSeconds');
    expect(pod(deployment)).not.toHaveProperty('volumes');
  });

  it('keeps its storage mounts after the memory-backed ones', () => {
    const deployment = buildDeployment(parseWorkloadSpec({ ...BASE, entrypoint: '/sbin/init', storage: { sizeGb: 1, paths: ['/etc'] } }));
    expect(main(deployment).volumeMounts?.map((mount) => mount.mountPath)).toEqual(['/run', '/run/lock', '/tmp', '/etc']);
    expect(pod(deployment).volumes?.map((volume) => volume.name)).toEqual(['system-run', 'system-run-lock', 'system-tmp', 'storage']);
  });
});

describe('the CLI flags', () => {
  const base = ['--container-id', '7', '--node-id', '1', '--hostname', 'sys', '--image', 'debian', '--cpus', '1', '--memory-mb', '512'];

  it('--system-container, --no-system-container and --user-namespace set the spec fields', () => {
    const on = parseCreateArgs([...base, '--system-container', '--user-namespace', '--runtime-class', 'cgroup-writable']);
    expect(on).toMatchObject({ spec: { systemContainer: true, hostUsers: false, runtimeClass: 'cgroup-writable' } });
    expect(parseCreateArgs([...base, '--no-system-container'])).toMatchObject({ spec: { systemContainer: false } });
    const neither = parseCreateArgs(base);
    expect(neither !== 'help' && 'systemContainer' in neither.spec).toBe(false);
    expect(neither !== 'help' && 'hostUsers' in neither.spec).toBe(false);
  });

  it('the flags override the spec file', () => {
    const command = parseCreateArgs([...base, '-f', '-', '--no-system-container'], () => '{"systemContainer":true}');
    expect(command).toMatchObject({ spec: { systemContainer: false } });
  });

  it('--system-container with --no-system-container is refused', () => {
    expect(() => parseCreateArgs([...base, '--system-container', '--no-system-container'])).toThrow(UsageError);
    expect(() => parseCreateArgs([...base, '--system-container', '--no-system-container'])).toThrow(
      '--system-container and --no-system-container contradict each other: give one',
    );
  });

  it('a bad --runtime-class names the flag, the value and the rule', () => {
    const command = parseCreateArgs([...base, '--runtime-class', 'Cgroup_Writable']);
    if (command === 'help') throw new Error('help');
    let caught: unknown;
    try {
      parseWorkloadSpec(command.spec);
    } catch (error) {
      caught = error instanceof InvalidSpecError ? withFlags(error, command.sources) : error;
    }
    expect(caught).toBeInstanceOf(InvalidSpecError);
    const [issue] = (caught as InvalidSpecError).issues;
    expect(issue).toMatchObject({ path: 'runtimeClass', flag: '--runtime-class' });
    expect(issue?.message).toContain('must be a DNS-1123 subdomain');
    expect((caught as InvalidSpecError).message).toContain('Cgroup_Writable');
  });
});
