/**
 * Classification codes of request outcomes. These are data recorded per request, never thrown.
 */

/** The seven error codes of the interface (docs/reference-service.md, "Errors"). */
export const API_ERROR_CODES = [
  'INVALID_REQUEST',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
] as const;

/** An error code the interface defines. */
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/** HTTP status the interface assigns to each code. */
export const API_ERROR_STATUS: Readonly<Record<ApiErrorCode, number>> = {
  INVALID_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};

/**
 * Failures below HTTP, or of a body the client could not use. Stable strings, used as
 * the `errors` keys of report.json and the `code` label of metrics.
 */
export const TRANSPORT_ERROR_CODES = [
  'CONNECTION_REFUSED',
  'CONNECTION_RESET',
  'CONNECT_TIMEOUT',
  'HEADERS_TIMEOUT',
  'BODY_TIMEOUT',
  'ABORTED',
  'SOCKET_ERROR',
  'MALFORMED_BODY',
  'STREAM_INCOMPLETE',
  'STREAM_ERROR_EVENT',
  'DNS_ERROR',
  'TLS_ERROR',
  // The target answered, but not in HTTP/1.x (an SSH banner, an HTML page, HTTP/2 frames).
  'PROTOCOL_ERROR',
  // Cut by a deadline: its whole-request deadline passed, or it was still running when the run's grace period ended.
  'TIMEOUT',
] as const;

/** A transport-level or body-level failure code. */
export type TransportErrorCode = (typeof TRANSPORT_ERROR_CODES)[number];

/**
 * Every error code a sample can carry: the interface's seven, `UNKNOWN` for an error body with
 * a code the interface does not define (or none), and the transport codes.
 */
export type ErrorCode = ApiErrorCode | 'UNKNOWN' | TransportErrorCode;

const STATUS_TO_CODE: ReadonlyMap<number, ApiErrorCode> = new Map(API_ERROR_CODES.map((c) => [API_ERROR_STATUS[c], c]));

/** The interface's code for an HTTP status (the interface pairs each code with one status), if any. */
export function apiErrorCodeOfStatus(status: number): ApiErrorCode | undefined {
  return STATUS_TO_CODE.get(status);
}

/** True when `s` is one of the interface's seven codes. */
export function isApiErrorCode(s: unknown): s is ApiErrorCode {
  return typeof s === 'string' && (API_ERROR_CODES as readonly string[]).includes(s);
}
