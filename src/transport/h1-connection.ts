/**
 * One keep-alive HTTP/1.1 connection of the client's own transport: a `net` socket that reads
 * into the pool's shared buffer (`onread`, so no Buffer is allocated per read), the response
 * parser, and the exchange it is carrying. Each read is stamped with the exchange's clock on
 * arrival (`arrival-stamp.ts`), before the parser sees it. Timeouts are enforced by the pool's sweep, which reads
 * the marks kept here.
 */
import { connect, type Socket } from 'node:net';
import type { ArrivalStamper } from './arrival-stamp.js';
import { createCodedError, type WireCode } from './wire-errors.js';
import type { H1Exchange } from './h1-exchange.js';
import { H1ResponseParser, type H1Events, type H1Head } from './h1-parser.js';

/** What a connection tells its pool. */
export interface ConnectionOwner {
  /** The exchange finished; the connection may carry another when `reusable`. */
  released(conn: H1Connection, reusable: boolean): void;
  /** The connection is gone (closed by either side, or failed). */
  gone(conn: H1Connection): void;
  /** Sends `ex` again on another connection (see `retryable`). */
  retry(ex: H1Exchange): void;
}

/** Where to connect, and the settings a connection needs. */
export interface ConnectionTarget {
  readonly host: string;
  readonly port: number;
  /** Idle time after which a kept-alive connection is not reused, when the server states none. */
  readonly keepAliveMs: number;
  readonly maxHeadBytes: number;
  /** Stamps reads; reads of one pass over ready sockets share a stamp (`arrival-stamp.ts`). */
  readonly stamp: ArrivalStamper;
  /** How long a connection must have sat idle before a close at its reuse counts as stale (see `retryable`). */
  readonly staleIdleMs: number;
}

/** Reuse stops this long before the server's stated keep-alive timeout, so a request never races its close. */
const KEEP_ALIVE_MARGIN_MS = 1000;

/** A connection and the marks the pool's timeout sweep reads. */
export class H1Connection implements H1Events {
  ex: H1Exchange | undefined = undefined;
  connected = false;
  dead = false;
  readonly createdAtMs = performance.now();
  /** When the current request was written (or, if written while connecting, when the connection opened). */
  sentAtMs = 0;
  idleSinceMs = 0;
  keepAliveMs: number;
  /** Bytes read so far; the sweep compares it between passes to see a stalled body. */
  bytesIn = 0;
  markBytes = -1;
  markAtMs = 0;
  private readonly socket: Socket;
  private readonly parser: H1ResponseParser;
  private readonly stamp: ArrivalStamper;
  private atNs = 0;
  /** When the first request asked for this connection (its connect phase starts there). */
  private connectStartNs = 0;
  private completed: boolean | undefined = undefined;
  /** Answers completed on this connection: more than none makes it a reused one. */
  private served = 0;
  private bytesAtSend = 0;
  private idleBeforeSendMs = 0;
  private readonly staleIdleMs: number;

  constructor(
    private readonly owner: ConnectionOwner,
    target: ConnectionTarget,
    readBuffer: Buffer,
  ) {
    this.keepAliveMs = target.keepAliveMs;
    this.stamp = target.stamp;
    this.staleIdleMs = target.staleIdleMs;
    this.parser = new H1ResponseParser(this, target.maxHeadBytes);
    this.socket = connect({ host: target.host, port: target.port, onread: { buffer: readBuffer, callback: (n) => this.read(n, readBuffer) } });
    this.socket.setNoDelay(true);
    this.socket.on('connect', () => {
      this.connected = true;
      this.sentAtMs = performance.now();
      // The request written while connecting goes out now: its connect phase ends here.
      const ex = this.ex;
      if (ex !== undefined && !ex.done) {
        const now = ex.clock.nowNs();
        ex.connectNs = now - this.connectStartNs;
        ex.sentNs = now;
      }
    });
    this.socket.on('error', (err) => this.lost(err));
    this.socket.on('end', () => this.ended());
    this.socket.on('close', () => this.lost(undefined));
  }

  /** Writes `ex` (already serialised into `ex.wire`) and waits for its answer. */
  send(ex: H1Exchange): void {
    this.ex = ex;
    ex.connection = this;
    this.markBytes = -1;
    this.bytesAtSend = this.bytesIn;
    const now = performance.now();
    this.idleBeforeSendMs = this.served > 0 ? now - this.idleSinceMs : 0;
    this.parser.expect(false);
    ex.connectNs = 0;
    if (this.connected) {
      this.sentAtMs = now;
      ex.sentNs = ex.clock.nowNs();
    } else {
      ex.sentNs = undefined;
      this.connectStartNs = ex.clock.nowNs();
    }
    this.socket.write(ex.wire as Buffer);
  }

