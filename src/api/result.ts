/**
 * What every client call resolves to. Calls never reject for HTTP or transport failures:
 * the outcome, its timing and its contract violations are data for the collectors.
 */
import type { ErrorCode } from '../core/codes.js';
import type { ContractViolation, RateLimitInfo, StreamTiming } from '../core/types.js';
import type { ApiError, TransportError } from './errors.js';
import type { Usage } from './types.js';

/** What the client saw of one exchange, whatever its outcome. */
export interface ResponseMeta {
  /** HTTP status; 0 when no response arrived. */
  readonly status: number;
  /** `request_id` of an error body, else the `x-request-id` header, when present. */
  readonly requestId: string | undefined;
  /** Rate-limit headers, parsed on every response including errors; undefined when none arrived. */
  readonly rateLimit: RateLimitInfo | undefined;
  /** The `Server` and `Via` headers, when sent (what answered: a gateway or the service). */
  readonly server?: string | undefined;
  readonly via?: string | undefined;
  /** Monotonic ns (the client's clock) when the call was made. */
  readonly startNs: number;
  /** When the response headers arrived; undefined when none did. */
  readonly headersNs: number | undefined;
  /** When the body ended or the failure was seen. */
  readonly endNs: number;
  /**
   * When the request went out on an open connection; undefined when it never reached one.
   * From `startNs` to here the request was blocked (queued for a connection) or, on a new
   * connection, connecting (`connectNs`, `tlsNs`).
   */
  readonly sentNs: number | undefined;
  /** TCP connect time of the new connection this request opened; 0 on a reused one. */
  readonly connectNs: number;
  /** TLS handshake time of that new connection; 0 on a reused or plain one. */
  readonly tlsNs: number;
}

/** Outcome of one call: a value or an error, always with meta and violations. */
export type ApiResult<T> =
  | {
      readonly ok: true;
      readonly value: T;
      readonly meta: ResponseMeta;
      readonly violations: readonly ContractViolation[];
    }
  | {
      readonly ok: false;
      readonly error: ApiError | TransportError;
      readonly meta: ResponseMeta;
      readonly violations: readonly ContractViolation[];
    };

/** Kind of a decoded stream event. `unknown` covers types the interface does not define, `error` included. */
export type StreamEventType = 'start' | 'token' | 'end' | 'unknown' | 'malformed';

/** One server-sent event, stamped with the arrival time of the chunk that completed it. */
export interface TimedStreamEvent {
  readonly type: StreamEventType;
  /** Monotonic ns at which the completing chunk arrived (taken before any parsing). */
  readonly atNs: number;
  /** Parsed JSON of the `data` field, or the raw string for `malformed`. */
  readonly data: unknown;
  /** The `type` field as sent, for `unknown` events. */
  readonly rawType?: string;
}

/** What a completed stream produced. */
export interface StreamSummary {
  /** `run_id` of the `start` (or `end`) event. */
  readonly runId: string | undefined;
  /** The `token` contents, concatenated in order. */
  readonly output: string;
  /** `usage` of the `end` event. */
  readonly usage: Usage | undefined;
  readonly timing: StreamTiming;
}

/**
 * Outcome of a stream. `timing` is always there, for complete and incomplete streams and
 * for streams that never started, so the engine records partial timings of failures too.
 */
export type StreamResult = ApiResult<StreamSummary> & { readonly timing: StreamTiming };

/** The classification the engine records for a result: undefined for a success. */
export function errorCodeOf(result: ApiResult<unknown> | StreamResult): ErrorCode | undefined {
  return result.ok ? undefined : result.error.code;
}

/** A stream timing with nothing observed, for streams that never got a 2xx body. */
export const EMPTY_STREAM_TIMING: StreamTiming = Object.freeze({
  firstByteNs: undefined,
  startEventNs: undefined,
  firstTokenNs: undefined,
  lastTokenNs: undefined,
  endEventNs: undefined,
  tokens: 0,
  itlNs: Object.freeze([]) as readonly number[],
  usageCompletionTokens: undefined,
  complete: false,
  unknownEvents: 0,
  malformedEvents: 0,
});
