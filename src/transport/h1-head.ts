/**
 * The head of an HTTP/1.x response, read in place from the bytes it arrived in: the status,
 * the headers the client interprets (`kept-headers.ts`) and the framing headers the parser
 * needs (RFC 9112 §6). Pure; strict where leniency would hide a broken service (a bad status
 * line, a folded header, conflicting lengths are errors).
 */
import { keptNameAt } from './kept-headers.js';
import type { ResponseHeaders } from './transport.js';

/** Bytes of HTTP/1 syntax, shared with the body parser. */
export const CR = 13;
export const LF = 10;
export const SP = 32;
export const HT = 9;
const COLON = 58;
const HTTP_1 = Buffer.from('HTTP/1.', 'latin1');

function isDigit(b: number): boolean {
  return b >= 48 && b <= 57;
}

/** Framing fields gathered while reading a head. */
export interface Framing {
  contentLength: number;
  chunked: boolean;
  transferEncoding: boolean;
  connectionClose: boolean;
  connectionKeepAlive: boolean;
  keepAliveHintMs: number | undefined;
}

/** Lower-cased `buf[start, end)` equals `word` (lower-case letters and '-'). */
function equalsLower(buf: Buffer, start: number, end: number, word: string): boolean {
  if (end - start !== word.length) return false;
  for (let i = 0; i < word.length; i++) {
    const b = buf[start + i] as number;
    const w = word.charCodeAt(i);
    if (b !== w && ((b | 0x20) !== w || w < 97)) return false;
  }
  return true;
}

/** The comma-separated tokens of a header value, lower-cased. */
function tokens(buf: Buffer, start: number, end: number): string[] {
  return buf.toString('latin1', start, end).toLowerCase().split(',').map((t) => t.trim());
}

/** Reads a framing header into `f`; returns an error message for a bad one. */
function framingHeader(f: Framing, buf: Buffer, ns: number, ne: number, vs: number, ve: number): string | undefined {
  const len = ne - ns;
  if (len === 14 && equalsLower(buf, ns, ne, 'content-length')) {
    if (vs === ve) return 'empty Content-Length';
    let n = 0;
    for (let i = vs; i < ve; i++) {
      const b = buf[i] as number;
      if (!isDigit(b)) return 'Content-Length is not a number';
      n = n * 10 + (b - 48);
    }
    if (!Number.isSafeInteger(n)) return 'Content-Length too large';
    if (f.contentLength !== -1 && f.contentLength !== n) return 'conflicting Content-Length headers';
    f.contentLength = n;
  } else if (len === 17 && equalsLower(buf, ns, ne, 'transfer-encoding')) {
    f.transferEncoding = true;
    const t = tokens(buf, vs, ve);
    f.chunked = t[t.length - 1] === 'chunked';
  } else if (len === 10 && equalsLower(buf, ns, ne, 'connection')) {
    // The two values every server sends, without building strings.
    if (equalsLower(buf, vs, ve, 'keep-alive')) f.connectionKeepAlive = true;
    else if (equalsLower(buf, vs, ve, 'close')) f.connectionClose = true;
    else
      for (const t of tokens(buf, vs, ve)) {
        if (t === 'close') f.connectionClose = true;
        else if (t === 'keep-alive') f.connectionKeepAlive = true;
      }
  } else if (len === 10 && equalsLower(buf, ns, ne, 'keep-alive')) {
    const m = /(?:^|[\s,])timeout\s*=\s*(\d+)/i.exec(buf.toString('latin1', vs, ve));
    if (m !== null) f.keepAliveHintMs = Number(m[1]) * 1000;
  }
  return undefined;
}

/** Kept values longer than this are not remembered (a copy per answer would cost what it saves). */
const MAX_REMEMBERED_VALUE = 256;

/**
 * The last value of each kept header one connection read, handed back as the same string when
 * its bytes repeat: most headers a service sends (content type, rate-limit limit and reset) are
 * the same on every answer, and comparing a few bytes costs less than a new string each time.
 */
export class KeptValues {
  private readonly last = new Map<string, { bytes: Buffer; length: number; text: string }>();

