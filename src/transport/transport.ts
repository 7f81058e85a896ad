/**
 * The wire under the client: one exchange at a time, its outcome delivered to a sink exactly
 * once, never thrown. Two transports implement it: the client's own HTTP/1.1 connections
 * (`h1-pool.ts`, the default for `http:` targets, because they cost a load generator a third
 * of what undici does per request) and undici (`undici-transport.ts`, for `https:` and on request).
 */
import type { Clock } from '../core/clock.js';
import { createCodedError } from './wire-errors.js';
import type { DispatcherProxy, DispatcherTls } from './undici-dispatcher.js';

/** Response headers as undici gives them: lower-cased names, repeated headers as arrays (only the kept ones, `kept-headers.ts`). */
export type ResponseHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** Request headers as the client sends them (lower-case names). */
export type RequestHeaders = Readonly<Record<string, string>>;

/** One request. `body` is already serialised (UTF-8 text). */
export interface ExchangeRequest {
  /** GET and POST for the operations; `http` requests send PUT, PATCH and DELETE too. */
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly headers: RequestHeaders;
  readonly body: string | undefined;
  /**
   * Bodies of requests with the same key tend to repeat (the operation's name): a transport
   * may hand back the very string it decoded last time for a byte-identical body.
   */
  readonly reuseKey?: string;
  /**
   * Whole-request deadline in ms from the call (queueing, connecting, waiting and the whole
   * body, a stream's included); absent: the transport's `requestMs`; 0: none.
   */
  readonly deadlineMs?: number;
}

/**
 * The moments of one exchange on the client's clock, from which its phases follow (k6's
 * `blocked`, `connecting`, `tls_handshaking`, `waiting`, `receiving`): blocked is the time from
 * the call to `sentNs` less the connection's own setup, waiting runs from `sentNs` to
 * `headersNs`, receiving from `headersNs` to `endNs`.
 */
export interface ExchangeTimes {
  /** When the response head arrived. */
  readonly headersNs: number | undefined;
  /** When the body's last byte, or the failure, arrived. */
  readonly endNs: number;
  /**
   * When the request went out on an open connection (after the connection's setup, when it
   * was new); undefined when it never reached one (queued, or the connect failed).
   */
  readonly sentNs: number | undefined;
  /** TCP connect time of the new connection this request was the first on; 0 on a reused one. */
  readonly connectNs: number;
  /** TLS handshake time of that new connection; 0 on a reused or plain one. */
  readonly tlsNs: number;
}

/** What one exchange ended in: a full answer, or an error (with what arrived before it). */
export interface ExchangeOutcome extends ExchangeTimes {
  readonly status: number;
  readonly headers: ResponseHeaders | undefined;
  /** The body decoded as UTF-8 (BOM dropped), when it arrived whole and was not streamed. */
  readonly text: string | undefined;
  /** The failure, when there was one. */
  readonly error: unknown;
}

/** Receives the outcome of one exchange. */
export type ExchangeSink = (outcome: ExchangeOutcome) => void;

/**
 * Optional streaming of the body: `head` sees the response head first and returns true to
 * receive the body chunk by chunk (each stamped on arrival) instead of buffered; the outcome
 * then carries no `text`. A chunk is only valid during the call.
 */
export interface BodyStream {
  head(status: number, headers: ResponseHeaders, atNs: number): boolean;
  chunk(chunk: Buffer, atNs: number): void;
}

/** A request in flight, for cancelling it from outside (a failed consumer). */
export interface ExchangeHandle {
  /** Aborts the request; the outcome then arrives with `reason` as its error. */
  cancel(reason: unknown): void;
}

/** Connections to one origin. */
export interface Transport {
  /** Which implementation this is (for reports and diagnosis). */
  readonly kind: 'h1' | 'undici';
  /**
   * Sends one request and calls `sink` exactly once with its outcome. Never throws for
   * transport failures (they arrive as `error`). With `body`, the body can be taken chunk by chunk.
   */
  exchange(req: ExchangeRequest, clock: Clock, signal: AbortSignal | undefined, sink: ExchangeSink, body?: BodyStream): ExchangeHandle;
  /**
   * Lets exchanges in flight finish, then closes every connection; later exchanges fail as
   * aborted. Safe to call again: it resolves when the first close has drained.
   */
  close(): Promise<void>;
  readonly closed: boolean;
}

/** Connections, pipelining, deadlines (ms, 0 for none) and the body cap: the client resolves them, the transport keeps them. */
export interface TransportLimits {
  readonly connections: number;
  readonly pipelining: number;
  readonly connectMs: number;
  readonly headersMs: number;
  readonly bodyMs: number;
  readonly requestMs: number;
  readonly maxBodyBytes: number;
}

/**
 * What a transport takes of the client's resolved options (`ResolvedClientOptions` is one), plus,
 * for `h1` only, how long a connection must have sat idle before a close at its reuse counts as
 * stale (default 1 s). Times in ms, 0 for none.
 */
export interface TransportSettings extends TransportLimits {
  /** TLS of an `https:` origin (undici only); absent: the system's trust, verified. */
  readonly tls?: DispatcherTls | undefined;
  /** The proxy of `https:` origins (undici only). */
  readonly proxy?: DispatcherProxy | undefined;
  readonly staleIdleMs?: number;
}

/** The error of a request cut by its whole-request deadline. */
export function deadlineError(ms: number): Error {
  return createCodedError('FG_REQUEST_DEADLINE', `no complete answer within the request deadline of ${ms} ms`);
}

/** Decodes a buffered body: UTF-8 with a leading BOM dropped. */
export function decodeBody(buf: Buffer, start: number, end: number): string {
  if (end <= start) return '';
  const s = end - start > 2 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf ? start + 3 : start;
  return buf.toString('utf8', s, end);
}
