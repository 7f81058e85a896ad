/**
 * One HTTP(S) request on a fresh connection, timed at the socket: DNS lookup, TCP connect,
 * TLS handshake, response head, end of body. undici hides these events, so probes use
 * node:http/https directly. Each request opens its own connection (no agent, `Connection:
 * close`), because a probe wants to see the cost a new client pays, not a warm pool.
 *
 * Never rejects: a failure resolves with its classified `errorCode` and the timings seen so far.
 */
import { lookup as dnsLookup } from 'node:dns';
import { request as httpRequest, type IncomingHttpHeaders, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { classifyTransportError } from '../api/index.js';
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
  /** Called with each body chunk as it arrives, stamped before any parsing. */
  readonly onChunk?: (chunk: Buffer, atNs: number) => void;
  /** Body bytes kept for `body` (default 1 MiB); later bytes are counted, not kept. */
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
  readonly headers: IncomingHttpHeaders | undefined;
  /** The body as text (up to `maxBodyBytes`). */
  readonly body: string;
  /** Undefined when the exchange completed (whatever the status). */
  readonly errorCode: TransportErrorCode | undefined;
  readonly instants: RequestInstants;
  readonly tls: TlsDetails | undefined;
}

const DEFAULT_MAX_BODY = 1 << 20;

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

/** Sends one request on a new connection and times it. */
export function timedRequest(o: TimedRequestOptions): Promise<TimedResponse> {
  const { clock } = o;
  const startNs = clock.nowNs();
  const url = new URL(o.url);
  const https = url.protocol === 'https:';
  const maxBody = o.maxBodyBytes ?? DEFAULT_MAX_BODY;
  let lookupNs: number | undefined;
  let connectNs: number | undefined;
  let secureNs: number | undefined;
  let headersNs: number | undefined;
  let status = 0;
  let headers: IncomingHttpHeaders | undefined;
  let tls: TlsDetails | undefined;
  const chunks: Buffer[] = [];
  let kept = 0;
  let timer: TimerHandle | undefined;
  let timeoutErr: TransportErrorCode | undefined;

  return new Promise<TimedResponse>((resolve) => {
    let settled = false;
    const finish = (errorCode: TransportErrorCode | undefined): void => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clock.clearTimer(timer);
      const instants = { startNs, lookupNs, connectNs, secureNs, headersNs, endNs: clock.nowNs() };
      resolve({ status, headers, body: Buffer.concat(chunks).toString('utf8'), errorCode, instants, tls });
    };

    // The lookup is timed by wrapping the resolver: the socket's 'lookup' event can fire before
    // the request hands the socket over, when a resolver answers synchronously.
    const resolver = (o.lookup ?? dnsLookup) as LookupFunction;
    const lookup: LookupFunction = (hostname, opts, cb) =>
      resolver(hostname, opts, (...args: Parameters<typeof cb>) => {
        lookupNs ??= clock.nowNs();
        cb(...args);
      });
    const reqHeaders: Record<string, string> = { ...o.headers, connection: 'close' };
    if (o.body !== undefined) reqHeaders['content-length'] = String(Buffer.byteLength(o.body));
    const options: RequestOptions & { ca?: string; rejectUnauthorized?: boolean } = {
      protocol: url.protocol,
      // `URL` keeps the brackets of an IPv6 literal; the socket layer wants the bare address.
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: o.method,
      headers: reqHeaders,
      agent: false,
      lookup,
      ...(https && o.tls?.ca !== undefined ? { ca: o.tls.ca } : {}),
      ...(https && o.tls?.rejectUnauthorized === false ? { rejectUnauthorized: false } : {}),
    };

    let req: ReturnType<typeof httpRequest>;
    try {
      req = (https ? httpsRequest : httpRequest)(options, (res) => {
        headersNs = clock.nowNs();
        status = res.statusCode ?? 0;
        headers = res.headers;
        res.on('data', (chunk: Buffer) => {
          const at = clock.nowNs();
          o.onChunk?.(chunk, at);
          if (kept < maxBody) {
            const part = kept + chunk.length <= maxBody ? chunk : chunk.subarray(0, maxBody - kept);
            chunks.push(part);
            kept += part.length;
          }
        });
        res.on('end', () => finish(undefined));
        res.on('error', (err) => finish(timeoutErr ?? classifyTransportError(err, undefined)));
        // A connection closed before the body ended emits 'aborted' on older Nodes instead of 'error'.
        res.on('close', () => finish(timeoutErr ?? (res.complete ? undefined : 'CONNECTION_RESET')));
      });
    } catch (err) {
      // Bad options (e.g. an invalid header value) fail here, synchronously.
      finish(classifyTransportError(err, undefined));
      return;
    }
    req.on('socket', (socket: Socket) => {
      socket.once('connect', () => (connectNs = clock.nowNs()));
      if (https) {
        socket.once('secureConnect', () => {
          secureNs = clock.nowNs();
          const s = socket as TLSSocket;
          const cert = s.getPeerCertificate();
          tls = { protocol: s.getProtocol(), validTo: cert?.valid_to, authorized: s.authorized };
        });
      }
    });
    req.on('error', (err) => finish(timeoutErr ?? classifyTransportError(err, undefined)));
    timer = clock.setTimer(startNs + o.timeoutMs * NS_PER_MS, () => {
      timer = undefined;
      timeoutErr = timeoutCode(connectNs !== undefined, headersNs !== undefined);
      req.destroy();
      finish(timeoutErr);
    });
    req.end(o.body);
  });
}
