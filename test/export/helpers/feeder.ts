/**
 * A synthetic in-process load: every `intervalMs` it observes a realistic mix of samples (good
 * runs and streams, 5xx, expected and premature 429s, a contract violation, an incomplete
 * stream) and probe results. It stands in for a live `flowgauge run --metrics-port` in the
 * Prometheus integration test, and is deterministic (seeded) so a failure reproduces.
 */
import { createRandom } from '../../../src/core/random.js';
import type { OpName } from '../../../src/core/ops.js';
import type { RequestSample, Verdict } from '../../../src/core/types.js';
import type { ProbeMetrics } from '../../../src/export/probe-metrics.js';
import type { RunMetrics } from '../../../src/export/run-metrics.js';
import { BAD, EXPECTED_429, GOOD, PREMATURE_429, makeSample, makeStream } from './samples.js';

const MS = 1e6;

/** A running feeder. */
export interface Feeder {
  /** Ticks so far. */
  ticks(): number;
  stop(): void;
}


/** One batch of samples with their verdicts, drawn from `rand`. */
export function sampleBatch(rand: () => number, n = 40): [RequestSample, Verdict][] {
  const out: [RequestSample, Verdict][] = [];
  const ops: OpName[] = ['run', 'run', 'stream', 'stream', 'getRun', 'listFlows'];
  for (let i = 0; i < n; i++) {
    const op = ops[Math.floor(rand() * ops.length)] as OpName;
    const intendedNs = 1_000_000 * MS + i * MS;
    // Mostly fast, with a slow tail past 2 s so latency objectives have something to count.
    const latencyMs = rand() < 0.03 ? 2_500 + rand() * 1_000 : 20 + rand() * 400;
    const remaining = Math.floor(rand() * 1000);
    const base = makeSample({
      op,
      flowId: `flow-${Math.floor(rand() * 3)}`,
      intendedNs,
      startNs: intendedNs + MS,
      endNs: intendedNs + latencyMs * MS,
      rateLimit: {
        limit: 1000,
        remaining,
        reset: 30,
        raw: { limit: '1000', remaining: String(remaining), reset: '30', retryAfter: undefined },
      },
    });
    const r = rand();
    if (r < 0.03) {
      out.push([{ ...base, status: 503, errorCode: 'SERVICE_UNAVAILABLE', runStatus: undefined }, BAD]);
    } else if (r < 0.04) {
      out.push([{ ...base, status: 429, errorCode: 'RATE_LIMITED', runStatus: undefined }, PREMATURE_429]);
    } else if (r < 0.1) {
      out.push([{ ...base, status: 429, errorCode: 'RATE_LIMITED', runStatus: undefined }, EXPECTED_429]);
    } else if (op === 'stream') {
      const complete = rand() > 0.02;
      const stream = makeStream(intendedNs, { ttftMs: 50 + rand() * 700, tokens: 3 + Math.floor(rand() * 8), itlMs: 5 + rand() * 30, complete });
      out.push([{ ...base, stream, runStatus: undefined, ...(complete ? {} : { errorCode: 'STREAM_INCOMPLETE' as const }) }, complete ? GOOD : BAD]);
    } else if (r < 0.11) {
      const violations = [{ op, path: 'usage.total_tokens', expected: 'integer', got: 'string' }];
      out.push([{ ...base, violations, status: 200, errorCode: 'MALFORMED_BODY' }, BAD]);
    } else {
      out.push([base, GOOD]);
    }
  }
  return out;
}

/** Starts feeding `metrics` (and `probes`) every `intervalMs` on a real timer. */
export function startFeeder(metrics: RunMetrics, probes?: ProbeMetrics, options: { intervalMs?: number; seed?: number } = {}): Feeder {
  const rand = createRandom(options.seed ?? 42);
  let ticks = 0;
  const tick = (): void => {
    ticks++;
    const batch = sampleBatch(rand);
    metrics.addScheduled(batch.length + 1);
    for (const [s, v] of batch) metrics.observe(s, v);
    metrics.setInFlight(Math.floor(rand() * 20));
    metrics.addDropped(1);
    if (probes !== undefined) {
      for (const [i, check] of ['run', 'stream'].entries()) {
        // 5 % failures, in runs of 24 ticks (1.2 s at 50 ms): longer than a 1 s scrape, so the
        // success gauge Prometheus scrapes shows each run, and the first comes at once. Failing
        // one tick in twenty at random, a scrape saw a failure with 5 % odds, and 25 s of
        // scrapes of both checks missed every one about one time in thirteen.
        const success = (ticks - 1 + i * 240) % 480 >= 24;
        probes.record(check, {
          success,
          durationS: 0.2 + rand() * 0.3,
          phases: { connect: 0.002, tls: 0.01, ttfb: 0.05 + rand() * 0.1, total: 0.15 + rand() * 0.2 },
          ...(check === 'stream' ? { ttftS: 0.1 + rand() * 0.2 } : {}),
          tlsVersion: 'TLSv1.3',
        });
      }
    }
  };
  tick();
  const timer = setInterval(tick, options.intervalMs ?? 50);
  timer.unref();
  return { ticks: () => ticks, stop: () => clearInterval(timer) };
}
