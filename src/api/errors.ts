/**
 * Failures the client reports as data: `ApiError` for an HTTP error answer, `TransportError`
 * for everything below HTTP or a body it could not use. Neither is ever thrown by the client.
 *
 * Both are built without a stack trace: the trace would only point into the client, and
 * capturing it costs microseconds on every failure of a load test that may see thousands
 * of 429s per second. Messages never carry headers, and callers pass them through the
 * token redactor first.
 */
import type { ApiErrorCode, TransportErrorCode } from '../core/codes.js';

function withoutStack<T>(build: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return build();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** An HTTP answer outside 2xx. `code` comes from the error body, `UNKNOWN` when it names none of the seven. */
export class ApiError extends Error {
  /** The interface's code, or `UNKNOWN`. */
  readonly code: ApiErrorCode | 'UNKNOWN';
  /** HTTP status of the answer. */
  readonly status: number;
  /** `error.details` of the body when it is an object. */
  readonly details: Readonly<Record<string, unknown>> | undefined;
  /** `request_id` of the body, else the `x-request-id` header. */
  readonly requestId: string | undefined;
  /**
   * The shape of a body that holds no `error` object at all (`non-JSON text`, `empty`,
   * `error: missing`): an answer from something in front of the service, such as a gateway's
   * HTML page. Undefined when the body was the interface's error object, well formed or not.
   */
  readonly foreignBody: string | undefined;

  /** Prefer `createApiError`, which skips the stack capture. */
  constructor(
    code: ApiErrorCode | 'UNKNOWN',
    status: number,
    message: string,
    details: Readonly<Record<string, unknown>> | undefined,
    requestId: string | undefined,
    foreignBody?: string,
  ) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
    this.details = details;
    this.requestId = requestId;
    this.foreignBody = foreignBody;
  }
}

/** A failure below HTTP (connection, timeout, abort) or a body the client could not use. */
export class TransportError extends Error {
  /** Stable classification (core `TransportErrorCode`). */
  readonly code: TransportErrorCode;
  /** `code` (or name) of the underlying error, when there was one; for diagnosis only. */
  readonly causeCode: string | undefined;

  /** Prefer `createTransportError`, which skips the stack capture. */
  constructor(code: TransportErrorCode, message: string, causeCode?: string) {
    super(message);
    this.name = 'TransportError';
    this.code = code;
    this.causeCode = causeCode;
  }
}

/** Builds an `ApiError` without a stack trace. */
export function createApiError(
  code: ApiErrorCode | 'UNKNOWN',
  status: number,
  message: string,
  details: Readonly<Record<string, unknown>> | undefined,
  requestId: string | undefined,
  foreignBody?: string,
): ApiError {
  return withoutStack(() => new ApiError(code, status, message, details, requestId, foreignBody));
}

/** An `Error` carrying `code`, without a stack trace: the raw failure of a transport, classified later. */
export function createCodedError(code: string, message: string): Error & { readonly code: string } {
  return withoutStack(() => Object.assign(new Error(message), { code }));
}

/** The failure of a buffered response body past `max` bytes (classified `MALFORMED_BODY`). */
export function bodyTooLarge(max: number): Error {
  return createCodedError('FG_BODY_TOO_LARGE', `response body larger than ${max} bytes`);
}

/** Builds a `TransportError` without a stack trace. */
export function createTransportError(code: TransportErrorCode, message: string, causeCode?: string): TransportError {
  return withoutStack(() => new TransportError(code, message, causeCode));
}

const CODE_MAP: Readonly<Record<string, TransportErrorCode>> = {
  UND_ERR_CONNECT_TIMEOUT: 'CONNECT_TIMEOUT',
  ETIMEDOUT: 'CONNECT_TIMEOUT',
  UND_ERR_HEADERS_TIMEOUT: 'HEADERS_TIMEOUT',
  UND_ERR_BODY_TIMEOUT: 'BODY_TIMEOUT',
  ECONNREFUSED: 'CONNECTION_REFUSED',
  ECONNRESET: 'CONNECTION_RESET',
  EPIPE: 'CONNECTION_RESET',
  ENOTFOUND: 'DNS_ERROR',
  EAI_AGAIN: 'DNS_ERROR',
  EAI_FAIL: 'DNS_ERROR',
  EAI_NONAME: 'DNS_ERROR',
  UND_ERR_ABORTED: 'ABORTED',
  ABORT_ERR: 'ABORTED',
  // A request on a closed client: the run is shutting down, so the request never happened.
  UND_ERR_CLOSED: 'ABORTED',
  UND_ERR_DESTROYED: 'ABORTED',
  // A head past undici's maxHeaderSize: what the client's own parser calls a protocol error too.
  UND_ERR_HEADERS_OVERFLOW: 'PROTOCOL_ERROR',
  // The client's own HTTP/1.1 transport (h1-pool.ts).
  FG_H1_CONNECT_TIMEOUT: 'CONNECT_TIMEOUT',
  FG_H1_HEADERS_TIMEOUT: 'HEADERS_TIMEOUT',
  FG_H1_BODY_TIMEOUT: 'BODY_TIMEOUT',
  FG_H1_CLOSED: 'CONNECTION_RESET',
  FG_H1_PARSE: 'PROTOCOL_ERROR',
  FG_H1_POOL_CLOSED: 'ABORTED',
  FG_BODY_TOO_LARGE: 'MALFORMED_BODY',
  // The whole-request deadline (either transport).
  FG_REQUEST_DEADLINE: 'TIMEOUT',
};

const TLS_CODE_RE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_OSSL)/;

function codeOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { code?: unknown; name?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string') return e.code;
  // Happy-eyeballs connects fail with an AggregateError whose parts carry the codes.
  if (Array.isArray(e.errors) && e.errors.length > 0) return codeOf(e.errors[0]);
  if (e.cause !== undefined && e.cause !== err) return codeOf(e.cause);
  if (e.name === 'AbortError') return 'ABORT_ERR';
  // undici's llhttp error for bytes that are no HTTP at all (an SSH banner) carries no code.
  if (e.name === 'HTTPParserError') return 'HPE_UNKNOWN';
  return undefined;
}

/**
 * Classifies an error raised by undici or the socket layer. When the caller's signal is
 * aborted the answer is `ABORTED` whatever was raised, because undici rejects with the
 * signal's own reason, which can be anything.
 */
export function classifyTransportError(err: unknown, signal: AbortSignal | undefined): TransportErrorCode {
  if (signal?.aborted === true) return 'ABORTED';
  const code = codeOf(err);
  if (code === undefined) return 'SOCKET_ERROR';
  if (code === 'UND_ERR_SOCKET') {
    // "other side closed"/"closed": the peer dropped the connection before the answer was
    // complete, which is a reset as far as the request is concerned. Others ("bad response") are not.
    const message = (err as { message?: unknown }).message;
    return message === 'other side closed' || message === 'closed' ? 'CONNECTION_RESET' : 'SOCKET_ERROR';
  }
  const mapped = CODE_MAP[code];
  if (mapped !== undefined) return mapped;
  // llhttp's parse errors, as undici raises them.
  if (code.startsWith('HPE_')) return 'PROTOCOL_ERROR';
  if (TLS_CODE_RE.test(code)) return 'TLS_ERROR';
  return 'SOCKET_ERROR';
}

/** The underlying error's code or name, for `TransportError.causeCode`. */
export function causeCodeOf(err: unknown): string | undefined {
  const code = codeOf(err);
  if (code !== undefined) return code;
  return err instanceof Error ? err.name : undefined;
}