  /** The Latin-1 text of `buf[vs, ve)`, the value of header `name`. */
  text(name: string, buf: Buffer, vs: number, ve: number): string {
    const n = ve - vs;
    const e = this.last.get(name);
    if (e !== undefined && e.length === n) {
      let i = 0;
      while (i < n && e.bytes[i] === buf[vs + i]) i++;
      if (i === n) return e.text;
    }
    const text = buf.toString('latin1', vs, ve);
    if (n > MAX_REMEMBERED_VALUE) return text;
    if (e === undefined) this.last.set(name, { bytes: Buffer.from(buf.subarray(vs, ve)), length: n, text });
    else {
      if (e.bytes.length < n) e.bytes = Buffer.allocUnsafe(MAX_REMEMBERED_VALUE);
      buf.copy(e.bytes, 0, vs, ve);
      e.length = n;
      e.text = text;
    }
    return text;
  }
}

/** True when `buf[start, start + 7)` reads `HTTP/1.` (a loop: a native compare costs more for seven bytes). */
function httpOnePrefix(buf: Buffer, start: number): boolean {
  for (let i = 0; i < 7; i++) if (buf[start + i] !== HTTP_1[i]) return false;
  return true;
}

/**
 * The parsed head, or an error message. `end` is the index of the blank line's CRLF pair. Lines
 * are found with `indexOf` (native `memchr`; a byte loop over the same few hundred bytes took a
 * quarter longer per head and thousands more instructions); only the kept headers' values become
 * strings, through `values` when given.
 */
export function parseHead(buf: Buffer, start: number, end: number, f: Framing, values?: KeptValues): { status: number; minor: number; headers: ResponseHeaders } | string {
  if (end - start < 12 || !httpOnePrefix(buf, start)) return 'not an HTTP/1.x status line';
  const minor = (buf[start + 7] as number) - 48;
  const d0 = buf[start + 9] as number;
  const d1 = buf[start + 10] as number;
  const d2 = buf[start + 11] as number;
  if ((minor !== 0 && minor !== 1) || buf[start + 8] !== SP || !isDigit(d0) || !isDigit(d1) || !isDigit(d2)) {
    return 'malformed status line';
  }
  const after = buf[start + 12];
  if (end - start > 12 && after !== SP && after !== CR) return 'malformed status line';
  const status = (d0 - 48) * 100 + (d1 - 48) * 10 + (d2 - 48);
  const headers: Record<string, string | string[]> = {};
  let pos = buf.indexOf(LF, start);
  pos = pos === -1 || pos > end ? end + 2 : pos + 1;
  while (pos < end) {
    let lineEnd = buf.indexOf(LF, pos);
    if (lineEnd === -1 || lineEnd > end) lineEnd = end + 1;
    const le = buf[lineEnd - 1] === CR ? lineEnd - 1 : lineEnd;
    const first = buf[pos] as number;
    if (first === SP || first === HT) return 'folded header line';
    let colon = pos;
    while (colon < le && buf[colon] !== COLON) colon++;
    if (colon === le || colon === pos) return 'malformed header line';
    const ne = colon;
    if (buf[ne - 1] === SP || buf[ne - 1] === HT) return 'whitespace before a header colon';
    let vs = colon + 1;
    let ve = le;
    while (vs < ve && (buf[vs] === SP || buf[vs] === HT)) vs++;
    while (ve > vs && (buf[ve - 1] === SP || buf[ve - 1] === HT)) ve--;
    const problem = framingHeader(f, buf, pos, ne, vs, ve);
    if (problem !== undefined) return problem;
    const name = keptNameAt(buf, pos, ne);
    if (name !== undefined) {
      const value = values === undefined ? buf.toString('latin1', vs, ve) : values.text(name, buf, vs, ve);
      const prev = headers[name];
      if (prev === undefined) headers[name] = value;
      else if (typeof prev === 'string') headers[name] = [prev, value];
      else prev.push(value);
    }
    pos = lineEnd + 1;
  }
  return { status, minor, headers };
}


/** Framing fields before any header is read. */
export function emptyFraming(): Framing {
  return { contentLength: -1, chunked: false, transferEncoding: false, connectionClose: false, connectionKeepAlive: false, keepAliveHintMs: undefined };
}
