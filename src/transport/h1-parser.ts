/**
 * An HTTP/1.1 response parser for the client's own connections (`h1-connection.ts`). Pure:
 * bytes in, events out, no I/O and no clock. It reads heads in place from the socket's read
 * buffer, keeps only the headers the client interprets (`kept-headers.ts`) plus the framing
 * ones, and frames bodies by `Content-Length`, `chunked` coding or connection close (RFC 9112 §6).
 *
 * It is deliberately strict where leniency would hide a broken service (a bad status line, a
 * folded header, conflicting lengths, a malformed chunk size are errors) and it accepts what
 * RFC 9112 requires a client to accept (1xx heads before the real one, chunk extensions,
 * trailers, bodies delimited by close).
 */
import { CR, emptyFraming, HT, KeptValues, LF, parseHead, SP } from './h1-head.js';
import type { ResponseHeaders } from './transport.js';

/** What the head of one response says that the connection needs. */
export interface H1Head {
  readonly status: number;
  /** The kept headers (lower-cased names; repeated headers as arrays of values). */
  readonly headers: ResponseHeaders;
  /** False when the connection cannot carry another request after this response. */
  readonly keepAlive: boolean;
  /** `Keep-Alive: timeout=N` of the server, in ms; undefined when not sent. */
  readonly keepAliveHintMs: number | undefined;
}

/** Receives the parser's events, synchronously, from inside `execute`. */
export interface H1Events {
  /** The final (non-1xx) head. */
  onHead(head: H1Head): void;
  /**
   * Body bytes `buf[start, end)`. The bytes are only valid during the call (the buffer is the
   * socket's, reused for the next read). `last` is true when they complete a body whose length
   * was known, so a caller can decode them in place without a copy.
   */
  onBody(buf: Buffer, start: number, end: number, last: boolean): void;
  /** The response is complete; `reusable` says whether the connection may carry another. */
  onComplete(reusable: boolean): void;
}

/** Default cap on a response head, as undici's `maxHeaderSize`. */
export const MAX_HEAD_BYTES = 16 * 1024;

const S_IDLE = 0;
const S_HEAD = 1;
const S_LENGTH = 2;
const S_CLOSE = 3;
const S_CHUNK_SIZE = 4;
const S_CHUNK_EXT = 5;
const S_CHUNK_SIZE_LF = 6;
const S_CHUNK_DATA = 7;
const S_CHUNK_DATA_CR = 8;
const S_CHUNK_DATA_LF = 9;
const S_TRAILER_LINE_START = 10;
const S_TRAILER_LINE = 11;
const S_DONE_LF = 12;

const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');
const HTTP_1_PREFIX = Buffer.from('HTTP/1.', 'latin1');
/** `HTTP/1.x NNN`: enough of a status line to judge it. */
const STATUS_PREFIX = 12;

/**
 * A head that ends in a bare LF (`\n\n` or `\r\n\n`) would never show the CRLF CRLF this
 * parser waits for. RFC 9112 §2.2 lets a recipient accept bare LF; this client rejects it at
 * once instead (docs/http-strictness.md): a service that sends it is broken, and waiting would
 * turn a clear protocol error into a headers timeout.
 */
function bareLfHeadEnd(buf: Buffer, start: number, end: number): boolean {
  for (let k = buf.indexOf(LF, start); k !== -1 && k + 1 < end; k = buf.indexOf(LF, k + 1)) {
    if (buf[k + 1] === LF) return true;
  }
  return false;
}
const BARE_LF = 'not HTTP/1.1: a head line ended with a bare LF instead of CRLF';

