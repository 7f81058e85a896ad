/**
 * The real measurement of a capacity step: flowgauge's own client in a closed loop,
 * `concurrency` requests in flight for a fixed time, one operation, every answer judged as the
 * run judges it (`requestSample` and `classifySli`: status, the body's shape by the same
 * validator, SSE framing, the run's status, the contract). A JSON answer to a stream, a body of
 * spaces or a wrong-shaped body is bad, never throughput; every body is read under the run's
 * caps and deadlines, so no body can take the process down.
 *
 * Why the client and not autocannon: autocannon counted any 2xx as good and buffered whatever
 * it was sent (a 50 MB event line ended it with `RangeError: Invalid string length`); the
 * client costs about what autocannon does per request in a closed loop (docs/performance.md)
 * and already carries the caps, the deadlines and the verdict.
 *
 * A stream step also keeps the run's stream figures (the run's own stream collector): TTFT, ITL,
 * TPOT and tokens per second per stream, bursts apart, and the good streams' tokens per second.
 */
import { errorCodeOf, type Client } from '../api/index.js';
import { createLatencyHistogram, recordNs } from '../collect/histogram.js';
import { createStreamCollector } from '../collect/stream-collector.js';
import { createSystemClock, NS_PER_MS, NS_PER_S, type Clock } from '../core/clock.js';
import { callOperation, type OperationTargets } from '../run/operations.js';
import { requestSample, type SampleContext } from '../run/sample.js';
import type { ResolvedMixEntry } from '../scenario/index.js';
import { classifySli } from '../slo/sli.js';
import type { MeasureStep, StepMeasurement } from './sweep.js';

/** Options of `createClientMeasure`. */
export interface ClientMeasureOptions {
  /** A client with at least as many connections as the highest concurrency. */
  readonly client: Client;
  /** The operation, as a run's mix entry describes it. */
  readonly entry: ResolvedMixEntry;
  /** The ids the preparation found. */
  readonly targets: OperationTargets;
  /** Length of each step in seconds. */
  readonly durationS: number;
  /**
   * Whole-request deadline in ms (default: the step's length, at most 10 s): an answer slower
   * than that is a timeout, counted bad, and never holds the step open longer.
   */
  readonly requestMs?: number;
  readonly clock?: Clock;
  /** Ends the step early (Ctrl-C): requests in flight are cancelled and not counted. */
  readonly signal?: AbortSignal;
}

const quantileMs = (h: ReturnType<typeof createLatencyHistogram>, q: number): number => (h.totalCount === 0 ? 0 : h.getValueAtPercentile(q) / 1000);

/** A `MeasureStep` that runs the operation in a closed loop on `client`. */
export function createClientMeasure(o: ClientMeasureOptions): MeasureStep {
  const clock = o.clock ?? createSystemClock();
  const requestMs = o.requestMs ?? Math.min(10_000, Math.max(1000, o.durationS * 1000));
  const ctxOf = (intendedNs: number): SampleContext => ({
    scenario: 'capacity',
    op: o.entry.op,
    flowId: undefined,
    negative: false,
    intendedNs,
    step: undefined,
    sessionId: undefined,
    input: undefined,
  });
  return async (concurrency) => {
    const latency = createLatencyHistogram();
    const streams = o.entry.op === 'stream' ? createStreamCollector() : undefined;
    let goodTokens = 0;
    const bad: Record<string, number> = {};
    let requests = 0;
    let responses = 0;
    let good = 0;
    let r429 = 0;
    const startNs = clock.nowNs();
    const endNs = startNs + o.durationS * NS_PER_S;
    const opts = { deadlineMs: requestMs, ...(o.signal !== undefined ? { signal: o.signal } : {}) };
    // A function, not a property read, so the check after the await is not narrowed away.
    const stopped = (): boolean => o.signal?.aborted === true;
    const worker = async (): Promise<void> => {
      while (clock.nowNs() < endNs && !stopped()) {
        const intendedNs = clock.nowNs();
        const result = await callOperation(o.client, o.entry, o.targets, opts);
        const code = errorCodeOf(result);
        if (code === 'ABORTED' && stopped()) return;
        const sample = requestSample(ctxOf(intendedNs), result, code);
        // No analyser here: a 429 is bad, and counted apart so the sweep can name rate limiting.
        const verdict = classifySli(sample, 'none');
        requests++;
        if (sample.status !== 0) responses++;
        recordNs(latency, sample.endNs - sample.startNs);
        if (sample.status === 429) r429++;
        streams?.observe(sample);
        if (verdict === 'good') {
          good++;
          goodTokens += sample.stream?.tokens ?? 0;
        } else {
          const why = code ?? (sample.violations.length > 0 ? 'CONTRACT_VIOLATION' : sample.runStatus === 'failed' ? 'RUN_FAILED' : `HTTP ${sample.status}`);
          bad[why] = (bad[why] ?? 0) + 1;
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const durationS = Math.max((clock.nowNs() - startNs) / NS_PER_S, NS_PER_MS / NS_PER_S);
    const st = streams?.snapshot(false);
    const m: StepMeasurement = {
      concurrency,
      requests,
      requestsPerS: responses / durationS,
      goodPerS: good / durationS,
      p50Ms: quantileMs(latency, 50),
      p99Ms: quantileMs(latency, 99),
      errorRatio: requests > 0 ? (requests - good) / requests : 1,
      ratio429: requests > 0 ? r429 / requests : 0,
      bad,
      ...(st === undefined
        ? {}
        : {
            stream: {
              count: st.count,
              deliveredAtOnce: st.deliveredAtOnce ?? 0,
              ttftMs: st.ttftMs,
              itlMs: st.itlMs,
              tpotMs: st.tpotMs,
              tokensPerS: st.tokensPerS,
              outputTokensPerS: goodTokens / durationS,
            },
          }),
    };
    return m;
  };
}
