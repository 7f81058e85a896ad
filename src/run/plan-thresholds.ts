/**
 * A plan's thresholds, parsed once with the slo grammar before any request is sent, so a typo
 * is a config error (exit 2) and not a failed run. A key `<scenario>:<metric>` is judged on
 * that scenario's figures; its scenario must exist.
 */
import { ConfigError, type ConfigIssue } from '../core/errors.js';
import type { ResolvedRunPlan } from '../scenario/index.js';
import { type ParsedThreshold, parseThreshold } from '../slo/index.js';
import type { RunThresholds } from './thresholds.js';

/** Parses every threshold of the plan; throws one ConfigError naming each bad one. */
export function parsePlanThresholds(plan: ResolvedRunPlan): RunThresholds {
  const all: ParsedThreshold[] = [];
  const abortOnFail: ParsedThreshold[] = [];
  const issues: ConfigIssue[] = [];
  const names = plan.scenarios.map((s) => s.name);
  for (const t of plan.thresholds) {
    const colon = t.key.indexOf(':');
    const scope = colon > 0 ? t.key.slice(0, colon).trim() : undefined;
    const metricKey = scope === undefined ? t.key : t.key.slice(colon + 1);
    if (scope !== undefined && (names.length === 1 || !names.includes(scope))) {
      issues.push({ path: `thresholds["${t.key}"]`, message: names.length === 1 ? `"${scope}:" scopes a threshold to one scenario of several; this run has one: write "${metricKey.trim()}"` : `no scenario "${scope}"; scenarios: ${names.join(', ')}` });
      continue;
    }
    const parsed = parseThreshold(metricKey, t.expr);
    if (!parsed.ok) {
      issues.push({ path: `thresholds["${t.key}"]`, message: parsed.error });
      continue;
    }
    const threshold = scope === undefined ? parsed.threshold : { ...parsed.threshold, key: `${scope}:${parsed.threshold.key}` };
    all.push(threshold);
    if (t.abortOnFail) abortOnFail.push(threshold);
  }
  if (issues.length > 0) throw new ConfigError(issues, `scenario "${plan.name}"`);
  return { all, abortOnFail };
}
