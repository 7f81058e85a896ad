import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { createRequestTracer, SPAN_ATTRIBUTES } from '../../src/export/tracing.js';
import { BAD, EXPECTED_429, GOOD, makeSample } from './helpers/samples.js';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

function sdk() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, provider, tracer: provider.getTracer('test') };
}

let providers: BasicTracerProvider[] = [];
afterEach(async () => {
  await Promise.all(providers.map((p) => p.shutdown()));
  providers = [];
});

describe('createRequestTracer', () => {
  it('records one client span per request with the outcome attributes', () => {
    const { exporter, provider, tracer } = sdk();
    providers.push(provider);
    const rt = createRequestTracer(tracer);
    expect(rt.enabled).toBe(true);
    const target = { baseUrl: 'http://user:pw@api.test:8080/v1/?token=secret', webhookHost: 'https://hooks.test' };
    rt.startSpan('run', 'flow-a', { target }).end(makeSample(), GOOD);
    rt.startSpan('getRun', undefined).end(makeSample({ op: 'getRun', flowId: undefined, status: 503, errorCode: 'SERVICE_UNAVAILABLE' }), BAD);
    rt.startSpan('run', 'flow-a').end(makeSample({ status: 429, errorCode: 'RATE_LIMITED' }), EXPECTED_429);
    const [ok, bad, throttled] = exporter.getFinishedSpans();
    // The template is url.full's path with the ids as placeholders: the base URL's /v1 in both.
    expect(ok?.name).toBe('POST /v1/flows/{flow_id}/run');
    expect(ok?.kind).toBe(SpanKind.CLIENT);
    expect(ok?.attributes).toEqual({
      [SPAN_ATTRIBUTES.method]: 'POST',
      [SPAN_ATTRIBUTES.urlTemplate]: '/v1/flows/{flow_id}/run',
      [SPAN_ATTRIBUTES.urlFull]: 'http://api.test:8080/v1/flows/flow-a/run',
      [SPAN_ATTRIBUTES.serverAddress]: 'api.test',
      [SPAN_ATTRIBUTES.serverPort]: 8080,
      [SPAN_ATTRIBUTES.operation]: 'run',
      [SPAN_ATTRIBUTES.flowId]: 'flow-a',
      [SPAN_ATTRIBUTES.statusCode]: 200,
      [SPAN_ATTRIBUTES.sli]: 'good',
    });
    expect(ok?.status.code).toBe(SpanStatusCode.UNSET);
    // Without the target's address the template is the operation's own path.
    expect(bad?.name).toBe('GET /runs/{run_id}');
    expect(bad?.attributes).toEqual({
      [SPAN_ATTRIBUTES.method]: 'GET',
      [SPAN_ATTRIBUTES.urlTemplate]: '/runs/{run_id}',
      [SPAN_ATTRIBUTES.operation]: 'getRun',
      [SPAN_ATTRIBUTES.statusCode]: 503,
      [SPAN_ATTRIBUTES.errorType]: '503',
      [SPAN_ATTRIBUTES.errorCode]: 'SERVICE_UNAVAILABLE',
      [SPAN_ATTRIBUTES.sli]: 'bad',
    });
    expect(bad?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'SERVICE_UNAVAILABLE' });
    // An expected 429 is excluded from the SLI, not an error of the service.
    expect(throttled?.status.code).toBe(SpanStatusCode.UNSET);
    expect(throttled?.attributes[SPAN_ATTRIBUTES.throttle]).toBe('expected');
  });

  it('gives a W3C traceparent that matches the span context', () => {
    const { exporter, provider, tracer } = sdk();
    providers.push(provider);
    const span = createRequestTracer(tracer).startSpan('stream', 'flow-b');
    const m = TRACEPARENT.exec(span.traceparent ?? '');
    expect(m).not.toBeNull();
    span.end(makeSample({ op: 'stream' }), GOOD);
    const ctx = exporter.getFinishedSpans()[0]?.spanContext();
    expect(m?.[1]).toBe(ctx?.traceId);
    expect(m?.[2]).toBe(ctx?.spanId);
    expect(m?.[3]).toBe('01');
  });

  it('ends a span once, however often end is called', () => {
    const { exporter, provider, tracer } = sdk();
    providers.push(provider);
    const span = createRequestTracer(tracer).startSpan('run', 'f');
    span.end(makeSample(), GOOD);
    span.end(makeSample({ status: 500 }), BAD);
    expect(exporter.getFinishedSpans()).toHaveLength(1);
    expect(exporter.getFinishedSpans()[0]?.attributes[SPAN_ATTRIBUTES.sli]).toBe('good');
  });

  it('costs nothing without a tracer and sends no traceparent without an SDK', () => {
    const off = createRequestTracer();
    expect(off.enabled).toBe(false);
    const a = off.startSpan('run', 'f');
    expect(a.traceparent).toBeUndefined();
    expect(off.startSpan('getRun', undefined)).toBe(a);
    expect(() => a.end(makeSample(), GOOD)).not.toThrow();
    // The API alone (no SDK registered) hands out invalid contexts: no made-up parent either.
    const apiOnly = createRequestTracer(trace.getTracer('flowgauge'));
    const b = apiOnly.startSpan('run', 'f');
    expect(b.traceparent).toBeUndefined();
    expect(b).toBe(a);
  });
});
