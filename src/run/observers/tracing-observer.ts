/**
 * One OpenTelemetry span per request: started before the request, so its `traceparent` goes
 * with it, and ended with the judged sample.
 */
import type { RequestTracer } from '../../export/index.js';
import type { RunObserver } from '../observer.js';

/** The tracing observer; undefined when the tracer records nothing (no hook on the hot path). */
export function createTracingObserver(tracer: RequestTracer): RunObserver | undefined {
  if (!tracer.enabled) return undefined;
  return {
    name: 'tracing',
    request(r) {
      const span = tracer.startSpan(r.op, r.flowId);
      const traceparent = span.traceparent;
      return { headers: traceparent === undefined ? undefined : { traceparent }, end: (s) => span.end(s, s.verdict) };
    },
  };
}
