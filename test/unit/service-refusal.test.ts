// serviceRefusal(): the API server's refusals of a Service, as the real kube-apiserver
// v1.36 sent them on the local control plane (the Status bodies below are copied from its
// answers), turned into ServiceRejectedError naming our field and keeping its words.
import { describe, expect, it } from 'vitest';
import { ApiUnreachableError, QuotaExceededError } from '../../src/errors/api.js';
import { ServiceRejectedError } from '../../src/workload/operations/service-refusal.js';
import { errorFromResponse, type KubeStatus } from '../../src/kube/translate-error.js';
import { parseWorkloadSpec } from '../../src/input/workload-spec.js';
import { serviceRefusal } from '../../src/workload/operations/service-refusal.js';
import { buildService } from '../../src/members/service/manifest.js';

const target = { verb: 'create', resource: 'services', namespace: 'default', name: 'web' };
const where = { namespace: 'default', name: 'web' };

function answer(statusCode: number, status: KubeStatus) {
  return errorFromResponse({
    server: 'https://127.0.0.1:6443',
    statusCode,
    status: { kind: 'Status', code: statusCode, ...status },
    target,
  });
}

function spec(extra: Record<string, unknown>) {
  return buildService(
    parseWorkloadSpec({ containerId: 1, nodeId: 1, hostname: 'web', image: 'nginx:1.27', cpus: 1, memoryMb: 64, ...extra }),
  );
}

const nodePortSpec = spec({ serviceType: 'NodePort', ports: [{ port: 22, nodePort: 30080 }] });

describe('serviceRefusal', () => {
  it('a node port another Service holds', () => {
    const error = answer(422, {
      reason: 'Invalid',
      message: 'Service "web" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated',
      details: {
        name: 'web',
        kind: 'Service',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: 30080: provided port is already allocated',
            field: 'spec.ports[0].nodePort',
          },
        ],
      },
    });
    const refusal = serviceRefusal(error, where, nodePortSpec);
    expect(refusal).toBeInstanceOf(ServiceRejectedError);
    expect(refusal).toMatchObject({
      name: 'ServiceRejectedError',
      refusal: 'NodePortAllocated',
      field: 'ports.0.nodePort (22/tcp)',
      detail: 'spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated',
      statusCode: 422,
    });
    expect(refusal?.message).toBe(
      'The Service default/web was refused (NodePortAllocated): ports.0.nodePort (22/tcp): spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated',
    );
    expect(refusal?.cause).toBe(error);
  });

  it('a node port outside the cluster’s range', () => {
    const error = answer(422, {
      reason: 'Invalid',
      details: {
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767',
            field: 'spec.ports[0].nodePort',
          },
        ],
      },
    });
    expect(serviceRefusal(error, where, nodePortSpec)).toMatchObject({ refusal: 'NodePortOutOfRange', field: 'ports.0.nodePort (22/tcp)' });
    expect(serviceRefusal(error, where, nodePortSpec)?.detail).toContain('The range of valid ports is 30000-32767');
  });

  it('the service IP range is full (500 InternalError, no field)', () => {
    const error = answer(500, {
      reason: 'InternalError',
      message: 'Internal error occurred: failed to allocate a serviceIP for Service "web": range is full',
      details: { causes: [{ message: 'failed to allocate a serviceIP for Service "web": range is full' }] },
    });
    expect(serviceRefusal(error, where, spec({ ports: [{ port: 22 }] }))).toMatchObject({
      refusal: 'ServiceIpRangeFull',
      field: 'ports',
      detail:
        'Internal error occurred: failed to allocate a serviceIP for Service "web": range is full (the cluster\'s service IP range has no address left)',
    });
  });

  it('no node port left (500 InternalError)', () => {
    const error = answer(500, {
      reason: 'InternalError',
      message: 'Internal error occurred: failed to allocate a nodePort: range is full',
    });
    expect(serviceRefusal(error, where, spec({ serviceType: 'NodePort', ports: [{ port: 22 }] }))).toMatchObject({
      refusal: 'NodePortRangeFull',
      field: 'serviceType',
    });
  });

  it('a type the quota or an admission policy refuses', () => {
    const quota = answer(403, {
      reason: 'Forbidden',
      message:
        'services "web" is forbidden: exceeded quota: lb, requested: services.loadbalancers=1,services.nodeports=1, used: services.loadbalancers=0,services.nodeports=0, limited: services.loadbalancers=0,services.nodeports=0',
      details: { name: 'web', kind: 'services' },
    });
    expect(quota).toBeInstanceOf(QuotaExceededError);
    const lb = spec({ serviceType: 'LoadBalancer', ports: [{ port: 22 }] });
    expect(serviceRefusal(quota, where, lb)).toMatchObject({ refusal: 'ServiceTypeRefused', field: 'serviceType' });
    expect(serviceRefusal(quota, where, lb)?.detail).toContain('limited: services.loadbalancers=0');

    const policy = answer(422, {
      reason: 'Invalid',
      message:
        "services \"web\" is forbidden: ValidatingAdmissionPolicy 'no-lb' with binding 'no-lb' denied request: LoadBalancer Services are not allowed in this cluster",
      details: {
        name: 'web',
        kind: 'services',
        causes: [
          {
            message:
              "ValidatingAdmissionPolicy 'no-lb' with binding 'no-lb' denied request: LoadBalancer Services are not allowed in this cluster",
          },
        ],
      },
    });
    expect(serviceRefusal(policy, where, lb)).toMatchObject({
      refusal: 'ServiceTypeRefused',
      field: 'serviceType',
      detail:
        "ValidatingAdmissionPolicy 'no-lb' with binding 'no-lb' denied request: LoadBalancer Services are not allowed in this cluster",
    });
    const type = answer(422, {
      reason: 'Invalid',
      details: {
        causes: [
          { reason: 'FieldValueNotSupported', field: 'spec.type', message: 'Unsupported value: "Bogus": supported values: "ClusterIP"' },
        ],
      },
    });
    expect(serviceRefusal(type, where, lb)).toMatchObject({ refusal: 'ServiceTypeRefused', field: 'serviceType' });
  });

  it('a count quota on Services names the ports, which are why the container has one', () => {
    const quota = answer(403, {
      reason: 'Forbidden',
      message: 'services "web" is forbidden: exceeded quota: count, requested: services=1, used: services=5, limited: services=5',
    });
    expect(serviceRefusal(quota, where, spec({ ports: [{ port: 22 }] }))).toMatchObject({ refusal: 'Invalid', field: 'ports' });
  });

  it('leaves what is not a refusal of the Service alone', () => {
    expect(serviceRefusal(new ApiUnreachableError('https://x', 'ECONNREFUSED'), where, nodePortSpec)).toBeUndefined();
    expect(serviceRefusal(new Error('boom'), where, nodePortSpec)).toBeUndefined();
    expect(
      serviceRefusal(answer(409, { reason: 'AlreadyExists', message: 'services "web" already exists' }), where, nodePortSpec),
    ).toBeUndefined();
    expect(
      serviceRefusal(
        answer(403, { reason: 'Forbidden', message: 'services is forbidden: User "x" cannot create resource' }),
        where,
        nodePortSpec,
      ),
    ).toBeUndefined();
  });
});
