/**
 * A run's thresholds, parsed once with the slo grammar before any request is sent
 * (`plan-thresholds.ts`), so a typo is a config error (exit 2) and not a failed run.
 */
import type { ParsedThreshold } from '../slo/index.js';

/** Parsed thresholds: all of them, and those that stop the run early when they fail. */
export interface RunThresholds {
  readonly all: readonly ParsedThreshold[];
  readonly abortOnFail: readonly ParsedThreshold[];
  /** Per abort-on-fail threshold key: time from the run's start before it is judged (ms). */
  readonly abortDelayMs?: ReadonlyMap<string, number>;
}
