/**
 * One OpenTelemetry span per request, through `@opentelemetry/api` only: with no SDK the API
 * is a no-op, and with no tracer at all `startSpan` returns a shared do-nothing span, so the
 * default path costs one function call. The API token never reaches this module: the target
 * addresses it is given are stripped of credentials and queries before any attribute is set.
 *
 * Spans follow the stable HTTP client semantic conventions: kind CLIENT, named `{method}
 * {url.template}` (e.g. `POST /v1/flows/{flow_id}/run`: the template is the path `url.full`
 * has, the base URL's `/v1` included, ids left as placeholders), with `http.request.method`, `url.full`,
 * `server.address`, `server.port`, `http.response.status_code` and, on failures, `error.type`.
 * Start and end times are the samples' monotonic nanoseconds mapped to the epoch
 * (`epochClock`), so they keep their sub-millisecond precision.
 *
 * `traceparent` decision: it is set only when the span has a valid context (an SDK is
 * active), and then carries the span's own trace id, span id and sampling flag. Without one
 * it is `undefined` and the client sends no header. A made-up parent would look like a real
 * upstream decision to the service's parent-based sampler: flag 00 would switch its tracing
 * off for every load-test request, flag 01 would force it on at load-test rates.
 */
import { createRequire } from 'node:module';
import type * as OtelApi from '@opentelemetry/api';
import type { Attributes, HrTime, Span, Tracer } from '@opentelemetry/api';
import { urlWithoutSecrets } from '../api/index.js';
import type { Clock } from '../core/clock.js';
import type { OpName } from '../core/ops.js';
import type { RequestSample, Verdict } from '../core/types.js';

/** Span attribute names. */
export const SPAN_ATTRIBUTES = {
  operation: 'flowgauge.operation',
  flowId: 'flowgauge.flow_id',
  sli: 'flowgauge.sli',
  throttle: 'flowgauge.throttle',
  /** flowgauge's own classification of a failure (`docs/measuring.md`), e.g. `TIMEOUT`. */
  errorCode: 'flowgauge.error_code',
  method: 'http.request.method',
  urlFull: 'url.full',
  urlTemplate: 'url.template',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  statusCode: 'http.response.status_code',
  errorType: 'error.type',
} as const;

/** Method and path template of each operation; `webhook` paths live under the trigger host. */
export const OP_ROUTES: Readonly<Record<OpName, { readonly method: 'GET' | 'POST'; readonly template: string; readonly host: 'api' | 'webhook' }>> = {
  run: { method: 'POST', template: '/flows/{flow_id}/run', host: 'api' },
  stream: { method: 'POST', template: '/flows/{flow_id}/stream', host: 'api' },
  getRun: { method: 'GET', template: '/runs/{run_id}', host: 'api' },
  listFlows: { method: 'GET', template: '/flows', host: 'api' },
  getFlow: { method: 'GET', template: '/flows/{flow_id}', host: 'api' },
  createSession: { method: 'POST', template: '/sessions', host: 'api' },
  getHistory: { method: 'GET', template: '/sessions/{session_id}/history', host: 'api' },
  getUsage: { method: 'GET', template: '/analytics/usage', host: 'api' },
  trigger: { method: 'POST', template: '/api/v1/webhook/{flow_id}', host: 'webhook' },
};

/** Where a request goes: the client's addresses (`Client.baseUrl`, `Client.webhookHost`). */
export interface RequestTarget {
  readonly baseUrl: string;
  readonly webhookHost: string;
}

/** What a span may be told at its start besides the operation and flow. */
export interface SpanStart {
  /** The addresses of the client sending it; without them, no URL attributes. */
  readonly target?: RequestTarget | undefined;
  /** The run a `getRun` asks for. */
  readonly runId?: string | undefined;
  /** The session a `getHistory` reads. */
  readonly sessionId?: string | undefined;
  /** Epoch start time (`epochClock`); default: now. */
  readonly startTime?: HrTime | undefined;
}

