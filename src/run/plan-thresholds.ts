/**
 * A plan's thresholds, parsed once with the slo grammar before any request is sent, so a typo
 * is a config error (exit 2) and not a failed run. A key `<scenario>:<metric>` is judged on
 * that scenario's figures; its scenario must exist.
 */
import { ConfigError, type ConfigIssue } from '../core/errors.js';
import type { ResolvedRunPlan, ResolvedScenario } from '../scenario/index.js';
import { type MetricKey, type ParsedThreshold, parseThreshold, splitThresholdKey } from '../slo/index.js';
import type { RunThresholds } from './thresholds.js';

/**
 * Why a threshold could never be observed in these scenarios, or undefined. Only mixes are
 * known before the run: a journey may send any operation.
 */
function neverObserved(metric: MetricKey, scenarios: readonly ResolvedScenario[]): string | undefined {
  if (scenarios.some((s) => s.journey !== undefined)) return undefined;
  const ops = [...new Set(scenarios.flatMap((s) => s.mix.map((e) => e.op)))];
  const mixes = `the mix sends ${ops.join(', ')}`;
  if (metric.kind === 'latency' && !ops.includes(metric.op)) return `${metric.op} is not in the mix, so this would never be observed; ${mixes}`;
  if (metric.kind === 'stream' && !ops.includes('stream')) return `no stream is in the mix, so this would never be observed; ${mixes}`;
  if (metric.kind === 'iterationsFailed' || metric.kind === 'iterationDuration' || metric.kind === 'checks') {
    return 'iterations and checks come from a journey or steps; this scenario is a mix';
  }
  return undefined;
}

/** Parses every threshold of the plan; throws one ConfigError naming each bad one. */
export function parsePlanThresholds(plan: ResolvedRunPlan): RunThresholds {
  const all: ParsedThreshold[] = [];
  const abortOnFail: ParsedThreshold[] = [];
  const abortDelayMs = new Map<string, number>();
  const issues: ConfigIssue[] = [];
  const names = plan.scenarios.map((s) => s.name);
  for (const t of plan.thresholds) {
    // The grammar reads the key (scope and metric) once; the parsed threshold carries both.
    const { scope, metricKey } = splitThresholdKey(t.key);
    if (scope !== undefined && (names.length === 1 || !names.includes(scope))) {
      issues.push({ path: `thresholds["${t.key}"]`, message: names.length === 1 ? `"${scope}:" scopes a threshold to one scenario of several; this run has one: write "${metricKey}"` : `no scenario "${scope}"; scenarios: ${names.join(', ')}` });
      continue;
    }
    const judged = scope === undefined ? plan.scenarios : plan.scenarios.filter((s) => s.name === scope);
    const ops = judged.some((s) => s.journey !== undefined) ? undefined : [...new Set(judged.flatMap((s) => s.mix.map((e) => e.op)))];
    const parsed = parseThreshold(t.key, t.expr, ops === undefined ? {} : { ops });
    if (!parsed.ok) {
      issues.push({ path: `thresholds["${t.key}"]`, message: parsed.error });
      continue;
    }
    const absent = neverObserved(parsed.threshold.metric, scope === undefined ? plan.scenarios : plan.scenarios.filter((s) => s.name === scope));
    if (absent !== undefined) {
      issues.push({ path: `thresholds["${t.key}"]`, message: absent });
      continue;
    }
    const threshold = t.implicit === true ? { ...parsed.threshold, implicit: true } : parsed.threshold;
    all.push(threshold);
    if (t.abortOnFail) abortOnFail.push(threshold);
    if (t.abortOnFail && (t.delayAbortEvalMs ?? 0) > 0) abortDelayMs.set(threshold.key, t.delayAbortEvalMs ?? 0);
  }
  if (issues.length > 0) throw new ConfigError(issues, `scenario "${plan.name}"`);
  return { all, abortOnFail, abortDelayMs };
}
