/** A realistic report built from synthetic samples, shared by the report tests. */
import { createCollectors } from '../../src/collect/collectors.js';
import { createLatencyHistogram, recordNs, toPct } from '../../src/collect/histogram.js';
import { buildReport, type BuildReportInput } from '../../src/report/build-report.js';
import type { Report } from '../../src/report/model.js';
import { MS, S, rl, sample, streamTiming } from '../collect/samples.js';

export const WALL0 = Date.UTC(2026, 0, 1, 12, 0, 0);

/** 60 s of mixed traffic: runs (one 503), streams, a few expected 429s, a contract violation. */
export function fixtureInput(): BuildReportInput {
  const c = createCollectors({ runStartNs: 0, runStartWallMs: WALL0 });
  const lag = createLatencyHistogram();
  let used = 0;
  let started = 0;
  for (let i = 0; i < 1200; i++) {
    const t = i * 50 * MS;
    started++;
    recordNs(lag, (i % 7) * 100_000);
    const window = Math.floor(t / (60 * S));
    if (window === 0 && used >= 1000) {
      c.observe(sample({ intendedNs: t, startNs: t, headersNs: t + MS, endNs: t + 2 * MS, status: 429, errorCode: 'RATE_LIMITED', rateLimit: rl(1000, 0, 60 - Math.floor(t / S)) }));
      continue;
    }
    used++;
    const rateLimit = rl(1000, 1000 - used, 60 - Math.floor(t / S));
    if (i % 4 === 0) {
      c.observe(
        sample({
          op: 'stream',
          intendedNs: t,
          startNs: t,
          headersNs: t + 5 * MS,
          endNs: t + 300 * MS,
          rateLimit,
          stream: streamTiming(t, { start: 10 * MS, tokens: [100 * MS, 150 * MS, 200 * MS, 250 * MS], end: 300 * MS, usage: 4 }),
        }),
      );
    } else {
      const bad = i === 7;
      c.observe(
        sample({
          intendedNs: t,
          startNs: t,
          headersNs: t + (20 + (i % 50)) * MS,
          endNs: t + (20 + (i % 50)) * MS,
          status: bad ? 503 : 200,
          errorCode: bad ? 'SERVICE_UNAVAILABLE' : undefined,
          runStatus: bad ? undefined : 'completed',
          rateLimit,
          violations: i === 9 ? [{ op: 'run', path: 'usage.total_tokens', expected: 'integer', got: 'string' }] : [],
        }),
      );
    }
  }
  return {
    scenario: 'mixed-pro',
    interrupted: false,
    target: { baseUrl: 'http://127.0.0.1:4000/v1', embedded: true },
    startedAtMs: WALL0,
    endedAtMs: WALL0 + 60_000,
    load: { executor: 'constant-arrival-rate', targetRatePerS: 20, started, dropped: 0, scheduleLagMs: toPct(lag) },
    snapshot: c.snapshot(61 * S),
    thresholds: [],
  };
}

export function fixtureReport(): Report {
  return buildReport(fixtureInput());
}
