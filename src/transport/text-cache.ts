/**
 * The decoded text of the last body read under each key (an operation), returned again,
 * the same string, when the next body has the same bytes. A repeated body then costs one
 * byte comparison instead of a decode into a new 4 KB string per response (which was most
 * of the client's garbage), and the body memo above it (`body-memo.ts`) recognises the
 * string by identity.
 */
import { decodeBody } from './transport.js';

/** Bodies longer than this are decoded every time: they are rarely repeated, and the copy would cost. */
const MAX_CACHED_BYTES = 64 * 1024;

interface Entry {
  bytes: Buffer;
  length: number;
  text: string;
}

/** Last body per key. */
export class TextCache {
  private readonly entries = new Map<string, Entry>();

  /** The text of `buf[start, end)` (UTF-8, BOM dropped), reusing the last one for `key` when the bytes match. */
  decode(key: string | undefined, buf: Buffer, start: number, end: number): string {
    const n = end - start;
    if (key === undefined || n > MAX_CACHED_BYTES) return decodeBody(buf, start, end);
    const e = this.entries.get(key);
    if (e !== undefined && e.length === n && buf.compare(e.bytes, 0, n, start, end) === 0) return e.text;
    const text = decodeBody(buf, start, end);
    if (e === undefined || e.bytes.length < n) {
      const bytes = Buffer.allocUnsafe(Math.max(n, 256));
      buf.copy(bytes, 0, start, end);
      this.entries.set(key, { bytes, length: n, text });
    } else {
      buf.copy(e.bytes, 0, start, end);
      e.length = n;
      e.text = text;
    }
    return text;
  }
}
