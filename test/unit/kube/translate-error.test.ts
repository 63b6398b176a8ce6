// errorFromResponse / errorFromWatchStatus / errorFromNetwork / parseStatus: what the API
// server (or the network) answered, turned into the project's error classes. The Status
// bodies are worded as kube-apiserver writes them; the network errors are built like the
// ones node:net and node:tls raise (plain Error objects with a `code`), no fakes of any
// service.
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  ApiUnreachableError,
  ConflictError,
  ForbiddenError,
  InvalidObjectError,
  NotFoundError,
  ResourceExpiredError,
  TlsError,
  TooManyRequestsError,
  UnauthorizedError,
  type RequestTarget,
} from '../../../src/errors/api.js';
import { KubeProvisionerError } from '../../../src/errors/base.js';
import {
  errorFromNetwork,
  errorFromResponse,
  errorFromWatchStatus,
  parseStatus,
  type KubeStatus,
} from '../../../src/kube/translate-error.js';

const SERVER = 'https://10.0.0.1:6443';
const CREATE: RequestTarget = { verb: 'create', resource: 'deployments', namespace: 'team-a', name: 'web' };
const WATCH: RequestTarget = { verb: 'watch', resource: 'pods', namespace: 'team-a' };

function status(code: number, reason: string, message: string, details?: KubeStatus['details']): KubeStatus {
  return { kind: 'Status', code, reason, message, ...(details ? { details } : {}) };
}

function respond(statusCode: number, body?: KubeStatus, extra: { retryAfterHeader?: string; cause?: unknown } = {}) {
  return errorFromResponse({ server: SERVER, statusCode, status: body, target: CREATE, ...extra });
}

function networkError(code: string, message = code): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

describe('parseStatus', () => {
  it('reads a metav1.Status JSON body', () => {
    const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'AlreadyExists', code: 409 });
    expect(parseStatus(body)).toMatchObject({ kind: 'Status', reason: 'AlreadyExists', code: 409 });
  });

  it.each([
    ['undefined', undefined],
    ['an empty body', ''],
    ["a proxy's HTML page", '<html><body>502 Bad Gateway</body></html>'],
    ['JSON that is not a Status', '{"kind":"Deployment"}'],
    ['a JSON scalar', '"Forbidden"'],
  ])('returns undefined for %s', (_what, body) => {
    expect(parseStatus(body)).toBeUndefined();
  });
});

