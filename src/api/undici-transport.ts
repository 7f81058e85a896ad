/**
 * The undici transport: one `dispatch` per exchange with a handler of our own, so a request
 * costs no body stream, no per-request abort listener and no extra promise hops. (undici's
 * `request()` wraps every answer in a Readable and adds and removes a listener on the signal
 * per call; at tens of thousands of requests per second that was a third of the client's
 * time.) Timing is taken in the handler: `headersNs` when the head is parsed, `endNs` when
 * the last body byte is. Used for `https:` targets and when asked for by name.
 */
import { Pool, type Dispatcher } from 'undici';
import type { Clock } from '../core/clock.js';
import { unwatchAbort, watchAbort } from './abort-watch.js';
import { bodyTooLarge } from './errors.js';
import { keptHeaders } from './kept-headers.js';
import type { ResponseHeaders } from './rate-limit-headers.js';
import { decodeBody, type BodyStream, type ExchangeHandle, type ExchangeOutcome, type ExchangeRequest, type ExchangeSink, type Transport, type TransportSettings } from './transport.js';

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
    private readonly maxBodyBytes: number,
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
    this.length += chunk.length;
    if (this.length > this.maxBodyBytes) {
      // Reported at once; the abort then tears the request down (its onError finds it done).
      const err = bodyTooLarge(this.maxBodyBytes);
      this.onError(err);
      this.abortFn?.(err);
      return false;
    }
    this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    const endNs = this.clock.nowNs();
    let text: string | undefined;
    if (!this.streaming) {
      const buf = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.length);
      text = decodeBody(buf, 0, this.length);
    }
    this.finish({ status: this.status, headers: this.headers, headersNs: this.headersNs, endNs, text, error: undefined });
  }

  onError(err: Error): void {
    this.finish({ status: this.status, headers: this.headers, headersNs: this.headersNs, endNs: this.clock.nowNs(), text: undefined, error: err });
  }

  private finish(outcome: ExchangeOutcome): void {
    if (this.done) return;
    this.done = true;
    if (this.signal !== undefined) unwatchAbort(this.signal, this);
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
      watchAbort(signal, this);
    }
    // dispatch() reports a closed or destroyed pool through onError, synchronously.
    dispatcher.dispatch(options, this);
  }
}

/** A transport on an undici `Pool` for `origin`. */
export function createUndiciTransport(origin: string, s: TransportSettings): Transport {
  const pool = new Pool(origin, {
    connections: s.connections,
    pipelining: s.pipelining,
    connect: { timeout: s.connectMs, ...(s.tls?.ca !== undefined ? { ca: s.tls.ca } : {}), ...(s.tls?.insecure === true ? { rejectUnauthorized: false } : {}) },
    headersTimeout: s.headersMs,
    bodyTimeout: s.bodyMs,
  });
  let closing: Promise<void> | undefined;
  return {
    kind: 'undici',
    exchange(req: ExchangeRequest, clock, signal, sink, body) {
      const ex = new Exchange(clock, signal, sink, body, s.maxBodyBytes);
      ex.start(pool, { path: req.path, method: req.method, headers: req.headers, body: req.body });
      return ex;
    },
    close() {
      closing ??= pool.close();
      return closing;
    },
    get closed() {
      return pool.closed;
    },
  };
}
