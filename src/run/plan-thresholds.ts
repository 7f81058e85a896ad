/**
 * A plan's thresholds, parsed once with the slo grammar before any request is sent, so a typo
 * is a config error (exit 2) and not a failed run. A key `<scenario>:<metric>` is judged on
 * that scenario's figures; its scenario must exist. The checks are scenario validation's own
 * (`checkThresholds`): a plan that resolved has none left to fail, one built in code may.
 */
import { ConfigError } from '../core/errors.js';
import { checkThresholds, type ResolvedRunPlan } from '../scenario/index.js';
import type { ParsedThreshold } from '../slo/index.js';
import type { RunThresholds } from './thresholds.js';

/** Parses every threshold of the plan; throws one ConfigError naming each bad one. */
export function parsePlanThresholds(plan: ResolvedRunPlan): RunThresholds {
  const traffic = plan.scenarios.map((s) => ({ name: s.name, ops: s.journey !== undefined ? undefined : [...new Set(s.mix.map((e) => e.op))] }));
  const checked = checkThresholds(plan.thresholds.map((t) => ({ path: `thresholds["${t.key}"]`, key: t.key, expr: t.expr })), traffic);
  if (checked.issues.length > 0) throw new ConfigError(checked.issues, `scenario "${plan.name}"${plan.source === undefined ? '' : ` (${plan.source})`}`);
  const all: ParsedThreshold[] = [];
  const abortOnFail: ParsedThreshold[] = [];
  const abortDelayMs = new Map<string, number>();
  plan.thresholds.forEach((t, i) => {
    const parsed = checked.parsed[i] as ParsedThreshold;
    const threshold = t.implicit === true ? { ...parsed, implicit: true } : parsed;
    all.push(threshold);
    if (t.abortOnFail) abortOnFail.push(threshold);
    if (t.abortOnFail && (t.delayAbortEvalMs ?? 0) > 0) abortDelayMs.set(threshold.key, t.delayAbortEvalMs ?? 0);
  });
  return { all, abortOnFail, abortDelayMs };
}
