/**
 * An output of a run, as k6's `output.Output`: it only consumes — samples and lifecycle events
 * — and never acts on the target or the report's content. Prometheus metrics, OpenTelemetry
 * spans, the progress line, the live dashboard and the CLI's report writer are outputs. Over
 * worker threads, the exporters' outputs run in every worker (`exporters/`), and the outputs of
 * the main thread hear the merged progress and reports (`tick`, `scheduleEnded`, `end`).
 */
import type { Clock } from '../core/clock.js';
import type { Report } from '../report/index.js';
import type { SampleHooks } from './events.js';
import type { RunProgress } from './progress.js';

/** What every output is given at the start. */
export interface OutputContext {
  readonly clock: Clock;
  readonly runStartNs: number;
  readonly startedAtMs: number;
  /** Names of the scenarios in this run. */
  readonly scenarios: readonly string[];
  /** Where a scenario's requests go (its client's addresses; never its token). */
  targetOf(scenario: string): { readonly baseUrl: string; readonly webhookHost: string };
}

/** An output. Every method is optional; none may throw (a failure is the output's own to say). Called in list order. */
export interface RunOutput extends SampleHooks {
  readonly name: string;
  /** True when its `tick` shows the thresholds judged on the live figures (`RunProgress.thresholds`, judged only then). */
  readonly liveThresholds?: boolean;
  start?(ctx: OutputContext): void | Promise<void>;
  /** About once a second. */
  tick?(p: RunProgress): void;
  /**
   * The report of the schedule, before anything after it can wait on the target (following,
   * notifications, the audit): a report writer saves it, so nothing is lost if those hang.
   */
  scheduleEnded?(report: Report): Promise<void> | void;
  /** The final report (the dashboard links it; exporters push last values). */
  end?(report: Report): Promise<void> | void;
}
