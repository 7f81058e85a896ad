/**
 * The response headers the client interprets. Only these are kept, so the dozens of others a
 * real service sends cost a length check each and no string allocation; both transports
 * (undici's raw header list, and the client's own HTTP/1.1 parser) pick them out here.
 */
import type { ResponseHeaders } from './transport.js';

// `server` and `via` say who answered a 429: the service, or a gateway in front of it
// (collect/rate-limit-origin.ts); a repeated value costs no new string (KeptValues).
const KEPT = ['content-type', 'retry-after', 'server', 'via', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-request-id'] as const;

/** A header name the client keeps. */
export type KeptHeader = (typeof KEPT)[number];

const KEPT_CODES = KEPT.map((name) => Array.from(name, (c) => c.charCodeAt(0)));
const KEPT_LENGTHS = new Set(KEPT.map((name) => name.length));

/** The lower-cased kept name spelled by `buf[start, end)`, or undefined (compares bytes, case-insensitively). */
export function keptNameAt(buf: Uint8Array, start: number, end: number): KeptHeader | undefined {
  const n = end - start;
  if (!KEPT_LENGTHS.has(n)) return undefined;
  outer: for (let k = 0; k < KEPT_CODES.length; k++) {
    const want = KEPT_CODES[k] as number[];
    if (want.length !== n) continue;
    for (let i = 0; i < n; i++) {
      const b = buf[start + i] as number;
      const w = want[i] as number;
      // Kept names hold only a–z and '-'; OR-ing 0x20 lower-cases a letter (and only a letter may match that way).
      if (b !== w && ((b | 0x20) !== w || w < 97)) continue outer;
    }
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
    const nameBuf = raw[i] as Buffer;
    const name = keptNameAt(nameBuf, 0, nameBuf.length);
    if (name === undefined) continue;
    const value = (raw[i + 1] as Buffer).toString('latin1');
    const prev = out[name];
    if (prev === undefined) out[name] = value;
    else if (typeof prev === 'string') out[name] = [prev, value];
    else prev.push(value);
  }
  return out;
}