describe('errorFromResponse: status code to class', () => {
  it('401 -> UnauthorizedError, statusCode 401, naming the server', () => {
    const error = respond(401);
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(KubeProvisionerError);
    expect(error.name).toBe('UnauthorizedError');
    expect(error.statusCode).toBe(401);
    expect(error.message).toContain(SERVER);
    expect(error.target).toEqual(CREATE);
  });

  it('403 -> ForbiddenError whose message names the verb, the resource and the namespace', () => {
    const body = status(
      403,
      'Forbidden',
      'deployments.apps is forbidden: User "system:serviceaccount:team-a:manager" cannot create resource "deployments" in API group "apps" in the namespace "team-a"',
      { group: 'apps', kind: 'deployments' } as KubeStatus['details'],
    );
    const error = respond(403, body) as ForbiddenError;
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error.statusCode).toBe(403);
    expect(error.verb).toBe('create');
    expect(error.resource).toBe('deployments');
    expect(error.message).toContain('may not create deployments in namespace team-a');
    expect(error.message).toContain('grant the "create" verb on "deployments"');
  });

  it("403 from the quota admission -> QuotaExceededError in the server's words, not an RBAC hint", () => {
    const message =
      'persistentvolumeclaims "web" is forbidden: exceeded quota: storage, requested: requests.storage=50Gi, used: requests.storage=0, limited: requests.storage=10Gi';
    const error = respond(403, status(403, 'Forbidden', message));
    expect(error.name).toBe('QuotaExceededError');
    expect(error.statusCode).toBe(403);
    expect(error.message).toContain('limited: requests.storage=10Gi');
    expect(error.message).not.toContain('RBAC');
  });

  it('403 on a watch names the watch verb (the missing RBAC rule)', () => {
    const error = errorFromResponse({ server: SERVER, statusCode: 403, status: undefined, target: WATCH }) as ForbiddenError;
    expect(error.verb).toBe('watch');
    expect(error.message).toContain('may not watch pods in namespace team-a');
  });

  it("404 -> NotFoundError with the server's message and reason", () => {
    const error = respond(404, status(404, 'NotFound', 'namespaces "team-a" not found', { name: 'team-a', kind: 'namespaces' }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.statusCode).toBe(404);
    expect(error.reason).toBe('NotFound');
    expect(error.message).toBe('Not found (404): namespaces "team-a" not found');
  });

  it('404 without a Status body names the target', () => {
    expect(respond(404).message).toBe('Not found (404): create deployments (team-a/web)');
  });

  it('409 AlreadyExists -> ConflictError carrying the reason and the server message', () => {
    const error = respond(409, status(409, 'AlreadyExists', 'deployments.apps "web" already exists', { name: 'web', kind: 'deployments' }));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.statusCode).toBe(409);
    expect(error.reason).toBe('AlreadyExists');
    expect(error.message).toBe('Conflict (409) on create deployments (team-a/web): deployments.apps "web" already exists');
  });

  it('409 Conflict (stale resourceVersion) -> ConflictError with reason Conflict', () => {
    const error = respond(
      409,
      status(
        409,
        'Conflict',
        'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again',
      ),
    );
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.reason).toBe('Conflict');
  });

  it('410 Expired -> ResourceExpiredError', () => {
    const error = respond(410, status(410, 'Expired', 'too old resource version: 100 (2000)'));
    expect(error).toBeInstanceOf(ResourceExpiredError);
    expect(error.statusCode).toBe(410);
    expect(error.reason).toBe('Expired');
  });

  it('410 without a body still says Expired', () => {
    expect(respond(410).reason).toBe('Expired');
  });

  it('422 Invalid -> InvalidObjectError listing each field cause', () => {
    const body = status(
      422,
      'Invalid',
      'Deployment.apps "Web" is invalid: [metadata.name: Invalid value: "Web": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, spec.template.spec.containers[0].image: Required value]',
      {
        name: 'Web',
        kind: 'Deployment',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: "Web": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters',
            field: 'metadata.name',
          },
          { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.template.spec.containers[0].image' },
        ],
      },
    );
    const error = respond(422, body) as InvalidObjectError;
    expect(error).toBeInstanceOf(InvalidObjectError);
    expect(error.statusCode).toBe(422);
    expect(error.causes).toEqual([
      {
        field: 'metadata.name',
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "Web": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters',
      },
      { field: 'spec.template.spec.containers[0].image', reason: 'FieldValueRequired', message: 'Required value' },
    ]);
    expect(error.message).toContain('metadata.name: Invalid value: "Web"');
    expect(error.message).toContain('spec.template.spec.containers[0].image: Required value');
  });

  it('422 without causes uses the server message', () => {
    const error = respond(422, status(422, 'Invalid', 'Deployment.apps "web" is invalid')) as InvalidObjectError;
    expect(error.causes).toEqual([]);
    expect(error.message).toBe('Rejected by the API server (422): Deployment.apps "web" is invalid');
  });

  it('429 -> TooManyRequestsError with retryAfterMs from details.retryAfterSeconds', () => {
    const error = respond(
      429,
      status(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds: 3 }),
    ) as TooManyRequestsError;
    expect(error).toBeInstanceOf(TooManyRequestsError);
    expect(error.statusCode).toBe(429);
    expect(error.retryAfterMs).toBe(3_000);
    expect(error.message).toContain('retry after 3000 ms');
  });

  it('429 -> retryAfterMs from the Retry-After header when the body has none', () => {
    const error = respond(429, undefined, { retryAfterHeader: '7' }) as TooManyRequestsError;
    expect(error.retryAfterMs).toBe(7_000);
  });

  it('429 prefers details.retryAfterSeconds over the header', () => {
    const error = respond(429, status(429, 'TooManyRequests', 'slow down', { retryAfterSeconds: 2 }), {
      retryAfterHeader: '9',
    }) as TooManyRequestsError;
    expect(error.retryAfterMs).toBe(2_000);
  });

  it('429 with an HTTP-date Retry-After leaves retryAfterMs undefined', () => {
    const error = respond(429, undefined, { retryAfterHeader: 'Wed, 21 Oct 2015 07:28:00 GMT' }) as TooManyRequestsError;
    expect(error.retryAfterMs).toBeUndefined();
    expect(error.message).not.toContain('retry after');
  });

  it('500 -> a plain ApiError naming the status code, reason, target and message', () => {
    const error = respond(500, status(500, 'InternalError', 'Internal error occurred: etcdserver: request timed out'));
    expect(error.constructor).toBe(ApiError);
    expect(error.name).toBe('ApiError');
    expect(error.statusCode).toBe(500);
    expect(error.reason).toBe('InternalError');
    expect(error.message).toBe(
      'Kubernetes API answered 500 InternalError to create deployments (team-a/web): Internal error occurred: etcdserver: request timed out',
    );
  });

  it('503 without a Status body -> ApiError with the code alone', () => {
    const error = respond(503);
    expect(error.constructor).toBe(ApiError);
    expect(error.message).toBe('Kubernetes API answered 503 to create deployments (team-a/web)');
  });

  it('joins a multi-line server message into one line', () => {
    expect(respond(500, status(500, 'InternalError', 'line one\nline two')).message).toContain('line one line two');
  });

  it('keeps the original error as cause and out of the message', () => {
    const original = new Error(
      'HTTP-Code: 409 Message: Unknown API Status Code! Body: {...} Headers: {"authorization":"Bearer kp-secret"}',
    );
    const error = respond(409, status(409, 'AlreadyExists', 'deployments.apps "web" already exists'), { cause: original });
    expect(error.cause).toBe(original);
    expect(error.message).not.toContain('kp-secret');
    expect(error.message).not.toContain('Headers');
  });
});

