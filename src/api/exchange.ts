/**
 * The low-level half of a JSON request: one undici `dispatch` with a handler of our own, so a
 * request costs no body stream, no per-request abort listener and no extra promise hops.
 * (undici's `request()` wraps every answer in a Readable and adds and removes a listener on
 * the signal per call; at tens of thousands of requests per second that was a third of the
 * client's time.) Timing is taken in the handler: `headersNs` when the head is parsed,
 * `endNs` when the last body byte is.
 */
import type { Dispatcher } from 'undici';
import type { Clock } from '../core/clock.js';
import type { ResponseHeaders } from './rate-limit-headers.js';

/** What one exchange ended in: a full answer, or an error (with what arrived before it). */
export interface ExchangeOutcome {
  readonly status: number;
  readonly headers: ResponseHeaders | undefined;
  readonly headersNs: number | undefined;
  readonly endNs: number;
  /** The body decoded as UTF-8 (BOM dropped), when it arrived whole. */
  readonly text: string | undefined;
  /** The failure, when there was one. */
  readonly error: unknown;
}

/** Receives the outcome of one exchange. */
export type ExchangeSink = (outcome: ExchangeOutcome) => void;

/**
 * Optional streaming of the body: `head` sees the response head first and returns true to
 * receive the body chunk by chunk (each stamped on arrival) instead of buffered; the outcome
 * then carries no `text`.
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

// The response headers the client interprets. Only these are kept, so the dozens of others a
// real service sends cost a length check each and no string allocation.
const KEPT = ['content-type', 'retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-request-id'] as const;
const KEPT_BYTES = KEPT.map((name) => Buffer.from(name, 'latin1'));
const KEPT_LENGTHS = new Set(KEPT.map((name) => name.length));

/** The lower-cased name of a kept header, or undefined (compares bytes, case-insensitively). */
function keptName(raw: Buffer): string | undefined {
  const n = raw.length;
  if (!KEPT_LENGTHS.has(n)) return undefined;
  outer: for (let k = 0; k < KEPT_BYTES.length; k++) {
    const want = KEPT_BYTES[k] as Buffer;
    if (want.length !== n) continue;
    // Kept names hold only a–z and '-': OR-ing 0x20 lower-cases letters and leaves '-' as is.
    for (let i = 0; i < n; i++) if (((raw[i] as number) | 0x20) !== want[i]) continue outer;
    return KEPT[k];
  }
  return undefined;
}

/**
 * The headers of `raw` (undici's name/value list) that the client reads, lower-cased, a
 * repeated header as an array of its values (as undici's own parser gives them).
 */
export function keptHeaders(raw: readonly Buffer[]): ResponseHeaders {
  const out: Record<string, string | string[]> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = keptName(raw[i] as Buffer);
    if (name === undefined) continue;
    const value = (raw[i + 1] as Buffer).toString('latin1');
    const prev = out[name];
    if (prev === undefined) out[name] = value;
    else if (typeof prev === 'string') out[name] = [prev, value];
    else prev.push(value);
  }
  return out;
}

function decodeBody(chunks: Buffer[], length: number): string {
  if (length === 0) return '';
  const buf = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length);
  const start = length > 2 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  return buf.toString('utf8', start, length);
}

/** Exchanges waiting on each signal: one listener per signal instead of one per request. */
const watched = new WeakMap<AbortSignal, Set<Exchange>>();

function watch(signal: AbortSignal, ex: Exchange): void {
  let set = watched.get(signal);
  if (set === undefined) {
    const s = new Set<Exchange>();
    set = s;
    watched.set(signal, s);
    signal.addEventListener(
      'abort',
      () => {
        for (const e of s) e.cancel(signal.reason);
        s.clear();
      },
      { once: true },
    );
  }
  set.add(ex);
}

/** One request's handler (undici's dispatch handler protocol). */
class Exchange implements Dispatcher.DispatchHandler, ExchangeHandle {
  private abortFn: ((err?: Error) => void) | undefined = undefined;
  private cancelReason: unknown = undefined;
  private cancelled = false;
  private done = false;
  private status = 0;
  private headers: ResponseHeaders | undefined = undefined;
  private headersNs: number | undefined = undefined;
  private readonly chunks: Buffer[] = [];
  private length = 0;
  private streaming = false;

  constructor(
    private readonly clock: Clock,
    private readonly signal: AbortSignal | undefined,
    private readonly sink: ExchangeSink,
    private readonly body: BodyStream | undefined,
  ) {}

  cancel(reason: unknown): void {
    if (this.done) return;
    this.cancelled = true;
    this.cancelReason = reason;
    // A request still queued in the pool is aborted when it reaches a connection (onConnect).
    this.abortFn?.(reason as Error);
  }

  onConnect(abort: (err?: Error) => void): void {
    if (this.cancelled) abort(this.cancelReason as Error);
    else this.abortFn = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    // 1xx informational heads are followed by the real one.
    if (statusCode < 200) return true;
    const atNs = this.clock.nowNs();
    this.headersNs = atNs;
    this.status = statusCode;
    const headers = keptHeaders(rawHeaders);
    this.headers = headers;
    if (this.body !== undefined) this.streaming = this.body.head(statusCode, headers, atNs);
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.streaming) {
      (this.body as BodyStream).chunk(chunk, this.clock.nowNs());
      return true;
    }
    this.chunks.push(chunk);
    this.length += chunk.length;
    return true;
  }

  onComplete(): void {
    const endNs = this.clock.nowNs();
    const text = this.streaming ? undefined : decodeBody(this.chunks, this.length);
    this.finish({ status: this.status, headers: this.headers, headersNs: this.headersNs, endNs, text, error: undefined });
  }

  onError(err: Error): void {
    this.finish({ status: this.status, headers: this.headers, headersNs: this.headersNs, endNs: this.clock.nowNs(), text: undefined, error: err });
  }

  private finish(outcome: ExchangeOutcome): void {
    if (this.done) return;
    this.done = true;
    if (this.signal !== undefined) watched.get(this.signal)?.delete(this);
    this.sink(outcome);
  }

  /** Dispatches, or ends at once when the signal is already aborted. */
  start(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions): void {
    const signal = this.signal;
    if (signal !== undefined) {
      if (signal.aborted) {
        this.onError(signal.reason as Error);
        return;
      }
      watch(signal, this);
    }
    // dispatch() reports a closed or destroyed pool through onError, synchronously.
    dispatcher.dispatch(options, this);
  }
}

/**
 * Sends one request and calls `sink` exactly once with its outcome. Never throws for
 * transport failures (they arrive as `error`). With `body`, a body can be taken chunk by chunk.
 */
export function exchange(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  clock: Clock,
  signal: AbortSignal | undefined,
  sink: ExchangeSink,
  body?: BodyStream,
): ExchangeHandle {
  const ex = new Exchange(clock, signal, sink, body);
  ex.start(dispatcher, options);
  return ex;
}
