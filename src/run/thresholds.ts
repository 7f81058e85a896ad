/**
 * A scenario's thresholds, parsed once with the slo grammar before any request is sent, so
 * a typo is a config error (exit 2) and not a failed run.
 */
import { ConfigError, type ConfigIssue } from '../core/errors.js';
import type { ResolvedScenario } from '../scenario/index.js';
import { type ParsedThreshold, parseThreshold } from '../slo/index.js';

/** Parsed thresholds: all of them, and those that stop the run early when they fail. */
export interface RunThresholds {
  readonly all: readonly ParsedThreshold[];
  readonly abortOnFail: readonly ParsedThreshold[];
  /** Per abort-on-fail threshold key: time from the run's start before it is judged (ms). */
  readonly abortDelayMs?: ReadonlyMap<string, number>;
}

/** Parses every threshold of the scenario; throws one ConfigError naming each bad one. */
export function parseScenarioThresholds(scenario: ResolvedScenario): RunThresholds {
  const all: ParsedThreshold[] = [];
  const abortOnFail: ParsedThreshold[] = [];
  const issues: ConfigIssue[] = [];
  for (const t of scenario.thresholds) {
    const parsed = parseThreshold(t.key, t.expr);
    if (!parsed.ok) {
      issues.push({ path: `thresholds["${t.key}"]`, message: parsed.error });
      continue;
    }
    all.push(parsed.threshold);
    if (t.abortOnFail) abortOnFail.push(parsed.threshold);
  }
  if (issues.length > 0) throw new ConfigError(issues, `scenario "${scenario.name}"`);
  return { all, abortOnFail };
}