  /** Gives up the exchange `ex` (cancelled): the connection cannot be reused mid-answer. */
  drop(ex: H1Exchange): void {
    if (this.ex === ex) this.destroy();
  }

  /** Fails the current exchange with a timeout and closes the connection. */
  timeout(code: WireCode, message: string): void {
    this.fail(createCodedError(code, message));
  }

  /** Fails the current exchange with `err` and closes the connection (it cannot be reused mid-answer). */
  fail(err: Error): void {
    const ex = this.ex;
    if (ex !== undefined) ex.fail(err, ex.clock.nowNs());
    this.destroy();
  }

  /** Closes the connection now. */
  destroy(): void {
    this.socket.destroy();
    this.lost(undefined);
  }

  onHead(head: H1Head): void {
    const ex = this.ex;
    if (head.keepAliveHintMs !== undefined) this.keepAliveMs = Math.max(0, head.keepAliveHintMs - KEEP_ALIVE_MARGIN_MS);
    if (ex !== undefined && !ex.done) ex.head(head.status, head.headers, this.atNs);
  }

  onBody(buf: Buffer, start: number, end: number, last: boolean): void {
    const ex = this.ex;
    if (ex !== undefined && !ex.done) ex.bodyBytes(buf, start, end, last, this.atNs);
  }

  onComplete(reusable: boolean): void {
    // Settled once the read is parsed to its end (`release`): bytes after a complete answer in
    // the same read are a second answer to one request, and fail it instead.
    this.completed = reusable;
  }

  private read(n: number, buf: Buffer): boolean {
    this.bytesIn += n;
    const ex = this.ex;
    if (ex === undefined || ex.done) {
      // Bytes nobody asked for (or for a cancelled request): the stream can no longer be trusted.
      this.destroy();
      return false;
    }
    this.atNs = this.stamp(ex.clock);
    this.completed = undefined;
    const problem = this.parser.execute(buf, 0, n);
    if (problem !== undefined) {
      // A complete answer followed by more bytes (a duplicated response, or garbage) on a
      // keep-alive connection is a protocol finding of that request, never a silent pass.
      const why = this.completed === undefined ? problem : `two answers to one request (bytes followed its complete answer): ${problem}`;
      this.completed = undefined;
      if (!ex.done) ex.fail(createCodedError('FG_H1_PARSE', `bad response: ${why}`), this.atNs);
      this.destroy();
      return false;
    }
    this.release();
    return true;
  }

  private release(): void {
    const reusable = this.completed;
    if (reusable === undefined) return;
    this.completed = undefined;
    this.ex?.complete(this.atNs);
    this.ex = undefined;
    this.served++;
    // Idle from the end of this answer, whether the pool parks the connection or hands it the next request at once.
    this.idleSinceMs = performance.now();
    if (!this.dead) this.owner.released(this, reusable);
  }

  /**
   * A GET that found its reused connection closed before a byte of the answer is sent once more
   * on another connection when that connection had sat idle (`staleIdleMs`): the server closed
   * an idle keep-alive connection as the request went out, a race of the client's making (RFC
   * 9112 §9.3.1 allows the retry for idempotent methods), not a failure of the service. A
   * connection in steady use, a new one, a POST, or an answer begun is never retried, so a
   * service that resets connections under load is measured as it is.
   */
  private retryable(ex: H1Exchange, err: Error | undefined): boolean {
    if (ex.retried || ex.req.method !== 'GET' || this.served === 0 || this.bytesIn !== this.bytesAtSend) return false;
    if (this.idleBeforeSendMs < this.staleIdleMs) return false;
    const code = (err as { code?: unknown } | undefined)?.code;
    return err === undefined || code === 'ECONNRESET' || code === 'EPIPE';
  }

  /** The server closed its side: completes a body delimited by close; `lost` settles anything else. */
  private ended(): void {
    const ex = this.ex;
    if (ex !== undefined && !ex.done) {
      this.atNs = this.stamp(ex.clock);
      this.parser.eof();
      this.release();
    }
    this.destroy();
  }

  /** The connection is gone: an exchange still waiting fails (or, if `retryable`, goes to another connection). */
  private lost(err: Error | undefined): void {
    const ex = this.ex;
    this.ex = undefined;
    let again: H1Exchange | undefined;
    if (ex !== undefined && !ex.done) {
      if (this.retryable(ex, err)) again = ex;
      else ex.fail(err ?? createCodedError('FG_H1_CLOSED', 'other side closed'), ex.clock.nowNs());
    }
    if (this.dead) return;
    this.dead = true;
    if (err !== undefined) this.socket.destroy();
    this.owner.gone(this);
    if (again !== undefined) this.owner.retry(again);
  }
}
