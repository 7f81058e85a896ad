/**
 * The live dashboard's feed: once a second, what the last second looked like (requests,
 * latency and TTFT percentiles, 429s, availability against the objective) and the run so far.
 * It keeps two small histograms of its own, reset every tick: nothing grows with the run.
 */
import { createLatencyHistogram, recordNs, toPct } from '../../collect/index.js';
import type { RunObserver } from '../observer.js';

/** One message of the feed. Plain data, sent as JSON. */
export type DashboardMessage =
  | { readonly type: 'start'; readonly name: string; readonly scenarios: readonly string[]; readonly objective: number }
  | {
      readonly type: 'tick';
      /** Seconds since the run started. */
      readonly t: number;
      readonly totalS: number;
      /** Completed requests per second over the last interval. */
      readonly rps: number;
      readonly p50Ms: number;
      readonly p99Ms: number;
      readonly ttftP50Ms: number | null;
      readonly ttftP99Ms: number | null;
      readonly r429: number;
      /** Availability over the last interval; null when nothing was judged. */
      readonly availability: number | null;
      /** Availability of the run so far. */
      readonly availabilityTotal: number | null;
      readonly inFlight: number;
      readonly started: number;
      readonly dropped: number;
      readonly iterations: { readonly ended: number; readonly failed: number } | null;
    }
  | { readonly type: 'end'; readonly verdict: string; readonly availability: number | null; readonly requests: number };

/** The dashboard observer; `publish` sends each message to the page(s). */
export function createDashboardObserver(o: { readonly name: string; readonly objective: number; publish(m: DashboardMessage): void }): RunObserver {
  const latency = createLatencyHistogram();
  const ttft = createLatencyHistogram();
  let requests = 0;
  let r429 = 0;
  let good = 0;
  let bad = 0;
  let lastT = 0;
  const pct = (h: typeof latency): { p50: number; p99: number; count: number } => toPct(h);

  return {
    name: 'dashboard',
    start(ctx) {
      o.publish({ type: 'start', name: o.name, scenarios: ctx.scenarios, objective: o.objective });
    },
    sample(s) {
      requests++;
      recordNs(latency, s.endNs - s.intendedNs);
      if (s.stream?.firstTokenNs !== undefined) recordNs(ttft, s.stream.firstTokenNs - s.intendedNs);
      if (s.status === 429) r429++;
      if (s.verdict.sli === 'good') good++;
      else if (s.verdict.sli === 'bad') bad++;
    },
    tick(p) {
      const dt = Math.max(1e-3, p.elapsedS - lastT);
      lastT = p.elapsedS;
      const l = pct(latency);
      const f = pct(ttft);
      o.publish({
        type: 'tick',
        t: Math.round(p.elapsedS * 1000) / 1000,
        totalS: p.totalS,
        rps: requests / dt,
        p50Ms: l.p50,
        p99Ms: l.p99,
        ttftP50Ms: f.count > 0 ? f.p50 : null,
        ttftP99Ms: f.count > 0 ? f.p99 : null,
        r429: r429 / dt,
        availability: good + bad > 0 ? good / (good + bad) : null,
        availabilityTotal: p.availability ?? null,
        inFlight: p.inFlight,
        started: p.started,
        dropped: p.dropped,
        iterations: p.iterations ?? null,
      });
      latency.reset();
      ttft.reset();
      requests = 0;
      r429 = 0;
      good = 0;
      bad = 0;
    },
    end(report) {
      const all = report.slo.good + report.slo.bad + report.slo.excluded;
      o.publish({ type: 'end', verdict: report.verdict ?? (report.passed ? 'PASS' : 'FAIL'), availability: report.slo.availability, requests: all });
    },
  };
}
