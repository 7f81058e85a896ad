/**
 * The failures a transport raises, as codes, and their classification into the stable
 * `TransportErrorCode` of a sample. As in undici, every failure the transport raises itself
 * carries a code from one table (`WIRE_CODES`), and `createCodedError` takes only those, so a
 * code that nothing classifies cannot be raised (`test/transport/wire-codes.test.ts` walks the raise sites).
 */
import type { TransportErrorCode } from '../core/codes.js';
import { FlowgaugeError } from '../core/errors.js';

/** Runs `build` with stack capture off: a trace would only point into the transport, and costs microseconds per failure. */
export function withoutStack<T>(build: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return build();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Every code the transports (and the probe's reader of the same bytes) raise themselves, and what a sample calls it. */
export const WIRE_CODES = {
  // The client's own HTTP/1.1 transport (h1-pool.ts, h1-connection.ts).
  FG_H1_CONNECT_TIMEOUT: 'CONNECT_TIMEOUT',
  FG_H1_HEADERS_TIMEOUT: 'HEADERS_TIMEOUT',
  FG_H1_BODY_TIMEOUT: 'BODY_TIMEOUT',
  FG_H1_CLOSED: 'CONNECTION_RESET',
  FG_H1_PARSE: 'PROTOCOL_ERROR',
  FG_H1_POOL_CLOSED: 'ABORTED',
  // A header name or value that would corrupt the wire: the request is refused before it is sent,
  // as undici refuses it (UND_ERR_INVALID_ARG below), and both call it a socket error.
  FG_H1_INVALID_REQUEST: 'SOCKET_ERROR',
  // A buffered body past its byte cap (either transport, and every bounded body).
  FG_BODY_TOO_LARGE: 'MALFORMED_BODY',
  // The whole-request deadline (either transport).
  FG_REQUEST_DEADLINE: 'TIMEOUT',
} as const satisfies Readonly<Record<`FG_${string}`, TransportErrorCode>>;

/** A code a transport raises itself. */
export type WireCode = keyof typeof WIRE_CODES;

/** The codes undici and the socket layer raise, for those that have one meaning. */
const FOREIGN_CODES: Readonly<Record<string, TransportErrorCode>> = {
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
  // A header undici refuses to send (FG_H1_INVALID_REQUEST of the client's own transport).
  UND_ERR_INVALID_ARG: 'SOCKET_ERROR',
};

const CODE_MAP: Readonly<Record<string, TransportErrorCode>> = { ...FOREIGN_CODES, ...WIRE_CODES };

/** A `FlowgaugeError` carrying one of the `WIRE_CODES`, without a stack trace: the raw failure of a transport, classified later. */
export function createCodedError(code: WireCode, message: string): FlowgaugeError<WireCode> {
  return withoutStack(() => new FlowgaugeError(code, message));
}

/** The failure of a buffered response body past `max` bytes (classified `MALFORMED_BODY`). */
export function bodyTooLarge(max: number): Error {
  return createCodedError('FG_BODY_TOO_LARGE', `response body larger than ${max} bytes`);
}

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
