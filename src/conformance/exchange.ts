/**
 * Raw exchanges for the conformance battery. The typed client hides what the battery is
 * about (content types, headers, the exact status of a request the client would not send),
 * so the battery sends its own requests, sequentially, and keeps every answer as data.
 *
 * The tokens live only in this closure (like the client's); the handle shows the addresses.
 */
import { inspect } from 'node:util';
import { request, type Dispatcher } from 'undici';
import { parseRateLimitHeaders, retryWaitSeconds } from '../api/index.js';
import { classifyTransportError } from '../transport/wire-errors.js';
import { MAX_BODY_BYTES, MAX_STREAM_BYTES, readBoundedBody } from '../transport/bounded-body.js';
import { deadlineError } from '../transport/transport.js';
import { createUndiciDispatcher } from '../transport/undici-dispatcher.js';
import { NS_PER_MS, type Clock, type TimerHandle } from '../core/clock.js';
import type { OpName } from '../core/ops.js';
import { jsonDeeperThan } from '../core/input-limits.js';
import { parseSseText, type SseView } from './sse-view.js';

/** Whose credentials a request carries. */
export type AuthMode = 'token' | 'none' | 'invalid' | 'other';

/** One request of the battery. */
export interface ExchangeRequest {
  /** How reports name it, e.g. `GET /flows?limit=101`. */
  readonly label: string;
  readonly op: OpName;
  readonly method: 'GET' | 'POST';
  /** Path after the base URL (`/flows`), or after the webhook host for `host: 'webhook'`. */
  readonly path: string;
  readonly host?: 'api' | 'webhook';
  readonly query?: Readonly<Record<string, string>>;
  /** JSON-serialised; a string is sent as it is. */
  readonly body?: unknown;
  readonly auth?: AuthMode;
  readonly accept?: string;
  /** On a 429, wait for the window and try once more (default true). */
  readonly retryOn429?: boolean;
}

/** One answer, whatever it was. */
export interface ExchangeAnswer {
  readonly request: ExchangeRequest;
  /** 0 when no response arrived. */
  readonly status: number;
  /**
   * Why no response, or no whole body, arrived, classified as the run classifies it
   * (`TIMEOUT`, `MALFORMED_BODY` for a body over its cap, `PROTOCOL_ERROR`, …). With a status,
   * the head arrived and the body did not: `text` is then empty.
   */
  readonly transportError: string | undefined;
  /** Lower-case names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly contentType: string | undefined;
  readonly text: string;
  /** The parsed body, when it is JSON. */
  readonly json: unknown;
  /** The parsed events, when the body is `text/event-stream`. */
  readonly sse: SseView | undefined;
  /** Wall-clock ms when the answer arrived. */
  readonly atMs: number;
  /** Answers this one replaced (a 429 waited out), for the rate-limit checks. */
  readonly retried: ExchangeAnswer | undefined;
}

/** Options of `createExchange`. */
export interface ExchangeOptions {
  readonly baseUrl: string;
  readonly webhookHost: string;
  readonly token: string;
  /** A token of another account (the cross-account checks run only with one). */
  readonly otherToken?: string;
  readonly clock: Clock;
  /** Whole-request deadline, head and body together, never restarted by a byte (default 30 s). */
  readonly timeoutMs?: number;
  /**
   * The battery's own deadline (`clock.nowNs()` ns): no request outlives it, and a 429 is not
   * waited out past it. Undefined: none.
   */
  readonly deadlineNs?: number;
  /** Longest wait for a rate-limit window before a retry (default 65 s). */
  readonly maxRetryWaitMs?: number;
  /** Called with every answer, retried ones included. */
  readonly onAnswer?: (a: ExchangeAnswer) => void;
  /** Target settings a real deployment may need (see `ConformanceTarget`). */
  readonly target?: ConformanceTarget;
  /** Cancels the request in flight and any wait for a rate-limit window (the battery was stopped). */
  readonly signal?: AbortSignal;
}

/** How to reach a real deployment: TLS trust, a gateway's headers, a proxy for https. */
export interface ConformanceTarget {
  /** Extra trusted CA certificates (PEM), or no certificate check at all. */
  readonly tls?: { readonly ca?: string; readonly insecure?: boolean };
  /** Sent with every request (a gateway key); never reported. */
  readonly headers?: Readonly<Record<string, string>>;
  /** A `CONNECT` proxy for https origins and the hosts to reach directly (as the client's `proxy`). */
  readonly proxy?: { readonly url: string; readonly noProxy?: string };
}

/**
 * The dispatcher of the battery (for every origin it calls): direct, or through the proxy for
 * https origins. undici's own timeouts restart on every byte; the whole-request deadline of each
 * exchange is what bounds it.
 */
function dispatcherFor(t: ConformanceTarget | undefined, timeoutMs: number): Dispatcher {
  return createUndiciDispatcher({ tls: t?.tls, proxy: t?.proxy, connectMs: Math.min(10_000, timeoutMs), pool: { headersTimeout: timeoutMs, bodyTimeout: timeoutMs } });
}

/** The battery's line to the target. */
export interface Exchange {
  readonly baseUrl: string;
  readonly webhookHost: string;
  readonly hasOtherToken: boolean;
  send(req: ExchangeRequest): Promise<ExchangeAnswer>;
  /** Requests sent so far. */
  readonly sent: number;
  close(): Promise<void>;
}

/** A token that is certainly not valid: a 401 is what the interface states for it. */
const INVALID_TOKEN = 'fg_conformance_invalid_token_0000';

