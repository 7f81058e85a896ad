/**
 * The bytes of a request on the client's own HTTP/1.1 connections, encoded once per distinct
 * request and written as they are. A load generator sends the same few requests over and over
 * (the same path, headers and body); serialising each into a new string and having the socket
 * encode it again on every write was a seventh of the client's CPU per request (`writeLatin1String`
 * in a profile, a quarter with identical answers). A Buffer is handed to the kernel as it is.
 */
import type { ExchangeRequest, RequestHeaders } from './transport.js';

const TOKEN_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_VALUE_RE = /[\r\n\0]|[^\u0000-\u00ff]/;
// The transport frames requests itself; a caller's copy of these would contradict it.
const FRAMING = new Set(['host', 'content-length', 'transfer-encoding']);

/** Distinct method, path and body kept per header set; past it the set's requests are encoded afresh (ids in paths make them unbounded). */
const MAX_KEPT_PER_HEADERS = 512;

/** The last bytes of one method and path under one header set, and the body they carry. */
interface Encoded {
  readonly body: string | undefined;
  readonly bytes: Buffer;
}

/** A header set serialised once: its lines, or why it cannot be sent, and its requests' bytes. */
interface HeaderBlock {
  readonly lines: string;
  readonly problem: string | undefined;
  readonly requests: Map<string, Encoded>;
}

function serialiseHeaders(headers: RequestHeaders): HeaderBlock {
  let lines = '';
  const requests = new Map<string, Encoded>();
  for (const name of Object.keys(headers)) {
    const value = headers[name] as string;
    if (!TOKEN_RE.test(name)) return { lines: '', problem: `invalid header name ${JSON.stringify(name)}`, requests };
    if (BAD_VALUE_RE.test(value)) return { lines: '', problem: `invalid value of header ${name}`, requests };
    if (FRAMING.has(name.toLowerCase())) continue;
    lines += `${name}: ${value}\r\n`;
  }
  return { lines, problem: undefined, requests };
}

/** One origin's request encoder (its `Host` header is fixed). */
export class RequestEncoder {
  private readonly blocks = new WeakMap<RequestHeaders, HeaderBlock>();

  constructor(private readonly hostHeader: string) {}

  /**
   * The bytes of `req` (head in Latin-1, as header values are bytes; body in UTF-8), the same
   * Buffer for a request identical to one encoded before; or a string saying why it cannot be sent.
   */
  encode(req: ExchangeRequest): Buffer | string {
    let block = this.blocks.get(req.headers);
    if (block === undefined) {
      block = serialiseHeaders(req.headers);
      this.blocks.set(req.headers, block);
    }
    if (block.problem !== undefined) return block.problem;
    const key = `${req.method} ${req.path}`;
    const known = block.requests.get(key);
    if (known !== undefined && known.body === req.body) return known.bytes;
    const bytes = this.bytesOf(req, block.lines);
    if (block.requests.size >= MAX_KEPT_PER_HEADERS) block.requests.clear();
    block.requests.set(key, { body: req.body, bytes });
    return bytes;
  }

  private bytesOf(req: ExchangeRequest, lines: string): Buffer {
    const head = `${req.method} ${req.path} HTTP/1.1\r\nhost: ${this.hostHeader}\r\n${lines}`;
    const body = req.body;
    if (body === undefined) return Buffer.from(`${head}\r\n`, 'latin1');
    const bodyBytes = Buffer.byteLength(body, 'utf8');
    const full = `${head}content-length: ${bodyBytes}\r\n\r\n`;
    const headBytes = Buffer.byteLength(full, 'latin1');
    const out = Buffer.allocUnsafe(headBytes + bodyBytes);
    out.write(full, 0, 'latin1');
    out.write(body, headBytes, 'utf8');
    return out;
  }
}
