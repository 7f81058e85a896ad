/**
 * The run's live figures, read about once a second: the progress every tick observer gets,
 * and the view abort-on-fail thresholds are judged on. Both read the running state; neither
 * serialises a histogram or builds a report.
 */
import type { Clock } from '../core/clock.js';
import { toPct } from '../collect/index.js';
import type { Executor } from '../load/index.js';
import { sloSection } from '../report/build-report.js';
import type { MetricView } from '../report/index.js';
import type { RunProgress } from './progress.js';
import type { RunState, ScenarioState } from './run-state.js';

/** One scheduled scenario, as the meter sees it. */
export interface MeteredUnit {
  readonly unit: ScenarioState;
  readonly executor: Executor;
}

/** Live figures of a run. */
export interface LiveMeter {
  /** Progress since the run's start; rates over the interval since the previous call. */
  progress(): RunProgress;
  /** What thresholds read, now. */
  metrics(): MetricView;
}

/** A meter over the executors and the run's state. */
export function createLiveMeter(d: {
  readonly clock: Clock;
  readonly runStartNs: number;
  readonly durationMs: number;
  readonly units: readonly MeteredUnit[];
  readonly state: RunState;
  readonly objective: number;
}): LiveMeter {
  let lastNs = d.runStartNs;
  let lastStarted = 0;
  const view = (s: ScenarioState, executors: readonly Executor[]): MetricView => {
    const v = s.collectors.view();
    const it = s.iterations.live();
    return {
      ops: v.ops,
      stream: v.stream,
      rateLimit: v.rateLimit,
      slo: sloSection(v.totals, d.objective),
      load: { dropped: executors.reduce((n, e) => n + e.stats().dropped, 0) },
      contractViolationTotals: v.contractViolationTotals,
      ...(s.iterations.active ? { iterations: { failed: it.failed, durationMs: toPct(it.duration) }, checks: s.iterations.checkCounts() } : {}),
    };
  };
  return {
    progress() {
      const now = d.clock.nowNs();
      let started = 0;
      let completed = 0;
      let dropped = 0;
      let inFlight = 0;
      for (const u of d.units) {
        const st = u.executor.stats();
        started += st.started;
        completed += st.completed;
        dropped += st.dropped;
        inFlight += st.inFlight;
      }
      const live = d.state.total.collectors.live(now);
      const dtS = (now - lastNs) / 1e9;
      const rate = dtS > 0 ? (started - lastStarted) / dtS : 0;
      lastNs = now;
      lastStarted = started;
      const it = d.state.total.iterations;
      return {
        elapsedS: (now - d.runStartNs) / 1e9,
        totalS: d.durationMs / 1000,
        started,
        completed,
        dropped,
        inFlight,
        ratePerS: rate,
        p50Ms: live.p50Ms,
        p99Ms: live.p99Ms,
        errors: live.errors,
        responses429: live.responses429,
        requests: live.requests,
        ...(it.active ? { iterations: { ended: it.live().ended, failed: it.live().failed } } : {}),
        good: live.good,
        bad: live.bad,
        excluded: live.excluded,
        availability: live.availability,
      };
    },
    metrics() {
      const whole = view(d.state.total, d.units.map((u) => u.executor));
      if (d.units.length === 1) return whole;
      return { ...whole, scenarios: Object.fromEntries(d.units.map((u) => [u.unit.name, view(u.unit, [u.executor])])) };
    },
  };
}
