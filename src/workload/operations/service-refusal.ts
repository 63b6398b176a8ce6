// What the API server's refusal of a container's Service means, by the spec field at
// fault. The server names its own fields (`spec.ports[1].nodePort`) and words ("provided
// port is already allocated"); this maps them onto ours (`ports.1.nodePort`, 22/tcp) and
// keeps the words. The Service's ports are in the spec's order (buildService), so index
// i of one is index i of the other.
import { ApiError, InvalidObjectError, QuotaExceededError, type RequestTarget } from '../../errors/api.js';
import type { FailureContext } from '../../errors/rollout.js';
import type { V1Service } from '../../kube/objects.js';

/**
 * Why the API server refused a container's Service:
 * - `NodePortAllocated`: a fixed node port another Service holds;
 * - `NodePortOutOfRange`: a fixed node port outside the cluster's node port range;
 * - `NodePortRangeFull`: no node port left to allocate;
 * - `ServiceIpRangeFull`: no address left in the cluster's service IP range;
 * - `ServiceTypeRefused`: the type is not allowed here (quota, admission policy, webhook);
 * - `Invalid`: any other field the API server refused.
 */
export type ServiceRefusal =
  'NodePortAllocated' | 'NodePortOutOfRange' | 'NodePortRangeFull' | 'ServiceIpRangeFull' | 'ServiceTypeRefused' | 'Invalid';

/** The API server refused a container's Service: `field` is the spec field at fault, `detail` the server's words. */
export class ServiceRejectedError extends ApiError {
  override readonly name = 'ServiceRejectedError';
  readonly refusal: ServiceRefusal;
  /** The spec field at fault: `ports.0.nodePort (22/tcp)`, `serviceType`, `ports`. */
  readonly field: string;
  /** The API server's words. */
  readonly detail: string;
  /** The Service: its kind, namespace and name. */
  readonly kind = 'Service';
  readonly namespace: string;
  readonly object: string;
  constructor(
    where: FailureContext,
    refusal: ServiceRefusal,
    field: string,
    detail: string,
    options: { statusCode?: number | undefined; reason?: string | undefined; target?: RequestTarget | undefined; cause?: unknown } = {},
  ) {
    super(`The Service ${where.namespace}/${where.name} was refused (${refusal}): ${field}: ${detail}`, options);
    this.refusal = refusal;
    this.field = field;
    this.detail = detail;
    this.namespace = where.namespace;
    this.object = where.name;
  }
}

const PORT_FIELD = /^spec\.ports\[(\d+)\](?:\.(\w+))?$/;

function portField(apiField: string, service: V1Service): string | undefined {
  const match = PORT_FIELD.exec(apiField);
  if (!match) return undefined;
  const index = Number(match[1]);
  const port = service.spec?.ports?.[index];
  const field = `ports.${index}${match[2] ? `.${match[2]}` : ''}`;
  return port ? `${field} (${port.port}/${(port.protocol ?? 'TCP').toLowerCase()})` : field;
}

function nodePortRefusal(message: string): ServiceRefusal {
  if (/already allocated/i.test(message)) return 'NodePortAllocated';
  if (/not in the valid range/i.test(message)) return 'NodePortOutOfRange';
  return 'Invalid';
}

/** Where the spec's type is the only thing that sets this Service apart, a refusal without a field is the type's. */
function typeOrPorts(service: V1Service): string {
  const type = service.spec?.type;
  return type !== undefined && type !== 'ClusterIP' ? 'serviceType' : 'ports';
}

/**
 * The refusal of `service` (as it was sent) as a ServiceRejectedError naming the spec
 * field, or undefined when `error`
 * is not a refusal of the Service (a network failure, RBAC, a conflict: those keep their
 * own types).
 */
export function serviceRefusal(error: unknown, where: FailureContext, service: V1Service): ServiceRejectedError | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const options = { statusCode: error.statusCode, reason: error.reason, target: error.target, cause: error };
  const reject = (refusal: ServiceRefusal, field: string, detail: string): ServiceRejectedError =>
    new ServiceRejectedError(where, refusal, field, detail, options);

  if (error instanceof QuotaExceededError) {
    const typeQuota = /services\.(loadbalancers|nodeports)/.test(error.detail);
    return reject(typeQuota ? 'ServiceTypeRefused' : 'Invalid', typeQuota ? 'serviceType' : 'ports', error.detail);
  }
  if (error instanceof InvalidObjectError) {
    const [first] = error.causes;
    if (!first) return reject('Invalid', 'ports', error.message);
    const detail = error.causes.map((cause) => (cause.field ? `${cause.field}: ${cause.message}` : cause.message)).join('; ');
    if (first.field === 'spec.type') return reject('ServiceTypeRefused', 'serviceType', detail);
    const field = first.field ? portField(first.field, service) : undefined;
    if (field !== undefined) return reject(first.field.endsWith('.nodePort') ? nodePortRefusal(first.message) : 'Invalid', field, detail);
    // An admission policy's or webhook's denial names no field.
    if (!first.field) return reject(/denied/i.test(detail) ? 'ServiceTypeRefused' : 'Invalid', typeOrPorts(service), detail);
    return reject('Invalid', first.field, detail);
  }
  // The allocators answer 500 InternalError: the field is valid, the cluster has run out.
  const message = error.message;
  if (error.statusCode === 500 && /failed to allocate a serviceIP.*range is full/i.test(message)) {
    return reject('ServiceIpRangeFull', 'ports', `${serverWords(message)} (the cluster's service IP range has no address left)`);
  }
  if (error.statusCode === 500 && /failed to allocate a nodePort.*range is full/i.test(message)) {
    return reject('NodePortRangeFull', 'serviceType', `${serverWords(message)} (the cluster's node port range has no port left)`);
  }
  return undefined;
}

/** The server's own words from our ApiError message (after "...: "). */
function serverWords(message: string): string {
  const at = message.indexOf('Internal error occurred: ');
  return at >= 0 ? message.slice(at) : message;
}
