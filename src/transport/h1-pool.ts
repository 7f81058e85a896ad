/**
 * The client's own HTTP/1.1 transport for `http:` origins: up to `connections` keep-alive
 * connections, one request on each at a time, a FIFO queue beyond that.
 *
 * Why not undici here: a load generator's ceiling is its cost per request, and undici's
 * general machinery (request objects, header validation and normalisation, its parser binding,
 * per-request timers) costs about as much as everything else the client does together. This
 * transport encodes each distinct request to bytes once (`request-bytes.ts`), parses only the headers the client reads, reads
 * every socket into one shared buffer, checks the stall timeouts in one sweep per pool, and keeps
 * whole-request deadlines in one heap with one timer (`DeadlineQueue`), never a timer per
 * request. `https:` stays on undici (TLS, ALPN, certificates).
 */
import type { Clock } from '../core/clock.js';
import { watchAbort } from './abort-watch.js';
import { createArrivalStamper } from './arrival-stamp.js';
import { createCodedError } from './wire-errors.js';
import { H1Connection, type ConnectionOwner, type ConnectionTarget } from './h1-connection.js';
import { H1Exchange, type ExchangeOwner } from './h1-exchange.js';
import { MAX_HEAD_BYTES } from './h1-parser.js';
import { TextCache } from './text-cache.js';
import { DeadlineQueue } from './deadline-queue.js';
import { RequestEncoder } from './request-bytes.js';
import { type BodyStream, type ExchangeRequest, type ExchangeSink, type Transport, type TransportSettings } from './transport.js';

/** Idle reuse limit when the server states no `Keep-Alive: timeout` (as undici's default). */
const DEFAULT_KEEP_ALIVE_MS = 4000;
/** Idle time after which a reused connection closed unanswered is taken for a stale keep-alive (no server times out sooner). */
const DEFAULT_STALE_IDLE_MS = 1000;
/** Bytes of the read buffer every connection of a pool shares (a read never outlives its callback). */
const READ_BUFFER_BYTES = 64 * 1024;
/**
 * New connections opened in one turn of the event loop at most; requests beyond wait for the
 * next turn (or for a connection to come free). Opening 10,000 sockets at once stalled the loop
 * for up to 2 s, and every byte that arrived meanwhile (first tokens of the streams already
 * open) was stamped that late; 256 connects take ten to twenty milliseconds, and a
 * run of a few hundred streams still opens them all in its first turn.
 */
export const CONNECTS_PER_TURN = 256;

/** How the pool paces its connects (tests pass a turn they run by hand). */
export interface ConnectPacing {
  readonly perTurn: number;
  /** Calls `fn` on the next turn of the event loop (`setImmediate`: after the I/O that is ready). */
  readonly nextTurn: (fn: () => void) => void;
}

const DEFAULT_PACING: ConnectPacing = { perTurn: CONNECTS_PER_TURN, nextTurn: (fn) => void setImmediate(fn) };

/** A stall timeout fires within a quarter of itself (at most 1 s, at least 5 ms), as undici's coarse timers do; deadlines are exact (`DeadlineQueue`). */
const tickFor = (ms: number): number => Math.min(1000, Math.max(5, ms / 4));

class H1Pool implements Transport, ExchangeOwner, ConnectionOwner {
  readonly kind = 'h1';
  private readonly target: ConnectionTarget;
  private readonly readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  private readonly requests: RequestEncoder;
  readonly texts = new TextCache();
  readonly maxBodyBytes: number;
  private readonly all = new Set<H1Connection>();
  private readonly idle: H1Connection[] = [];
  private queue: (H1Exchange | undefined)[] = [];
  private queueHead = 0;
  /** Queued exchanges not yet cancelled (cancelled ones stay in the queue until reached). */
  private waiting = 0;
  private isClosed = false;
  private closing: Promise<void> | undefined = undefined;
  private drained: (() => void) | undefined = undefined;
  private sweepTimer: NodeJS.Timeout | undefined = undefined;
  private readonly tickMs: number;
  /** Whole-request deadlines, each fired at its instant. */
  private readonly deadlines = new DeadlineQueue<H1Exchange>();
  /** Connects started in this turn of the loop; a turn is scheduled whenever it is above 0. */
  private opensThisTurn = 0;

