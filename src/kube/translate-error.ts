// Turns what the API server (or the network) answered into the project's error types.
// Messages are built from the server's metav1.Status fields and the request target only;
// the raw response, request headers and client error objects go to `cause` and never
// into a message (they can carry bearer tokens and certificates).
import {
  ApiError,
  ApiUnreachableError,
  ConflictError,
  ExpansionRefusedError,
  ForbiddenError,
  InvalidObjectError,
  NotFoundError,
  QuotaExceededError,
  ResourceExpiredError,
  TlsError,
  TooManyRequestsError,
  UnauthorizedError,
  describeTarget,
  type FieldCause,
  type RequestTarget,
} from '../errors/api.js';
import { maskHighEntropyWords } from '../mask.js';
import { oneLine } from '../text.js';

/** The fields of a metav1.Status we read. */
export interface KubeStatus {
  readonly kind?: string;
  /** Success or Failure (the exec status channel's Success carries nothing else). */
  readonly status?: string;
  readonly code?: number;
  readonly reason?: string;
  readonly message?: string;
  readonly details?: {
    readonly name?: string;
    readonly kind?: string;
    readonly causes?: readonly { readonly field?: string; readonly reason?: string; readonly message?: string }[];
    readonly retryAfterSeconds?: number;
  };
}

export function parseStatus(body: string | undefined): KubeStatus | undefined {
  if (!body) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    // Not JSON (a proxy's HTML page, say): fall through to the status code alone.
    return undefined;
  }
  return isRecord(parsed) && parsed.kind === 'Status' ? toStatus(parsed) : undefined;
}

/**
 * The Status fields we read, each kept only when it has its type: a server's error is
 * described from what fits, and a field of the wrong type can never throw while it is.
 */
export function toStatus(value: unknown): KubeStatus {
  if (!isRecord(value)) return {};
  const text = (field: unknown): string | undefined => (typeof field === 'string' ? field : undefined);
  const number = (field: unknown): number | undefined => (typeof field === 'number' && Number.isFinite(field) ? field : undefined);
  const details = isRecord(value.details) ? value.details : undefined;
  const causes = Array.isArray(details?.causes) ? details.causes.filter(isRecord) : undefined;
  return {
    kind: text(value.kind),
    ...(text(value.status) !== undefined ? { status: text(value.status) } : {}),
    code: number(value.code),
    reason: text(value.reason),
    message: text(value.message),
    ...(details
      ? {
          details: {
            name: text(details.name),
            kind: text(details.kind),
            retryAfterSeconds: number(details.retryAfterSeconds),
            ...(causes
              ? { causes: causes.map((cause) => ({ field: text(cause.field), reason: text(cause.reason), message: text(cause.message) })) }
              : {}),
          },
        }
      : {}),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export interface ResponseFacts {
  readonly server: string;
  readonly statusCode: number;
  readonly status: KubeStatus | undefined;
  readonly retryAfterHeader?: string | undefined;
  readonly target: RequestTarget;
  readonly cause?: unknown;
  /**
   * How the server's messages are relayed: masked (they may echo what we sent). Default:
   * long high-entropy words only; a client masks its known values first.
   */
  readonly relay?: (text: string) => string;
}

export function errorFromResponse(facts: ResponseFacts): ApiError {
  const { server, statusCode, status, target, cause } = facts;
  const relayed = (message: string | undefined): string => oneLine((facts.relay ?? maskHighEntropyWords)(message ?? ''));
  const reason = status?.reason === undefined ? undefined : oneLine(status.reason);
  const serverMessage = relayed(status?.message);
  switch (statusCode) {
    case 401:
      return new UnauthorizedError(server, { target, cause });
    case 403:
      // Admission's refusal of a resize reads like RBAC's 403 but is about the claim's class.
      if (/only dynamically provisioned pvc can be resized|must support resize/i.test(serverMessage)) {
        return new ExpansionRefusedError(serverMessage, { target, cause });
      }
      if (/exceeded quota/i.test(serverMessage)) return new QuotaExceededError(serverMessage, { target, cause });
      return new ForbiddenError(target, { cause });
    case 404:
      return new NotFoundError(serverMessage || describeTarget(target), { target, reason, cause });
    case 409:
      return new ConflictError(`Conflict (409) on ${describeTarget(target)}: ${serverMessage || reason || 'conflict'}`, {
        target,
        reason,
        cause,
      });
    case 410:
      return new ResourceExpiredError({ target, reason, cause });
    case 422:
      return new InvalidObjectError(serverMessage || 'invalid object', fieldCauses(status, relayed), { target, cause });
    case 429:
      return new TooManyRequestsError(retryAfterMs(status, facts.retryAfterHeader), { target, reason, cause });
    default:
      return new ApiError(
        `Kubernetes API answered ${statusCode}${reason ? ` ${reason}` : ''} to ${describeTarget(target)}` +
          (serverMessage ? `: ${serverMessage}` : ''),
        { statusCode, reason, target, cause },
      );
  }
}

/** A watch stream can also report failure in-band, as an ERROR event carrying a Status. */
export function errorFromWatchStatus(server: string, object: unknown, target: RequestTarget): ApiError {
  const status = toStatus(object);
  const code = status.code !== undefined && Number.isInteger(status.code) && status.code >= 100 && status.code <= 599 ? status.code : 500;
  return errorFromResponse({ server, statusCode: code, status, target });
}

const TLS_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'EPROTO',
]);

const TLS_EXPLANATIONS: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the server presented a self-signed certificate the kubeconfig does not trust',
  SELF_SIGNED_CERT_IN_CHAIN: 'the certificate chain ends in a CA the kubeconfig does not trust',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's certificate is not signed by a trusted CA",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "the server's certificate issuer is not trusted",
  CERT_HAS_EXPIRED: "the server's certificate has expired",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's certificate does not name this host",
};

/** A failure before any HTTP answer: refused, reset, DNS, TLS handshake. */
export function errorFromNetwork(server: string, error: unknown, target: RequestTarget): ApiError {
  const code = networkCode(error);
  if (code && TLS_CODES.has(code)) {
    const why = TLS_EXPLANATIONS[code] ?? `TLS handshake failed (${code})`;
    return new TlsError(
      server,
      `${why}; check certificate-authority-data in the kubeconfig (or pass tlsVerify: false to disable verification explicitly)`,
      {
        target,
        cause: error,
      },
    );
  }
  return new ApiUnreachableError(server, `${code ?? 'network error'} during ${describeTarget(target)}`, {
    target,
    cause: error,
  });
}

function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function fieldCauses(status: KubeStatus | undefined, relayed: (message: string | undefined) => string): FieldCause[] {
  return (status?.details?.causes ?? []).map((cause) => ({
    field: oneLine(cause.field),
    reason: oneLine(cause.reason),
    message: relayed(cause.message) || cause.reason || 'invalid',
  }));
}

function retryAfterMs(status: KubeStatus | undefined, header: string | undefined): number | undefined {
  const seconds = status?.details?.retryAfterSeconds ?? (header !== undefined && header.trim() !== '' ? Number(header) : undefined);
  return seconds !== undefined && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}