function headerMap(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function parseJson(text: string): unknown {
  // A bomb nested millions deep is refused before JSON.parse would build it.
  if (text === '' || jsonDeeperThan(text)) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Seconds to wait before retrying a 429: Retry-After, else a small Reset taken as a delta. */
export function waitSecondsOf(headers: Readonly<Record<string, string>>): number | undefined {
  return retryWaitSeconds(parseRateLimitHeaders(headers));
}

/** Creates the exchange. */
export function createExchange(o: ExchangeOptions): Exchange {
  const { token, otherToken, clock } = o;
  const timeoutMs = o.timeoutMs ?? 30_000;
  const agent = dispatcherFor(o.target, timeoutMs);
  const extra = o.target?.headers ?? {};
  const base = o.baseUrl.replace(/\/+$/, '');
  const hook = o.webhookHost.replace(/\/+$/, '');
  let sent = 0;

  const bearer = (mode: AuthMode): string | undefined =>
    mode === 'token' ? `Bearer ${token}` : mode === 'invalid' ? `Bearer ${INVALID_TOKEN}` : mode === 'other' && otherToken !== undefined ? `Bearer ${otherToken}` : undefined;

  const noAnswer = (req: ExchangeRequest, status: number, h: Record<string, string>, code: string): ExchangeAnswer => ({
    request: req,
    status,
    transportError: code,
    headers: h,
    contentType: h['content-type'],
    text: '',
    json: undefined,
    sse: undefined,
    atMs: clock.wallMs(),
    retried: undefined,
  });

  const once = async (req: ExchangeRequest): Promise<ExchangeAnswer> => {
    sent++;
    const q = req.query === undefined ? '' : `?${new URLSearchParams(req.query as Record<string, string>).toString()}`;
    const url = `${req.host === 'webhook' ? hook : base}${req.path}${q}`;
    const auth = bearer(req.auth ?? (req.host === 'webhook' ? 'none' : 'token'));
    const headers: Record<string, string> = { ...extra, accept: req.accept ?? 'application/json', 'user-agent': 'flowgauge-conformance' };
    if (auth !== undefined) headers.authorization = auth;
    let body: string | undefined;
    if (req.body !== undefined) {
      body = typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
    // One deadline for the head and the whole body, set once: a trickling target cannot restart it.
    const startNs = clock.nowNs();
    const deadlineNs = Math.min(startNs + timeoutMs * NS_PER_MS, o.deadlineNs ?? Number.POSITIVE_INFINITY);
    const deadlineMs = Math.max(0, Math.round((deadlineNs - startNs) / NS_PER_MS));
    const abort = new AbortController();
    const timer: TimerHandle = clock.setTimer(deadlineNs, () => abort.abort(deadlineError(deadlineMs)));
    const onStop = (): void => abort.abort(o.signal?.reason);
    o.signal?.addEventListener('abort', onStop, { once: true });
    if (o.signal?.aborted === true) onStop();
    try {
      const res = await request(url, { method: req.method, headers, dispatcher: agent, signal: abort.signal, ...(body !== undefined ? { body } : {}) });
      const h = headerMap(res.headers);
      const contentType = h['content-type'];
      const isSse = contentType?.toLowerCase().includes('text/event-stream') === true;
      const read = await readBoundedBody(res.body, { clock, deadlineNs, deadlineMs, maxBytes: isSse ? MAX_STREAM_BYTES : MAX_BODY_BYTES });
      if (!read.ok) return noAnswer(req, res.statusCode, h, classifyTransportError(abort.signal.aborted ? abort.signal.reason : read.error, undefined));
      const text = read.text;
      return {
        request: req,
        status: res.statusCode,
        transportError: undefined,
        headers: h,
        contentType,
        text,
        json: isSse ? undefined : parseJson(text),
        sse: isSse ? parseSseText(text) : undefined,
        atMs: clock.wallMs(),
        retried: undefined,
      };
    } catch (err) {
      return noAnswer(req, 0, {}, classifyTransportError(abort.signal.aborted ? abort.signal.reason : err, undefined));
    } finally {
      clock.clearTimer(timer);
      o.signal?.removeEventListener('abort', onStop);
    }
  };

  const exchange: Exchange = {
    baseUrl: base,
    webhookHost: hook,
    hasOtherToken: otherToken !== undefined && otherToken !== '',
    async send(req) {
      const first = await once(req);
      o.onAnswer?.(first);
      if (first.status !== 429 || req.retryOn429 === false) return first;
      const waitS = waitSecondsOf(first.headers) ?? 60;
      const waitMs = Math.min(waitS * 1000 + 250, o.maxRetryWaitMs ?? 65_000);
      // A wait that would outlive the battery's deadline tells nothing: the first answer stands.
      if (o.deadlineNs !== undefined && clock.nowNs() + waitMs * NS_PER_MS >= o.deadlineNs) return first;
      const stopped = (): boolean => o.signal?.aborted === true;
      if (stopped()) return first;
      await new Promise<void>((resolve) => {
        const timer = clock.setTimer(clock.nowNs() + waitMs * NS_PER_MS, resolve);
        o.signal?.addEventListener('abort', () => (clock.clearTimer(timer), resolve()), { once: true });
      });
      if (stopped()) return first;
      const second = { ...(await once(req)), retried: first };
      o.onAnswer?.(second);
      return second;
    },
    get sent() {
      return sent;
    },
    close: () => agent.close(),
  };
  const shown = (): { baseUrl: string; webhookHost: string } => ({ baseUrl: base, webhookHost: hook });
  Object.defineProperty(exchange, inspect.custom, { value: (_d: number, opts: object, show: typeof inspect) => `Exchange ${show(shown(), opts)}` });
  Object.defineProperty(exchange, 'toJSON', { value: shown });
  return exchange;
}