  constructor(
    url: URL,
    private readonly s: TransportSettings,
    private readonly pacing: ConnectPacing = DEFAULT_PACING,
  ) {
    // URL keeps the brackets of an IPv6 literal; connect() wants the bare address.
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    this.target = {
      host,
      port: url.port === '' ? 80 : Number(url.port),
      keepAliveMs: DEFAULT_KEEP_ALIVE_MS,
      maxHeadBytes: MAX_HEAD_BYTES,
      stamp: createArrivalStamper(),
      staleIdleMs: s.staleIdleMs ?? DEFAULT_STALE_IDLE_MS,
    };
    this.requests = new RequestEncoder(url.host);
    this.maxBodyBytes = s.maxBodyBytes;
    const enabled = [s.connectMs, s.headersMs, s.bodyMs].filter((ms) => ms > 0);
    this.tickMs = tickFor(Math.min(...enabled, 4000));
  }

  /** Starts the sweep of stall timeouts and idle connections with the first exchange. */
  private armSweep(): void {
    if (this.sweepTimer === undefined) this.sweepTimer = setInterval(() => this.sweep(), this.tickMs).unref();
  }

  get closed(): boolean {
    return this.isClosed;
  }

  exchange(req: ExchangeRequest, clock: Clock, signal: AbortSignal | undefined, sink: ExchangeSink, body?: BodyStream): H1Exchange {
    const ex = new H1Exchange(req, clock, signal, sink, body, this);
    if (this.isClosed) {
      ex.fail(createCodedError('FG_H1_POOL_CLOSED', 'the client is closed'), clock.nowNs());
      return ex;
    }
    const problem = this.serialise(ex);
    if (problem !== undefined) {
      ex.fail(createCodedError('FG_H1_INVALID_REQUEST', problem), clock.nowNs());
      return ex;
    }
    if (signal !== undefined) {
      if (signal.aborted) {
        ex.fail(signal.reason, clock.nowNs());
        return ex;
      }
      watchAbort(signal, ex);
    }
    const deadlineMs = req.deadlineMs ?? this.s.requestMs;
    if (deadlineMs > 0) {
      ex.deadlineAtMs = performance.now() + deadlineMs;
      ex.deadlineMs = deadlineMs;
      this.deadlines.add(ex);
    }
    this.armSweep();
    this.dispatch(ex);
    return ex;
  }

  close(): Promise<void> {
    if (this.closing === undefined) {
      this.isClosed = true;
      this.closing = new Promise((resolve) => {
        this.drained = resolve;
      });
      this.checkDrained();
    }
    return this.closing;
  }

  cancel(ex: H1Exchange): void {
    if (ex.connection !== undefined) {
      ex.connection.drop(ex);
      return;
    }
    // Left in the queue and skipped when reached: O(1), for the thousands a stopping run cancels at once.
    if (ex.queued) {
      ex.queued = false;
      this.waiting--;
      this.checkDrained();
    }
  }

  released(conn: H1Connection, reusable: boolean): void {
    if (!reusable) {
      conn.destroy();
      return;
    }
    const next = this.dequeue();
    if (next !== undefined) {
      conn.send(next);
      return;
    }
    this.idle.push(conn);
    this.checkDrained();
  }

  settled(ex: H1Exchange): void {
    this.deadlines.remove(ex);
  }

  retry(ex: H1Exchange): void {
    ex.retried = true;
    ex.connection = undefined;
    this.dispatch(ex);
  }

  gone(conn: H1Connection): void {
    this.all.delete(conn);
    const i = this.idle.indexOf(conn);
    if (i !== -1) this.idle.splice(i, 1);
    // The capacity it held goes to the next request waiting, if any.
    const next = this.dequeue();
    if (next !== undefined) this.open().send(next);
    this.checkDrained();
  }

