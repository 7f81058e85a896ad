/**
 * Checking thresholds against the traffic they judge: each key's scope names a scenario of the
 * run, its metric is one the grammar reads and the traffic can show, its expression fits the
 * metric's unit. Scenario validation runs it beside the schema, so every problem of a file
 * (thresholds included) is reported at once, each at its path; the run parses its plan's
 * thresholds with it too, so the two cannot disagree. Pure.
 */
import type { ConfigIssue } from '../core/errors.js';
import type { OpName } from '../core/ops.js';
import { splitThresholdKey } from '../slo/threshold-grammar.js';
import { parseThreshold, type ParsedThreshold } from '../slo/thresholds.js';
import { isRecord } from '../core/is-record.js';
import { formatPath } from './issues.js';

/** One scenario's traffic as thresholds see it. */
export interface ThresholdTraffic {
  readonly name: string;
  /** The operations its mix sends; undefined for a journey or steps, which may send anything. */
  readonly ops: readonly OpName[] | undefined;
}

/** A threshold as the file wrote it, and where. */
export interface ThresholdEntry {
  /** Where it is in the file: `thresholds["run.latency.p99"]`, `scenarios.free.thresholds.checks`. */
  readonly path: string;
  /** The key it is judged under (scoped `<scenario>:` when it sits in a scenario of a plan). */
  readonly key: string;
  readonly expr: string;
}

/** What `checkThresholds` found: the parsed threshold of each entry (undefined where it had a problem), and the problems. */
export interface ThresholdCheck {
  readonly parsed: readonly (ParsedThreshold | undefined)[];
  readonly issues: readonly ConfigIssue[];
}

/** The operations a raw scenario's mix sends; undefined when it has a journey or steps (or no readable mix). */
export function rawTraffic(name: string, raw: unknown): ThresholdTraffic {
  if (!isRecord(raw) || raw.journey !== undefined || raw.steps !== undefined || !Array.isArray(raw.mix)) return { name, ops: undefined };
  const ops = new Set<OpName>();
  for (const e of raw.mix as unknown[]) {
    const op = isRecord(e) ? e.op : undefined;
    if (typeof op !== 'string') return { name, ops: undefined };
    ops.add(op as OpName);
  }
  return { name, ops: ops.size === 0 ? undefined : [...ops] };
}

/**
 * The thresholds a raw `thresholds` object holds in a form the schema takes (an expression, or
 * `{ expr }`): the rest is the schema's to report. `scope` prefixes each key (a plan's scenario).
 */
export function rawThresholdEntries(raw: unknown, at: readonly PropertyKey[], scope?: string): ThresholdEntry[] {
  if (!isRecord(raw)) return [];
  const out: ThresholdEntry[] = [];
  for (const [key, v] of Object.entries(raw)) {
    const expr = typeof v === 'string' ? v : isRecord(v) && typeof v.expr === 'string' ? v.expr : undefined;
    if (expr === undefined || expr.trim() === '' || key === '') continue;
    out.push({ path: formatPath([...at, key]), key: scope === undefined ? key : `${scope}:${key}`, expr });
  }
  return out;
}

/**
 * Checks every entry against `traffic` (the run's scenarios). A key scoped `<scenario>:` must
 * name one of several scenarios; its metric is judged against that scenario's traffic alone.
 */
export function checkThresholds(entries: readonly ThresholdEntry[], traffic: readonly ThresholdTraffic[]): ThresholdCheck {
  const names = traffic.map((t) => t.name);
  const issues: ConfigIssue[] = [];
  const opsByScope = new Map<string | undefined, readonly OpName[] | undefined>();
  const opsOf = (scope: string | undefined): readonly OpName[] | undefined => {
    if (!opsByScope.has(scope)) {
      const judged = scope === undefined ? traffic : traffic.filter((t) => t.name === scope);
      opsByScope.set(scope, judged.some((t) => t.ops === undefined) ? undefined : [...new Set(judged.flatMap((t) => t.ops ?? []))]);
    }
    return opsByScope.get(scope);
  };
  const parsed = entries.map((e): ParsedThreshold | undefined => {
    const { scope, metricKey } = splitThresholdKey(e.key);
    if (scope !== undefined && (names.length === 1 || !names.includes(scope))) {
      issues.push({ path: e.path, message: names.length === 1 ? `"${scope}:" scopes a threshold to one scenario of several; this run has one: write "${metricKey}"` : `no scenario "${scope}"; scenarios: ${names.join(', ')}` });
      return undefined;
    }
    const ops = opsOf(scope);
    const r = parseThreshold(e.key, e.expr, ops === undefined ? {} : { ops });
    if (r.ok) return r.threshold;
    issues.push({ path: e.path, message: r.error, ...(r.allowed !== undefined ? { allowed: r.allowed } : {}) });
    return undefined;
  });
  return { parsed, issues };
}
