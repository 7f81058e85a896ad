/**
 * One OpenTelemetry span per request: started before the request, so its `traceparent` goes
 * with it, and ended with the judged sample. Its times are the run clock's, mapped to the
 * epoch with nanosecond precision; its URL is the scenario's client's (no token, no query).
 */
import { epochClock } from '../../export/tracing.js';
import type { RequestTarget, RequestTracer } from '../../export/index.js';
import type { RunOutput } from '../output.js';

/** The tracing output; undefined when the tracer records nothing (no hook on the hot path). */
export function createTracingOutput(tracer: RequestTracer): RunOutput | undefined {
  if (!tracer.enabled) return undefined;
  let epoch: ((ns: number) => [number, number]) | undefined;
  let nowNs: (() => number) | undefined;
  const targets = new Map<string, RequestTarget>();
  let targetOf: (scenario: string) => RequestTarget | undefined = () => undefined;
  return {
    name: 'tracing',
    start(ctx) {
      epoch = epochClock(ctx.clock);
      nowNs = () => ctx.clock.nowNs();
      targetOf = (scenario) => {
        let t = targets.get(scenario);
        if (t === undefined) {
          t = ctx.targetOf(scenario);
          targets.set(scenario, t);
        }
        return t;
      };
    },
    request(r) {
      const toEpoch = epoch;
      const span = tracer.startSpan(r.op, r.flowId, {
        target: targetOf(r.scenario),
        runId: r.runId,
        sessionId: r.sessionId,
        startTime: toEpoch !== undefined && nowNs !== undefined ? toEpoch(nowNs()) : undefined,
      });
      const traceparent = span.traceparent;
      return {
        headers: traceparent === undefined ? undefined : { traceparent },
        end: (s) => span.end(s, s.verdict, toEpoch?.(s.endNs)),
      };
    },
  };
}