  private serialise(ex: H1Exchange): string | undefined {
    const bytes = this.requests.encode(ex.req);
    if (typeof bytes === 'string') return bytes;
    ex.wire = bytes;
    return undefined;
  }

  private dispatch(ex: H1Exchange): void {
    const conn = this.takeIdle();
    if (conn !== undefined) conn.send(ex);
    else if (this.all.size < this.s.connections && this.opensThisTurn < this.pacing.perTurn) this.open().send(ex);
    else {
      ex.queued = true;
      this.waiting++;
      this.queue.push(ex);
    }
  }

  private open(): H1Connection {
    if (this.opensThisTurn++ === 0) this.pacing.nextTurn(this.onTurn);
    const conn = new H1Connection(this, this.target, this.readBuffer);
    this.all.add(conn);
    return conn;
  }

  /** A new turn: a fresh connect budget, spent first on the requests that waited for it. */
  private readonly onTurn = (): void => {
    this.opensThisTurn = 0;
    while (this.waiting > 0 && this.all.size < this.s.connections && this.opensThisTurn < this.pacing.perTurn) {
      const next = this.dequeue();
      if (next === undefined) break;
      this.open().send(next);
    }
  };

  private takeIdle(): H1Connection | undefined {
    if (this.idle.length === 0) return undefined;
    const now = performance.now();
    for (;;) {
      const conn = this.idle.pop();
      if (conn === undefined) return undefined;
      if (conn.dead) continue;
      if (now - conn.idleSinceMs < conn.keepAliveMs) return conn;
      conn.destroy();
    }
  }

  private dequeue(): H1Exchange | undefined {
    const q = this.queue;
    while (this.queueHead < q.length) {
      const ex = q[this.queueHead];
      q[this.queueHead++] = undefined;
      if (ex !== undefined && ex.queued) {
        ex.queued = false;
        this.waiting--;
        this.compactQueue();
        return ex;
      }
    }
    this.queue = [];
    this.queueHead = 0;
    return undefined;
  }

  private compactQueue(): void {
    if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.queueHead);
      this.queueHead = 0;
    }
  }

  /** Times out stalled connects, heads and bodies; retires connections idle past their keep-alive. */
  private sweep(): void {
    const now = performance.now();
    const { connectMs, headersMs, bodyMs } = this.s;
    for (const conn of this.all) {
      const ex = conn.ex;
      if (ex === undefined) {
        if (!conn.dead && now - conn.idleSinceMs >= conn.keepAliveMs) conn.destroy();
      } else if (!conn.connected) {
        if (connectMs > 0 && now - conn.createdAtMs >= connectMs) conn.timeout('FG_H1_CONNECT_TIMEOUT', `connect timed out after ${connectMs} ms`);
      } else if (ex.headersNs === undefined) {
        if (headersMs > 0 && now - conn.sentAtMs >= headersMs) conn.timeout('FG_H1_HEADERS_TIMEOUT', `no response head within ${headersMs} ms`);
      } else if (conn.bytesIn !== conn.markBytes) {
        conn.markBytes = conn.bytesIn;
        conn.markAtMs = now;
      } else if (bodyMs > 0 && now - conn.markAtMs >= bodyMs) {
        conn.timeout('FG_H1_BODY_TIMEOUT', `body stalled for ${bodyMs} ms`);
      }
    }
  }

  private checkDrained(): void {
    if (this.drained === undefined) return;
    if (this.waiting > 0) return;
    for (const conn of this.all) if (conn.ex !== undefined) return;
    const done = this.drained;
    this.drained = undefined;
    if (this.sweepTimer !== undefined) clearInterval(this.sweepTimer);
    this.deadlines.close();
    for (const conn of [...this.all]) conn.destroy();
    done();
  }
}

/** The client's own HTTP/1.1 transport to an `http:` origin. */
export function createH1Transport(origin: string, s: TransportSettings, pacing?: ConnectPacing): Transport {
  return new H1Pool(new URL(origin), s, pacing);
}