/** The span of one request. */
export interface RequestSpan {
  /** W3C `traceparent` for the request (`00-<trace>-<span>-<flags>`), or undefined when tracing is off. */
  readonly traceparent: string | undefined;
  /** Records the outcome and ends the span (at `endTime`, default now); later calls do nothing. */
  end(sample: RequestSample, verdict: Verdict, endTime?: HrTime): void;
}

/** Starts request spans. */
export interface RequestTracer {
  /** False when spans are never recorded (no tracer given). */
  readonly enabled: boolean;
  startSpan(op: OpName, flowId: string | undefined, start?: SpanStart): RequestSpan;
}

const NOOP_SPAN: RequestSpan = Object.freeze({ traceparent: undefined, end: () => undefined });

// The API's values are loaded with the first tracer, not on import: its ~45 modules (~30 ms) are
// start-up that a run tracing nothing, or a scenario importing `flowgauge`, never uses. Its state
// is global (one registry for every copy), so the copy `require` finds sees the user's SDK.
const require = createRequire(import.meta.url);
let otel: typeof OtelApi | undefined;
const otelApi = (): typeof OtelApi => (otel ??= require('@opentelemetry/api') as typeof OtelApi);

/** W3C trace-context header value of a span, or undefined when its context is invalid. */
export function traceparentOf(span: Span): string | undefined {
  const ctx = span.spanContext();
  if (!otelApi().isSpanContextValid(ctx)) return undefined;
  return `00-${ctx.traceId}-${ctx.spanId}-${(ctx.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

const NS_PER_S = 1e9;

/**
 * Maps `clock`'s monotonic nanoseconds to epoch `HrTime` ([seconds, nanoseconds]) with
 * nanosecond precision: one anchor pairs a monotonic reading with the wall clock (itself
 * sub-millisecond: `performance.timeOrigin + performance.now()` for the system clock), and
 * every later instant is the anchor plus its monotonic distance, in integer arithmetic.
 */
export function epochClock(clock: Clock): (ns: number) => HrTime {
  const anchorNs = clock.nowNs();
  const wallMs = clock.wallMs();
  const anchorS = Math.floor(wallMs / 1000);
  const anchorRemNs = Math.round((wallMs - anchorS * 1000) * 1e6);
  return (ns) => {
    const total = anchorRemNs + Math.round(ns - anchorNs);
    const carry = Math.floor(total / NS_PER_S);
    return [anchorS + carry, total - carry * NS_PER_S];
  };
}

/** Host and port of a URL as the conventions spell them (no IPv6 brackets; the scheme's default port). */
function serverOf(url: URL): { address: string; port: number } {
  const address = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return { address, port };
}

/** A base address without credentials, query, fragment or trailing slash. */
function cleanBase(address: string): URL | undefined {
  const u = urlWithoutSecrets(address);
  if (u !== undefined) u.pathname = u.pathname.replace(/\/+$/, '');
  return u;
}

/** The URL attributes of a request, computed once per target and operation (ids filled per request). */
function urlAttributes(op: OpName, flowId: string | undefined, start: SpanStart, bases: Map<string, URL | undefined>): Attributes {
  const route = OP_ROUTES[op];
  const attrs: Attributes = { [SPAN_ATTRIBUTES.method]: route.method, [SPAN_ATTRIBUTES.urlTemplate]: route.template };
  const address = start.target === undefined ? undefined : route.host === 'api' ? start.target.baseUrl : start.target.webhookHost;
  if (address === undefined) return attrs;
  let base = bases.get(address);
  if (base === undefined && !bases.has(address)) {
    base = cleanBase(address);
    bases.set(address, base);
  }
  if (base === undefined) return attrs;
  // The same path url.full has: the base URL's own path (`/v1`) before the operation's.
  attrs[SPAN_ATTRIBUTES.urlTemplate] = `${base.pathname}${route.template}`;
  const { address: host, port } = serverOf(base);
  attrs[SPAN_ATTRIBUTES.serverAddress] = host;
  attrs[SPAN_ATTRIBUTES.serverPort] = port;
  const ids: Record<string, string | undefined> = { flow_id: flowId, run_id: start.runId, session_id: start.sessionId };
  let known = true;
  const path = route.template.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const v = ids[name];
    if (v === undefined) {
      known = false;
      return '';
    }
    return encodeURIComponent(v);
  });
  // An id the caller did not tell leaves the URL unknown: no made-up url.full.
  if (known) attrs[SPAN_ATTRIBUTES.urlFull] = `${base.origin}${base.pathname}${path}`;
  return attrs;
}

class ActiveRequestSpan implements RequestSpan {
  readonly traceparent: string | undefined;
  private ended = false;

  constructor(
    private readonly span: Span,
    private readonly startTime: HrTime | undefined,
  ) {
    this.traceparent = traceparentOf(span);
  }

  end(sample: RequestSample, verdict: Verdict, endTime?: HrTime): void {
    if (this.ended) return;
    this.ended = true;
    const span = this.span;
    const failedStatus = sample.status >= 400;
    if (span.isRecording()) {
      if (sample.status > 0) span.setAttribute(SPAN_ATTRIBUTES.statusCode, sample.status);
      // The conventions: the status code (as a string) when it says failure, else the client's own classification.
      if (failedStatus) span.setAttribute(SPAN_ATTRIBUTES.errorType, String(sample.status));
      else if (sample.errorCode !== undefined) span.setAttribute(SPAN_ATTRIBUTES.errorType, sample.errorCode);
      if (sample.errorCode !== undefined) span.setAttribute(SPAN_ATTRIBUTES.errorCode, sample.errorCode);
      span.setAttribute(SPAN_ATTRIBUTES.sli, verdict.sli);
      if (verdict.throttle !== 'none') span.setAttribute(SPAN_ATTRIBUTES.throttle, verdict.throttle);
      if (verdict.sli === 'bad') {
        span.setStatus({ code: otelApi().SpanStatusCode.ERROR, message: sample.errorCode ?? `HTTP ${sample.status}` });
      }
    }
    // A span never ends before it started (clocks of different origins in tests).
    const end = endTime !== undefined && this.startTime !== undefined && before(endTime, this.startTime) ? this.startTime : endTime;
    span.end(end);
  }
}

const before = (a: HrTime, b: HrTime): boolean => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);

/**
 * A request tracer on `tracer`. Without one, tracing is off at no cost; to use an SDK
 * registered globally, pass `trace.getTracer('flowgauge')`.
 */
export function createRequestTracer(tracer?: Tracer): RequestTracer {
  if (tracer === undefined) return { enabled: false, startSpan: () => NOOP_SPAN };
  const bases = new Map<string, URL | undefined>();
  const { SpanKind, isSpanContextValid } = otelApi();
  return {
    enabled: true,
    startSpan(op, flowId, start = {}) {
      const attributes = urlAttributes(op, flowId, start, bases);
      attributes[SPAN_ATTRIBUTES.operation] = op;
      if (flowId !== undefined) attributes[SPAN_ATTRIBUTES.flowId] = flowId;
      const route = OP_ROUTES[op];
      const span = tracer.startSpan(`${route.method} ${String(attributes[SPAN_ATTRIBUTES.urlTemplate])}`, {
        kind: SpanKind.CLIENT,
        attributes,
        ...(start.startTime !== undefined ? { startTime: start.startTime } : {}),
      });
      // An API without an SDK hands out non-recording spans with an invalid context: share one no-op.
      if (!span.isRecording() && !isSpanContextValid(span.spanContext())) return NOOP_SPAN;
      return new ActiveRequestSpan(span, start.startTime);
    },
  };
}
