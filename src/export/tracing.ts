/**
 * One OpenTelemetry span per request, through `@opentelemetry/api` only: with no SDK the API
 * is a no-op, and with no tracer at all `startSpan` returns a shared do-nothing span, so the
 * default path costs one function call. The API token never reaches this module.
 *
 * `traceparent` decision: it is set only when the span has a valid context (an SDK is
 * active), and then carries the span's own trace id, span id and sampling flag. Without one
 * it is `undefined` and the client sends no header. A made-up parent would look like a real
 * upstream decision to the service's parent-based sampler: flag 00 would switch its tracing
 * off for every load-test request, flag 01 would force it on at load-test rates.
 */
import { SpanKind, SpanStatusCode, isSpanContextValid, type Span, type Tracer } from '@opentelemetry/api';
import type { OpName } from '../core/ops.js';
import type { RequestSample, Verdict } from '../core/types.js';

/** Span attribute names. */
export const SPAN_ATTRIBUTES = {
  operation: 'flowgauge.operation',
  flowId: 'flowgauge.flow_id',
  sli: 'flowgauge.sli',
  throttle: 'flowgauge.throttle',
  statusCode: 'http.response.status_code',
  errorType: 'error.type',
} as const;

/** The span of one request. */
export interface RequestSpan {
  /** W3C `traceparent` for the request (`00-<trace>-<span>-<flags>`), or undefined when tracing is off. */
  readonly traceparent: string | undefined;
  /** Records the outcome and ends the span; later calls do nothing. */
  end(sample: RequestSample, verdict: Verdict): void;
}

/** Starts request spans. */
export interface RequestTracer {
  /** False when spans are never recorded (no tracer given). */
  readonly enabled: boolean;
  startSpan(op: OpName, flowId: string | undefined): RequestSpan;
}

const NOOP_SPAN: RequestSpan = Object.freeze({ traceparent: undefined, end: () => undefined });

/** W3C trace-context header value of a span, or undefined when its context is invalid. */
export function traceparentOf(span: Span): string | undefined {
  const ctx = span.spanContext();
  if (!isSpanContextValid(ctx)) return undefined;
  return `00-${ctx.traceId}-${ctx.spanId}-${(ctx.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

class ActiveRequestSpan implements RequestSpan {
  readonly traceparent: string | undefined;
  private ended = false;

  constructor(private readonly span: Span) {
    this.traceparent = traceparentOf(span);
  }

  end(sample: RequestSample, verdict: Verdict): void {
    if (this.ended) return;
    this.ended = true;
    const span = this.span;
    if (span.isRecording()) {
      if (sample.status > 0) span.setAttribute(SPAN_ATTRIBUTES.statusCode, sample.status);
      if (sample.errorCode !== undefined) span.setAttribute(SPAN_ATTRIBUTES.errorType, sample.errorCode);
      span.setAttribute(SPAN_ATTRIBUTES.sli, verdict.sli);
      if (verdict.throttle !== 'none') span.setAttribute(SPAN_ATTRIBUTES.throttle, verdict.throttle);
      if (verdict.sli === 'bad') {
        span.setStatus({ code: SpanStatusCode.ERROR, message: sample.errorCode ?? `HTTP ${sample.status}` });
      }
    }
    span.end();
  }
}

/**
 * A request tracer on `tracer`. Without one, tracing is off at no cost; to use an SDK
 * registered globally, pass `trace.getTracer('flowgauge')`.
 */
export function createRequestTracer(tracer?: Tracer): RequestTracer {
  if (tracer === undefined) return { enabled: false, startSpan: () => NOOP_SPAN };
  return {
    enabled: true,
    startSpan(op, flowId) {
      const span = tracer.startSpan(`flowgauge ${op}`, {
        kind: SpanKind.CLIENT,
        attributes: flowId === undefined ? { [SPAN_ATTRIBUTES.operation]: op } : { [SPAN_ATTRIBUTES.operation]: op, [SPAN_ATTRIBUTES.flowId]: flowId },
      });
      // An API without an SDK hands out non-recording spans with an invalid context: share one no-op.
      if (!span.isRecording() && !isSpanContextValid(span.spanContext())) return NOOP_SPAN;
      return new ActiveRequestSpan(span);
    },
  };
}