describe('errorFromWatchStatus: in-band ERROR events', () => {
  it('410 Expired in a watch -> ResourceExpiredError naming the watch', () => {
    const error = errorFromWatchStatus(SERVER, status(410, 'Expired', 'too old resource version: 100 (2000)'), WATCH);
    expect(error).toBeInstanceOf(ResourceExpiredError);
    expect(error.message).toContain('watch pods (namespace team-a)');
  });

  it('a Status without code is treated as 500', () => {
    const error = errorFromWatchStatus(SERVER, { kind: 'Status', message: 'internal error' }, WATCH);
    expect(error.statusCode).toBe(500);
    expect(error.constructor).toBe(ApiError);
  });
});

describe('errorFromNetwork', () => {
  it.each(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'EAI_AGAIN'])(
    '%s -> ApiUnreachableError naming the server, the code and the target',
    (code) => {
      const original = networkError(code, `connect ${code} 10.0.0.1:6443`);
      const error = errorFromNetwork(SERVER, original, CREATE);
      expect(error).toBeInstanceOf(ApiUnreachableError);
      expect(error.name).toBe('ApiUnreachableError');
      expect(error.message).toBe(`Kubernetes API at ${SERVER} is unreachable: ${code} during create deployments (team-a/web)`);
      expect(error.cause).toBe(original);
      expect(error.target).toEqual(CREATE);
    },
  );

  it("finds the code on a nested cause (fetch's TypeError: fetch failed)", () => {
    const original = new TypeError('fetch failed', { cause: networkError('ECONNREFUSED') });
    const error = errorFromNetwork(SERVER, original, CREATE);
    expect(error).toBeInstanceOf(ApiUnreachableError);
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.cause).toBe(original);
  });

  it('an error without any code -> ApiUnreachableError saying "network error"', () => {
    const error = errorFromNetwork(SERVER, new Error('socket hang up'), CREATE);
    expect(error).toBeInstanceOf(ApiUnreachableError);
    expect(error.message).toContain('network error');
  });

  it.each([
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'CA the kubeconfig does not trust'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'not signed by a trusted CA'],
    ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'issuer is not trusted'],
    ['CERT_HAS_EXPIRED', 'expired'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'does not name this host'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'TLS handshake failed (ERR_SSL_WRONG_VERSION_NUMBER)'],
    ['EPROTO', 'TLS handshake failed (EPROTO)'],
  ])('%s -> TlsError explaining it and pointing at certificate-authority-data', (code, explanation) => {
    const original = networkError(code);
    const error = errorFromNetwork(SERVER, original, CREATE);
    expect(error).toBeInstanceOf(TlsError);
    expect(error.name).toBe('TlsError');
    expect(error.message).toContain(`TLS verification failed for ${SERVER}`);
    expect(error.message).toContain(explanation);
    expect(error.message).toContain('certificate-authority-data');
    expect(error.cause).toBe(original);
  });
});

describe('a server message is relayed with its long high-entropy words masked', () => {
  it('masks a value the server echoed in no shape, and keeps the names', () => {
    const error = respond(
      422,
      status(
        422,
        'Invalid',
        'Deployment.apps "web" is invalid: spec.template.metadata.annotations: Invalid value: "Sp7fQ2xK9mZr4TbW1vLc8NdY"',
        {
          causes: [{ field: 'metadata.annotations', reason: 'FieldValueInvalid', message: 'Invalid value: "Sp7fQ2xK9mZr4TbW1vLc8NdY"' }],
        },
      ),
    );
    expect(error.message).toBe('Rejected by the API server (422): metadata.annotations: Invalid value: "***"');
    expect(JSON.stringify({ ...error, message: error.message })).not.toContain('Sp7fQ2xK9mZr4TbW1vLc8NdY');
    expect(respond(404, status(404, 'NotFound', 'pods "web-7c9f5d6b8-x2k9p" not found')).message).toContain(
      'pods "web-7c9f5d6b8-x2k9p" not found',
    );
  });
});