/** The first bytes of what arrived, quoted, non-printable ones as \xNN (for messages). */
export function printable(buf: Buffer, start: number, end: number, max = 40): string {
  let out = '';
  for (let i = start; i < Math.min(end, start + max); i++) {
    const b = buf[i] as number;
    out += b === 0x0d ? '\\r' : b === 0x0a ? '\\n' : b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`;
  }
  return `"${out}${end - start > max ? '…' : ''}"`;
}
// 2^53 guards Number precision; no real chunk comes near it.
const MAX_CHUNK = Number.MAX_SAFE_INTEGER / 16;

function hexValue(b: number): number {
  if (b >= 48 && b <= 57) return b - 48;
  const l = b | 0x20;
  return l >= 97 && l <= 102 ? l - 87 : -1;
}

/** Parses the responses of one connection, one request at a time (no pipelining). */
export class H1ResponseParser {
  private state = S_IDLE;
  private noBody = false;
  private keepAlive = true;
  private remaining = 0;
  private headBuf: Buffer | undefined = undefined;
  private headLen = 0;
  private readonly values = new KeptValues();

  constructor(
    private readonly events: H1Events,
    private readonly maxHeadBytes: number = MAX_HEAD_BYTES,
  ) {}

  /** True while a response is expected or being read. */
  get busy(): boolean {
    return this.state !== S_IDLE;
  }

  /** True while a body delimited by the connection's close is being read. */
  get readingUntilClose(): boolean {
    return this.state === S_CLOSE;
  }

  /** Arms the parser for the response to a request just sent; `noBody` for a HEAD request. */
  expect(noBody: boolean): void {
    this.state = S_HEAD;
    this.noBody = noBody;
    this.headLen = 0;
  }

  /** Feeds `buf[start, end)`. Returns an error message when the bytes are not a valid response. */
  execute(buf: Buffer, start: number, end: number): string | undefined {
    let pos = start;
    while (pos < end) {
      const state = this.state;
      if (state === S_IDLE) {
        // Empty lines between responses are tolerated (RFC 9112 §2.2); anything else is not.
        const b = buf[pos] as number;
        if (b === CR || b === LF) {
          pos++;
          continue;
        }
        return `data arrived with no request outstanding: ${printable(buf, pos, end)}`;
      }
      if (state === S_HEAD) {
        if (this.headLen === 0) {
          // RFC 9112 §2.2: a client should ignore at least one empty line before a status line.
          const b = buf[pos] as number;
          if (b === CR || b === LF) {
            pos++;
            continue;
          }
        }
        const bad = this.checkStatusPrefix(buf, pos, end);
        if (bad !== undefined) return bad;
        const r = this.head(buf, pos, end);
        if (typeof r === 'string') return r;
        pos = r;
      } else if (state === S_LENGTH) {
        const take = Math.min(this.remaining, end - pos);
        this.remaining -= take;
        const last = this.remaining === 0;
        this.events.onBody(buf, pos, pos + take, last);
        pos += take;
        if (last) this.complete(this.keepAlive);
      } else if (state === S_CLOSE) {
        this.events.onBody(buf, pos, end, false);
        pos = end;
      } else if (state === S_CHUNK_DATA) {
        const take = Math.min(this.remaining, end - pos);
        this.remaining -= take;
        this.events.onBody(buf, pos, pos + take, false);
        pos += take;
        if (this.remaining === 0) this.state = S_CHUNK_DATA_CR;
      } else {
        const problem = this.chunkFraming(buf[pos] as number);
        if (problem !== undefined) return problem;
        pos++;
      }
    }
    return undefined;
  }

  /**
   * The connection ended. Completes a body delimited by close; returns 'closed' when a
   * response was still expected or incomplete, undefined otherwise.
   */
  eof(): 'closed' | undefined {
    if (this.state === S_IDLE) return undefined;
    if (this.state === S_CLOSE) {
      this.complete(false);
      return undefined;
    }
    return 'closed';
  }

  private complete(reusable: boolean): void {
    this.state = S_IDLE;
    this.events.onComplete(reusable);
  }

  /** Consumes head bytes from `pos`; returns the position after the head, or an error. */
  private head(buf: Buffer, pos: number, end: number): number | string {
    let src = buf;
    let hs = pos;
    let he: number;
    let next: number;
    if (this.headLen === 0) {
      const at = buf.indexOf(HEAD_END, pos);
      if (at === -1 || at + 4 > end) {
        if (bareLfHeadEnd(buf, pos, end)) return BARE_LF;
        return this.stashHead(buf, pos, end);
      }
      he = at;
      next = at + 4;
    } else {
      // The head began in an earlier read: append what fits, then look for its end across the seam.
      const from = Math.max(0, this.headLen - 3);
      const before = this.headLen;
      const hb = this.headBuf as Buffer;
      const copied = buf.copy(hb, before, pos, Math.min(end, pos + hb.length - before));
      this.headLen += copied;
      const at = hb.indexOf(HEAD_END, from);
      if (at === -1 || at + 4 > this.headLen) {
        if (bareLfHeadEnd(hb, from, this.headLen)) return BARE_LF;
        return copied < end - pos ? 'response head too large' : end;
      }
      src = hb;
      hs = 0;
      he = at;
      next = pos + (at + 4 - before);
      this.headLen = 0;
    }
    if (he - hs > this.maxHeadBytes) return 'response head too large';
    const f = emptyFraming();
    const h = parseHead(src, hs, he, f, this.values);
    if (typeof h === 'string') return h;
    if (h.status < 200) {
      // 101 would switch protocols, which the client never asks for; other 1xx precede the answer.
      if (h.status === 101) return 'unexpected protocol switch (101)';
      this.state = S_HEAD;
      return next;
    }
    this.keepAlive = !f.connectionClose && (h.minor === 1 || f.connectionKeepAlive);
    const bodyless = this.noBody || h.status === 204 || h.status === 304;
    const delimited = bodyless || f.chunked || (f.contentLength !== -1 && !f.transferEncoding);
    // A Transfer-Encoding that does not end in chunked is read to the close (RFC 9112 §6.3).
    if (!delimited) this.keepAlive = false;
    // With both, Transfer-Encoding wins, and the connection must not be reused (§6.1).
    if (f.transferEncoding && f.contentLength !== -1) this.keepAlive = false;
    this.events.onHead({ status: h.status, headers: h.headers, keepAlive: this.keepAlive, keepAliveHintMs: f.keepAliveHintMs });
    if (bodyless) {
      this.complete(this.keepAlive);
    } else if (f.chunked) {
      this.state = S_CHUNK_SIZE;
      this.remaining = 0;
      this.sawDigit = false;
    } else if (f.contentLength !== -1 && !f.transferEncoding) {
      this.remaining = f.contentLength;
      if (this.remaining === 0) this.complete(this.keepAlive);
      else this.state = S_LENGTH;
    } else {
      this.state = S_CLOSE;
    }
    return next;
  }

  /**
   * Judges a status line from its first bytes, so a target that speaks something else (an SSH
   * banner, an HTML page, HTTP/2 frames, a status outside 100–599) fails at once, not at the
   * headers timeout.
   */
  private checkStatusPrefix(buf: Buffer, pos: number, end: number): string | undefined {
    const have = this.headLen;
    if (have >= STATUS_PREFIX) return undefined;
    const at = (i: number): number | undefined => (i < have ? (this.headBuf as Buffer)[i] : i - have + pos < end ? buf[i - have + pos] : undefined);
    for (let i = 0; i < STATUS_PREFIX; i++) {
      const b = at(i);
      if (b === undefined) return undefined;
      const ok = i < 7 ? b === HTTP_1_PREFIX[i] : i === 7 ? b === 48 || b === 49 : i === 8 ? b === SP : b >= 48 && b <= 57;
      if (!ok) return `not HTTP/1.x: the target sent ${printable(this.headBuf !== undefined && have > 0 ? Buffer.concat([this.headBuf.subarray(0, have), buf.subarray(pos, end)]) : buf, have > 0 ? 0 : pos, have > 0 ? have + end - pos : end)}`;
    }
    const status = ((at(9) as number) - 48) * 100 + ((at(10) as number) - 48) * 10 + ((at(11) as number) - 48);
    if (status < 100 || status > 599) return `not HTTP/1.x: status ${String(status).padStart(3, '0')} is outside 100–599`;
    return undefined;
  }

  /** Appends head bytes to the stash; an error once the head outgrows the cap. */
  private stashHead(buf: Buffer, pos: number, end: number): number | string {
    const n = end - pos;
    if (this.headLen + n > this.maxHeadBytes + 4) return 'response head too large';
    this.headBuf ??= Buffer.allocUnsafe(this.maxHeadBytes + 4);
    buf.copy(this.headBuf, this.headLen, pos, end);
    this.headLen += n;
    return end;
  }

  private sawDigit = false;

  /** One byte of chunked framing (size line, the CRLF after data, trailers). */
  private chunkFraming(b: number): string | undefined {
    switch (this.state) {
      case S_CHUNK_SIZE: {
        const v = hexValue(b);
        if (v !== -1) {
          if (this.remaining > MAX_CHUNK) return 'chunk size too large';
          this.remaining = this.remaining * 16 + v;
          this.sawDigit = true;
          return undefined;
        }
        if (!this.sawDigit) return 'malformed chunk size';
        if (b === CR) this.state = S_CHUNK_SIZE_LF;
        else if (b === 59 /* ; */ || b === SP || b === HT) this.state = S_CHUNK_EXT;
        else return 'malformed chunk size';
        return undefined;
      }
      case S_CHUNK_EXT:
        if (b === CR) this.state = S_CHUNK_SIZE_LF;
        else if (b === LF) return 'malformed chunk extension';
        return undefined;
      case S_CHUNK_SIZE_LF:
        if (b !== LF) return 'malformed chunk size line';
        this.sawDigit = false;
        this.state = this.remaining === 0 ? S_TRAILER_LINE_START : S_CHUNK_DATA;
        return undefined;
      case S_CHUNK_DATA_CR:
        if (b !== CR) return 'chunk data longer than its size';
        this.state = S_CHUNK_DATA_LF;
        return undefined;
      case S_CHUNK_DATA_LF:
        if (b !== LF) return 'chunk data longer than its size';
        this.state = S_CHUNK_SIZE;
        return undefined;
      case S_TRAILER_LINE_START:
        this.state = b === CR ? S_DONE_LF : S_TRAILER_LINE;
        return undefined;
      case S_TRAILER_LINE:
        if (b === LF) this.state = S_TRAILER_LINE_START;
        return undefined;
      case S_DONE_LF:
        if (b !== LF) return 'malformed end of chunked body';
        this.complete(this.keepAlive);
        return undefined;
      default:
        return 'parser in an impossible state';
    }
  }
}
