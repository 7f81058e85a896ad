/** Prometheus metrics of a run: every sample, and each tick the in-flight gauge, the drops and the starts scheduled. */
import type { RunMetrics } from '../../export/index.js';
import type { RunOutput } from '../output.js';

/** The metrics output over a run's registry. */
export function createMetricsOutput(metrics: RunMetrics): RunOutput {
  let dropped = 0;
  let scheduled = 0;
  // Progress and the report give totals; the counters take what is new since the last one.
  const counts = (droppedNow: number, startedNow: number): void => {
    if (droppedNow > dropped) metrics.addDropped(droppedNow - dropped);
    dropped = Math.max(dropped, droppedNow);
    const scheduledNow = startedNow + droppedNow;
    if (scheduledNow > scheduled) metrics.addScheduled(scheduledNow - scheduled);
    scheduled = Math.max(scheduled, scheduledNow);
  };
  return {
    name: 'metrics',
    sample: (s) => metrics.observe(s, s.verdict, s.scenario),
    cut: (s) => metrics.observeCut?.(s, s.scenario),
    iteration: (i) => metrics.observeIteration?.(i.scenario, i.result),
    check: (c) => metrics.observeCheck?.(c.scenario, c.name, c.passed),
    tick(p) {
      metrics.setInFlight(p.inFlight);
      counts(p.dropped, p.started);
    },
    scheduleEnded(report) {
      metrics.setInFlight(0);
      counts(report.load.dropped, report.load.started);
      // The report settled each 429 on all of the run's evidence: the series follow it.
      metrics.settle?.(report);
    },
    end(report) {
      metrics.settle?.(report);
    },
  };
}
