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
import { FlowgaugeError } from '../core/errors.js';
import { withoutStack } from '../transport/wire-errors.js';

/**
 * An HTTP answer outside 2xx. `code` (the interface's code) comes from the error body, `UNKNOWN`
 * when it names none of the seven.
 */
export class ApiError extends FlowgaugeError<ApiErrorCode | 'UNKNOWN'> {
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
    super(code, message);
    this.name = 'ApiError';
    this.status = status;
    this.details = details;
    this.requestId = requestId;
    this.foreignBody = foreignBody;
  }
}

/** A failure below HTTP (connection, timeout, abort) or a body the client could not use; `code` is its stable classification. */
export class TransportError extends FlowgaugeError<TransportErrorCode> {
  /** `code` (or name) of the underlying error, when there was one; for diagnosis only. */
  readonly causeCode: string | undefined;

  /** Prefer `createTransportError`, which skips the stack capture. */
  constructor(code: TransportErrorCode, message: string, causeCode?: string) {
    super(code, message);
    this.name = 'TransportError';
    this.causeCode = causeCode;
  }
}

/** Builds an `ApiError` without a stack trace (the constructor's arguments). */
export function createApiError(...args: ConstructorParameters<typeof ApiError>): ApiError {
  return withoutStack(() => new ApiError(...args));
}

/** Builds a `TransportError` without a stack trace (the constructor's arguments). */
export function createTransportError(...args: ConstructorParameters<typeof TransportError>): TransportError {
  return withoutStack(() => new TransportError(...args));
}
