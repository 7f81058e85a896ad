/**
 * The undici transport: one `dispatch` per exchange with a handler of our own, so a request
 * costs no body stream, no per-request abort listener and no extra promise hops. (undici's
 * `request()` wraps every answer in a Readable and adds and removes a listener on the signal
 * per call; at tens of thousands of requests per second that was a third of the client's
 * time.) Timing is taken in the handler: `sentNs` when undici writes the request on its
 * connection (`onConnect`), `headersNs` when the head is parsed, `endNs` when the last body
 * byte is. Used for `https:` targets, through an `HTTPS_PROXY` when one is set, and when asked
 * for by name.
 */
import type { Socket } from 'node:net';
import type { buildConnector, Dispatcher } from 'undici';
import type { Clock } from '../core/clock.js';
import { unwatchAbort, watchAbort } from './abort-watch.js';
import { bodyTooLarge } from './wire-errors.js';
import { DeadlineQueue, type Expiring } from './deadline-queue.js';
import { keptHeaders } from './kept-headers.js';
import { createUndiciDispatcher } from './undici-dispatcher.js';
import type { ResponseHeaders } from './transport.js';
import {
  deadlineError,
  decodeBody,
  type BodyStream,
  type ExchangeHandle,
  type ExchangeOutcome,
  type ExchangeRequest,
  type ExchangeSink,
  type Transport,
  type TransportSettings,
} from './transport.js';

/**
 * Setup times of the connection undici has just opened. undici writes the first request on a
 * new socket synchronously inside the connector's callback, so the first `onConnect` during
 * that callback is the request that waited for it; the times are taken there and cleared after.
 */
interface SetupTimes {
  fresh: { readonly connectNs: number; readonly tlsNs: number } | undefined;
}

/** A connector that notes how long TCP and TLS took on each new connection. */
function timedConnector(connect: buildConnector.connector, setup: SetupTimes): buildConnector.connector {
  return (options, callback) => {
    const t0 = performance.now();
    let tcpAt = 0;
    const socket = connect(options, (...args) => {
      const [err, sock] = args;
      if (err === null && sock !== null) {
        const done = performance.now();
        const tcp = tcpAt === 0 ? done : tcpAt;
        setup.fresh = { connectNs: Math.round((tcp - t0) * 1e6), tlsNs: options.protocol === 'https:' ? Math.round((done - tcp) * 1e6) : 0 };
      }
      try {
        callback(...args);
      } finally {
        setup.fresh = undefined;
      }
    }) as Socket | undefined;
    // A TLS socket emits 'connect' when its TCP connection is up, before the handshake.
    socket?.once?.('connect', () => {
      tcpAt = performance.now();
    });
    return socket as ReturnType<buildConnector.connector>;
  };
}

/** One request's handler (undici's dispatch handler protocol). */
class Exchange implements Dispatcher.DispatchHandler, ExchangeHandle, Expiring {
  private abortFn: ((err?: Error) => void) | undefined = undefined;
  private cancelReason: unknown = undefined;
  private cancelled = false;
  private done = false;
  private status = 0;
  private headers: ResponseHeaders | undefined = undefined;
  private headersNs: number | undefined = undefined;
  private sentNs: number | undefined = undefined;
  private connectNs = 0;
  private tlsNs = 0;
  /** Whole-request deadline in `performance.now()` ms; 0 for none. */
  deadlineAtMs = 0;
  deadlineMs = 0;
  /** Its place in the transport's deadline queue; -1 when not queued. */
  deadlineSlot = -1;
  private readonly chunks: Buffer[] = [];
  private length = 0;
  private streaming = false;

  constructor(
    private readonly clock: Clock,
    private readonly signal: AbortSignal | undefined,
    private readonly sink: ExchangeSink,
    private readonly body: BodyStream | undefined,
    private readonly maxBodyBytes: number,
    private readonly setup: SetupTimes,
  ) {}

  cancel(reason: unknown): void {
    if (this.done) return;
    this.cancelled = true;
    this.cancelReason = reason;
    // A request still queued in the pool is aborted when it reaches a connection (onConnect).
    this.abortFn?.(reason as Error);
  }

  /** The deadline passed: fails now, whether the request is queued, on a connection, or streaming. */
  expire(): void {
    if (this.done) return;
    const err = deadlineError(this.deadlineMs);
    this.cancel(err);
    // Still queued in undici's pool: nothing has called onError yet.
    this.onError(err);
  }

  onConnect(abort: (err?: Error) => void): void {
    if (this.cancelled) {
      abort(this.cancelReason as Error);
      return;
    }
    this.abortFn = abort;
    this.sentNs = this.clock.nowNs();
    const fresh = this.setup.fresh;
    if (fresh !== undefined) {
      this.setup.fresh = undefined;
      this.connectNs = fresh.connectNs;
      this.tlsNs = fresh.tlsNs;
    }
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
    this.finish(endNs, text, undefined);
  }

  onError(err: Error): void {
    this.finish(this.clock.nowNs(), undefined, err);
  }

  private finish(endNs: number, text: string | undefined, error: Error | undefined): void {
    if (this.done) return;
    this.done = true;
    if (this.signal !== undefined) unwatchAbort(this.signal, this);
    this.onDone?.(this);
    const outcome: ExchangeOutcome = {
      status: this.status,
      headers: this.headers,
      headersNs: this.headersNs,
      endNs,
      text,
      error,
      sentNs: this.sentNs,
      connectNs: this.connectNs,
      tlsNs: this.tlsNs,
    };
    this.sink(outcome);
  }

  /** Called once when it settles (the transport forgets its deadline). */
  onDone: ((ex: Exchange) => void) | undefined = undefined;

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

/**
 * A transport to `origin` on an undici `Pool`, or, with `s.proxy`, on undici's proxy agent
 * (which tunnels to `https:` origins unless `noProxy` names them, as curl reads `NO_PROXY`).
 */
export function createUndiciTransport(origin: string, s: TransportSettings): Transport {
  const setup: SetupTimes = { fresh: undefined };
  const dispatcher = createUndiciDispatcher({
    origin,
    tls: s.tls,
    proxy: s.proxy,
    connectMs: s.connectMs,
    wrapConnector: (connect) => timedConnector(connect, setup),
    pool: { connections: s.connections, pipelining: s.pipelining, headersTimeout: s.headersMs, bodyTimeout: s.bodyMs },
  });
  // Exchanges with a deadline, in one heap with one timer rather than a timer each; each fires at its instant.
  const deadlines = new DeadlineQueue<Exchange>();
  const forget = (ex: Exchange): void => {
    deadlines.remove(ex);
  };
  let closing: Promise<void> | undefined;
  return {
    kind: 'undici',
    exchange(req: ExchangeRequest, clock, signal, sink, body) {
      const ex = new Exchange(clock, signal, sink, body, s.maxBodyBytes, setup);
      const deadlineMs = req.deadlineMs ?? s.requestMs;
      if (deadlineMs > 0) {
        ex.deadlineMs = deadlineMs;
        ex.deadlineAtMs = performance.now() + deadlineMs;
        ex.onDone = forget;
        deadlines.add(ex);
      }
      // undici's proxy agent writes `host` into the headers it is given: it gets a copy of the shared, frozen set.
      const headers = s.proxy === undefined ? req.headers : { ...req.headers };
      ex.start(dispatcher, { origin, path: req.path, method: req.method, headers, body: req.body });
      return ex;
    },
    close() {
      closing ??= dispatcher.close().finally(() => deadlines.close());
      return closing;
    },
    get closed() {
      return closing !== undefined;
    },
  };
}
