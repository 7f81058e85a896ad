/**
 * One request on the client's own HTTP/1.1 transport: what arrived of its answer, and the
 * outcome it settles into, exactly once. Times are the arrival stamps of the reads that
 * carried the head and the last body byte, taken before any parsing.
 */
import type { Clock } from '../core/clock.js';
import { unwatchAbort, type Cancellable } from './abort-watch.js';
import type { ResponseHeaders } from './transport.js';
import type { TextCache } from './text-cache.js';
import { bodyTooLarge } from './wire-errors.js';
import type { Expiring } from './deadline-queue.js';
import { deadlineError, decodeBody, type BodyStream, type ExchangeHandle, type ExchangeRequest, type ExchangeSink } from './transport.js';

/** The pool an exchange belongs to. */
export interface ExchangeOwner {
  /** Drops a cancelled exchange from the queue or from its connection. */
  cancel(ex: H1Exchange): void;
  /** Last decoded body per reuse key. */
  readonly texts: TextCache;
  /** Largest body buffered. */
  readonly maxBodyBytes: number;
  /** The exchange settled: its deadline, if queued, is dropped. */
  settled(ex: H1Exchange): void;
}

/** A request and its answer so far. */
export class H1Exchange implements ExchangeHandle, Cancellable, Expiring {
  done = false;
  /** The connection carrying it, once written. */
  connection: { drop(ex: H1Exchange): void } | undefined = undefined;
  /** The request's bytes as they go on the wire (encoded before it may wait in the queue; shared by identical requests, never written to). */
  wire: Buffer | undefined = undefined;
  /** True while it waits in the pool's queue. */
  queued = false;
  /** Set once it has been sent again after a stale keep-alive connection (at most once). */
  retried = false;
  status = 0;
  headers: ResponseHeaders | undefined = undefined;
  headersNs: number | undefined = undefined;
  /** When it went out on an open connection (see `ExchangeTimes`). */
  sentNs: number | undefined = undefined;
  /** Connect time of the new connection it opened; 0 on a reused one. */
  connectNs = 0;
  /** Whole-request deadline in `performance.now()` ms; 0 for none. */
  deadlineAtMs = 0;
  /** That deadline's length, for the error. */
  deadlineMs = 0;
  /** Its place in the pool's deadline queue (`DeadlineQueue`); -1 when not queued. */
  deadlineSlot = -1;
  private streaming = false;
  private text: string | undefined = undefined;
  private pieces: Buffer[] | undefined = undefined;
  private piecesLength = 0;

  constructor(
    readonly req: ExchangeRequest,
    readonly clock: Clock,
    readonly signal: AbortSignal | undefined,
    private readonly sink: ExchangeSink,
    private readonly body: BodyStream | undefined,
    private readonly owner: ExchangeOwner,
  ) {}

  cancel(reason: unknown): void {
    if (this.done) return;
    this.fail(reason, this.clock.nowNs());
    this.owner.cancel(this);
  }

  /** The whole-request deadline passed: fails now, queued, on a connection or streaming (the connection is closed). */
  expire(): void {
    this.cancel(deadlineError(this.deadlineMs));
  }

  /** The final head arrived at `atNs`. */
  head(status: number, headers: ResponseHeaders, atNs: number): void {
    this.status = status;
    this.headers = headers;
    this.headersNs = atNs;
    if (this.body !== undefined) this.streaming = this.body.head(status, headers, atNs);
  }

  /** Body bytes `buf[start, end)`, valid only during the call. */
  bodyBytes(buf: Buffer, start: number, end: number, last: boolean, atNs: number): void {
    if (this.streaming) {
      if (end > start) (this.body as BodyStream).chunk(buf.subarray(start, end), atNs);
      return;
    }
    if (this.piecesLength + (end - start) > this.owner.maxBodyBytes) {
      this.cancel(bodyTooLarge(this.owner.maxBodyBytes));
      return;
    }
    if (last && this.pieces === undefined) {
      // The whole body in one read: decoded in place (or recognised as the last one), no copy.
      this.text = this.owner.texts.decode(this.req.reuseKey, buf, start, end);
      return;
    }
    if (end === start) return;
    (this.pieces ??= []).push(Buffer.from(buf.subarray(start, end)));
    this.piecesLength += end - start;
  }

  /** The answer is complete; its last byte arrived at `atNs`. */
  complete(atNs: number): void {
    let text = this.text;
    if (!this.streaming && text === undefined) {
      const pieces = this.pieces;
      if (pieces === undefined) text = '';
      else {
        const buf = pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces, this.piecesLength);
        text = decodeBody(buf, 0, buf.length);
      }
    }
    this.settle(atNs, text, undefined);
  }

  /** The exchange failed with `err` at `atNs` (whatever arrived before is kept). */
  fail(err: unknown, atNs: number): void {
    this.settle(atNs, undefined, err);
  }

  private settle(endNs: number, text: string | undefined, error: unknown): void {
    if (this.done) return;
    this.done = true;
    this.pieces = undefined;
    if (this.signal !== undefined) unwatchAbort(this.signal, this);
    if (this.deadlineSlot >= 0) this.owner.settled(this);
    this.sink({ status: this.status, headers: this.headers, headersNs: this.headersNs, endNs, text, error, sentNs: this.sentNs, connectNs: this.connectNs, tlsNs: 0 });
  }
}
