/** Prometheus metrics of a run: every sample, the in-flight gauge and the drops, each tick. */
import type { RunMetrics } from '../../export/index.js';
import type { RunObserver } from '../observer.js';

/** The metrics observer over a run's registry. */
export function createMetricsObserver(metrics: RunMetrics): RunObserver {
  let dropped = 0;
  const onDropped = (n: number): void => {
    if (n > dropped) metrics.addDropped(n - dropped);
    dropped = Math.max(dropped, n);
  };
  return {
    name: 'metrics',
    sample: (s) => metrics.observe(s, s.verdict, s.scenario),
    iteration: (i) => metrics.observeIteration?.(i.scenario, i.result),
    check: (c) => metrics.observeCheck?.(c.scenario, c.name, c.passed),
    tick(p) {
      metrics.setInFlight(p.inFlight);
      onDropped(p.dropped);
    },
    scheduleEnded(report) {
      metrics.setInFlight(0);
      onDropped(report.load.dropped);
    },
  };
}
