/** W3C trace context reaches the service: every request carries the traceparent of its span. */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { createRequestTracer } from '../../src/export/index.js';
import { runAgainstService, TEST_TOKEN } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

describe('tracing through a run', () => {
  it('sends each span as traceparent, and the service receives exactly those', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    cleanups.push(() => provider.shutdown());
    const received: string[] = [];
    const r = await runAgainstService(
      {
        name: 'traced',
        tier: 'pro',
        load: { executor: 'constant-arrival-rate', rate: '40/s', duration: '500ms' },
        mix: [
          { op: 'listFlows', weight: 1 },
          { op: 'stream', weight: 1 },
        ],
      },
      {
        service: {
          onRequest: (info) => {
            if (info.traceparent !== undefined) received.push(info.traceparent);
          },
        },
        run: { tracer: createRequestTracer(provider.getTracer('test')) },
      },
    );
    cleanups.push(r.close);
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(20);
    const sent = spans.map((s) => `00-${s.spanContext().traceId}-${s.spanContext().spanId}-01`).sort();
    expect(received.sort()).toEqual(sent);
    const ops = new Set(spans.map((s) => s.attributes['flowgauge.operation']));
    expect(ops).toEqual(new Set(['listFlows', 'stream']));
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain(TEST_TOKEN);
  });
});
