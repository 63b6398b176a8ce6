// buildService(): the Service a container with ports gets, beside its Deployment. Pure.
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors/input.js';
import { parseWorkloadSpec } from '../../src/input/workload-spec.js';
import { buildDeployment } from '../../src/members/deployment/manifest.js';
import { buildService, deploymentOwner } from '../../src/members/service/manifest.js';

const spec = parseWorkloadSpec({
  containerId: 42,
  nodeId: 7,
  hostname: 'web',
  image: 'nginx:1.27',
  cpus: 0.5,
  memoryMb: 256,
  instance: 'prod',
  ports: [{ port: 8080, name: 'http' }, { port: 53, protocol: 'udp' }, { port: 22 }],
});

describe('buildService', () => {
  it('has the Deployment’s name, namespace, labels and selector, and one port per entry', () => {
    const deployment = buildDeployment(spec, { namespace: 'team-a' });
    const service = buildService(spec, { namespace: 'team-a', owner: { name: 'web', uid: 'u-1' } });
    expect(service).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'web',
        namespace: 'team-a',
        labels: deployment.metadata?.labels,
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u-1' }],
      },
      spec: {
        type: 'ClusterIP',
        selector: deployment.spec?.selector.matchLabels,
        ports: [
          { name: 'tcp-22', protocol: 'TCP', port: 22, targetPort: 22 },
          { name: 'udp-53', protocol: 'UDP', port: 53, targetPort: 53 },
          { name: 'http', protocol: 'TCP', port: 8080, targetPort: 8080 },
        ],
      },
    });
    expect(service.metadata?.labels?.['org.mieweb.opensource-server.instance']).toBe('prod');
  });

  it('is deterministic, JSON-clean, and carries the type and fixed node ports', () => {
    const lb = parseWorkloadSpec({ ...specInput(), serviceType: 'LoadBalancer', ports: [{ port: 22, nodePort: 30022 }] });
    const service = buildService(lb);
    expect(service).toEqual(buildService(lb));
    expect(JSON.parse(JSON.stringify(service))).toEqual(service);
    expect(service.spec?.type).toBe('LoadBalancer');
    expect(service.spec?.ports).toEqual([{ name: 'tcp-22', protocol: 'TCP', port: 22, targetPort: 22, nodePort: 30022 }]);
    expect(service.metadata?.namespace).toBe('default');
    expect(service.metadata).not.toHaveProperty('ownerReferences');
  });

  it('refuses a spec without ports: such a container has no Service', () => {
    expect(() => buildService(parseWorkloadSpec(specInput()))).toThrow(InvalidOptionError);
  });

  it('takes its owner from a Deployment the API server returned, and refuses one without a uid', () => {
    expect(deploymentOwner({ metadata: { name: 'web', uid: 'u-2' } })).toEqual({ name: 'web', uid: 'u-2' });
    expect(() => deploymentOwner(buildDeployment(spec))).toThrow(/must have a name and a uid/);
  });
});

function specInput(): Record<string, unknown> {
  return { containerId: 1, nodeId: 1, hostname: 'box', image: 'nginx:1.27', cpus: 1, memoryMb: 128 };
}
