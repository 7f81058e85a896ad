/**
 * One HTTP(S) request on a fresh connection, timed at the socket: DNS lookup, TCP connect,
 * TLS handshake, response head, end of body. Each request opens its own connection
 * (`Connection: close`), because a probe wants to see the cost a new client pays, not a warm pool.
 *
 * The answer is read by the run's own HTTP/1.1 parser (`api/h1-parser.ts`) and bounded by the
 * run's body caps (`api/bounded-body.ts`), and failures are classified by the run's classifier
 * (`classifyTransportError`): a probe and a run judge the same bytes the same way (a
 * `Content-Length` beside chunked coding, a `101`, a 50 MB event line).
 *
 * Never rejects: a failure resolves with its classified `errorCode` and the timings seen so far.
 */
import { lookup as dnsLookup } from 'node:dns';
import { validateHeaderName, validateHeaderValue } from 'node:http';
import { connect as netConnect, isIP, type LookupFunction, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { ByteBudget, MAX_BODY_BYTES, MAX_STREAM_BYTES } from '../transport/bounded-body.js';
import { classifyTransportError, createCodedError } from '../transport/wire-errors.js';
import { H1ResponseParser } from '../transport/h1-parser.js';
import type { ResponseHeaders } from '../api/rate-limit-headers.js';
import { decodeBody } from '../transport/transport.js';
import { NS_PER_MS, type Clock, type TimerHandle } from '../core/clock.js';
import type { TransportErrorCode } from '../core/codes.js';
import type { PhasesMs } from './record.js';

/** TLS settings of HTTPS requests. */
export interface TlsSettings {
  /** Extra trusted CA certificates (PEM). */
  readonly ca?: string;
  /** False accepts any certificate (`--insecure`); the handshake is still timed and inspected. */
  readonly rejectUnauthorized?: boolean;
}

/** Options of `timedRequest`. */
export interface TimedRequestOptions {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly clock: Clock;
  /** The whole exchange must finish within this; then it fails with a timeout code. */
  readonly timeoutMs: number;
  readonly tls?: TlsSettings;
  /**
   * Called with each body chunk of a 2xx answer as it arrives, stamped before any parsing (the
   * body is then not kept); at most `MAX_STREAM_BYTES`, past which the exchange fails as
   * MALFORMED_BODY. The chunk is valid only during the call.
   */
  readonly onChunk?: (chunk: Buffer, atNs: number) => void;
  /** Largest kept body (default `MAX_BODY_BYTES`, as the run's); past it the exchange fails as MALFORMED_BODY. */
  readonly maxBodyBytes?: number;
  /** DNS resolver (tests resolve made-up names with it). */
  readonly lookup?: LookupFunction;
}

/** Monotonic instants of one exchange (ns); undefined when the event did not happen. */
export interface RequestInstants {
  readonly startNs: number;
  readonly lookupNs: number | undefined;
  readonly connectNs: number | undefined;
  readonly secureNs: number | undefined;
  readonly headersNs: number | undefined;
  readonly endNs: number;
}

/** The peer's TLS details, read right after the handshake. */
export interface TlsDetails {
  readonly protocol: string | null;
  /** `valid_to` of the peer certificate as sent (e.g. `Dec 22 10:30:58 2026 GMT`). */
  readonly validTo: string | undefined;
  readonly authorized: boolean;
}

/** The outcome of one exchange. */
export interface TimedResponse {
  /** HTTP status; 0 when no response arrived. */
  readonly status: number;
  /** The headers the client interprets (`api/kept-headers.ts`). */
  readonly headers: ResponseHeaders | undefined;
  /** The body as text: empty when it was streamed to `onChunk` or did not arrive whole. */
  readonly body: string;
  /** Undefined when the exchange completed (whatever the status). */
  readonly errorCode: TransportErrorCode | undefined;
  readonly instants: RequestInstants;
  readonly tls: TlsDetails | undefined;
}

function round3(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

function span(fromNs: number | undefined, toNs: number | undefined): number | null {
  return fromNs === undefined || toNs === undefined ? null : round3(Math.max(0, toNs - fromNs) / NS_PER_MS);
}

/**
 * Splits an exchange into consecutive phases that add up to `total`: dns (start → lookup),
 * connect (→ TCP connected), tls (→ handshake done), ttfb (connection ready → response head),
 * transfer (head → end of body).
 */
export function phasesOf(i: RequestInstants): PhasesMs {
  const afterDns = i.lookupNs ?? i.startNs;
  const ready = i.secureNs ?? i.connectNs;
  return {
    dns: span(i.startNs, i.lookupNs),
    connect: span(afterDns, i.connectNs),
    tls: span(i.connectNs, i.secureNs),
    ttfb: span(ready, i.headersNs),
    transfer: span(i.headersNs, i.headersNs === undefined ? undefined : i.endNs),
    total: round3(Math.max(0, i.endNs - i.startNs) / NS_PER_MS),
  };
}

function timeoutCode(connected: boolean, headers: boolean): TransportErrorCode {
  if (!connected) return 'CONNECT_TIMEOUT';
  return headers ? 'BODY_TIMEOUT' : 'HEADERS_TIMEOUT';
}

/** The request's bytes: the head (names and values checked as Node checks them) and the body. */
function requestBytes(o: TimedRequestOptions, url: URL): Buffer {
  const lines = [`${o.method} ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`];
  for (const [name, value] of Object.entries(o.headers)) {
    const lower = name.toLowerCase();
    if (lower === 'host' || lower === 'connection' || lower === 'content-length') continue;
    validateHeaderName(name);
    validateHeaderValue(name, value);
    lines.push(`${name}: ${value}`);
  }
  lines.push('connection: close');
  const body = o.body === undefined ? undefined : Buffer.from(o.body);
  if (body !== undefined) lines.push(`content-length: ${body.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return body === undefined ? head : Buffer.concat([head, body]);
}

/** Sends one request on a new connection and times it. */
export function timedRequest(o: TimedRequestOptions): Promise<TimedResponse> {
  const { clock } = o;
  const startNs = clock.nowNs();
  let lookupNs: number | undefined;
  let connectNs: number | undefined;
  let secureNs: number | undefined;
  let headersNs: number | undefined;
  let status = 0;
  let headers: ResponseHeaders | undefined;
  let tls: TlsDetails | undefined;
  let streaming = false;
  const kept = new ByteBudget(o.maxBodyBytes ?? MAX_BODY_BYTES);
  const streamed = new ByteBudget(MAX_STREAM_BYTES);
  const chunks: Buffer[] = [];
  let timer: TimerHandle | undefined;
  let socket: Socket | undefined;

  return new Promise<TimedResponse>((resolve) => {
    let settled = false;
    const finish = (errorCode: TransportErrorCode | undefined): void => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clock.clearTimer(timer);
      socket?.destroy();
      const instants = { startNs, lookupNs, connectNs, secureNs, headersNs, endNs: clock.nowNs() };
      const buf = errorCode !== undefined || chunks.length === 0 ? undefined : Buffer.concat(chunks, kept.bytes);
      resolve({ status, headers, body: buf === undefined ? '' : decodeBody(buf, 0, buf.length), errorCode, instants, tls });
    };
    const failWith = (err: unknown): void => finish(classifyTransportError(err, undefined));

    let url: URL;
    let wire: Buffer;
    try {
      url = new URL(o.url);
      wire = requestBytes(o, url);
    } catch (err) {
      // Bad options (e.g. an invalid header value) fail here, synchronously.
      failWith(err);
      return;
    }
    const https = url.protocol === 'https:';
    const parser = new H1ResponseParser({
      onHead(head) {
        headersNs = clock.nowNs();
        status = head.status;
        headers = head.headers;
        streaming = o.onChunk !== undefined && status >= 200 && status < 300;
      },
      onBody(buf, start, end) {
        if (settled || end <= start) return;
        const over = (streaming ? streamed : kept).take(end - start);
        if (over !== undefined) {
          failWith(over);
          return;
        }
        if (streaming) (o.onChunk as (chunk: Buffer, atNs: number) => void)(buf.subarray(start, end), clock.nowNs());
        else chunks.push(Buffer.from(buf.subarray(start, end)));
      },
      onComplete() {
        finish(undefined);
      },
    });
    parser.expect(false);

    // The lookup is timed by wrapping the resolver: it can answer before the socket exists.
    const resolver = (o.lookup ?? dnsLookup) as LookupFunction;
    const lookup: LookupFunction = (hostname, opts, cb) =>
      resolver(hostname, opts, (...args: Parameters<typeof cb>) => {
        lookupNs ??= clock.nowNs();
        cb(...args);
      });
    // `URL` keeps the brackets of an IPv6 literal; the socket layer wants the bare address.
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const port = url.port === '' ? (https ? 443 : 80) : Number(url.port);
    try {
      socket = https
        ? tlsConnect({
            host,
            port,
            lookup,
            ...(isIP(host) === 0 ? { servername: host } : {}),
            ...(o.tls?.ca !== undefined ? { ca: o.tls.ca } : {}),
            ...(o.tls?.rejectUnauthorized === false ? { rejectUnauthorized: false } : {}),
          })
        : netConnect({ host, port, lookup });
    } catch (err) {
      failWith(err);
      return;
    }
    const s = socket;
    s.setNoDelay(true);
    s.once('connect', () => {
      connectNs = clock.nowNs();
      if (!https) s.write(wire);
    });
    if (https) {
      s.once('secureConnect', () => {
        secureNs = clock.nowNs();
        const t = s as TLSSocket;
        const cert = t.getPeerCertificate();
        tls = { protocol: t.getProtocol(), validTo: cert?.valid_to, authorized: t.authorized };
        t.write(wire);
      });
    }
    s.on('data', (buf: Buffer) => {
      if (settled) return;
      const problem = parser.execute(buf, 0, buf.length);
      if (problem !== undefined && !settled) failWith(createCodedError('FG_H1_PARSE', `bad response: ${problem}`));
    });
    s.on('end', () => {
      if (settled) return;
      // A body delimited by the close completes here; anything else was cut.
      if (parser.eof() === 'closed') failWith(createCodedError('FG_H1_CLOSED', 'other side closed'));
    });
    s.on('error', failWith);
    s.on('close', () => finish('CONNECTION_RESET'));
    timer = clock.setTimer(startNs + o.timeoutMs * NS_PER_MS, () => {
      timer = undefined;
      finish(timeoutCode(connectNs !== undefined, headersNs !== undefined));
    });
  });
}
