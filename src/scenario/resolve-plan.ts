/**
 * `resolveRunPlan`: a file's value as a single scenario, or as several named `scenarios` that
 * run at once (tenants: each its own tier, token environment variable, executor, start). Every
 * problem of every scenario is reported by its path in one `ConfigError`.
 */
import { ConfigError, type ConfigIssue } from '../core/errors.js';
import { parseDurationMs } from '../core/units.js';
import { DEFAULT_OBJECTIVE } from '../slo/budget.js';
import { defaultThresholds, readingGuard, resolveScenario, type ResolveOptions } from './resolve.js';
import type { ResolvedRunPlan } from './run-plan.js';
import { unknownKeyMessage } from './unknown-keys.js';
import { k6ArrayHint } from '../slo/k6-thresholds.js';
import type { ResolvedScenario, ResolvedThreshold, ScenarioOverrides } from './types.js';
import { isRecord } from '../core/is-record.js';
import { checkThresholds, rawThresholdEntries, rawTraffic } from './threshold-check.js';

/** Fields of a plan's top level; each entry of `scenarios` is a scenario without `name`. */
const PLAN_FIELDS = new Set(['name', 'description', 'scenarios', 'thresholds', 'slo', 'seed']);
/** Fields a plan's scenario has besides a scenario's own. */
const TENANT_FIELDS = new Set(['tokenEnv', 'startAfter']);
const NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const MAX_SCENARIOS = 20;

/** An override's problem is found once per scenario: say it once. */
function dedupe(issues: readonly ConfigIssue[]): ConfigIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = `${i.path}\u0000${i.message}`;
    return seen.has(k) ? false : (seen.add(k), true);
  });
}

/** True when a file's value is a plan of several scenarios. */
export function isPlanInput(raw: unknown): boolean {
  return isRecord(raw) && 'scenarios' in raw;
}

function thresholdsOf(raw: unknown, path: string, issues: ConfigIssue[]): ResolvedThreshold[] {
  if (raw === undefined) return [];
  if (!isRecord(raw)) {
    issues.push({ path, message: 'must be an object of "<metric>": "<expression>"' });
    return [];
  }
  const out: ResolvedThreshold[] = [];
  for (const [key, v] of Object.entries(raw)) {
    if (typeof v === 'string') out.push({ key, expr: v, abortOnFail: false });
    else if (isRecord(v) && typeof v.expr === 'string') {
      const delay = v.delayAbortEval === undefined ? undefined : parseDurationMs(v.delayAbortEval);
      if (v.delayAbortEval !== undefined && (delay === undefined || delay < 0)) issues.push({ path: `${path}["${key}"].delayAbortEval`, message: 'must be a duration such as "10s"' });
      out.push({ key, expr: v.expr, abortOnFail: v.abortOnFail === true, ...(delay !== undefined && delay >= 0 ? { delayAbortEvalMs: delay } : {}) });
    }
    else issues.push({ path: `${path}["${key}"]`, message: Array.isArray(v) ? k6ArrayHint(key, v) : 'must be an expression such as "<2s", or { expr, abortOnFail }' });
  }
  return out;
}

/** True when a scenario's own defaults (each is resolved without thresholds) judge `key`: its traffic calls for it. */
const implicitIn = (scenarios: readonly ResolvedScenario[], key: string): boolean => scenarios.some((s) => s.thresholds.some((t) => t.implicit === true && t.key === key));

/**
 * Resolves a single scenario, or a plan of several. Throws `ConfigError` with every problem,
 * by path (`scenarios.free.load.rate: …`).
 */
export function resolveRunPlan(raw: unknown, overrides: ScenarioOverrides = {}, options: ResolveOptions = {}): ResolvedScenario | ResolvedRunPlan {
  return readingGuard(() => resolvePlanChecked(raw, overrides, options), raw, options.source);
}

function resolvePlanChecked(raw: unknown, overrides: ScenarioOverrides, options: ResolveOptions): ResolvedScenario | ResolvedRunPlan {
  if (!isPlanInput(raw)) return resolveScenario(raw, overrides, options);
  const input = raw as Record<string, unknown>;
  const issues: ConfigIssue[] = [];
  for (const k of Object.keys(input)) if (!PLAN_FIELDS.has(k)) issues.push({ path: k, message: unknownKeyMessage(k, `allowed in a run of several scenarios: ${[...PLAN_FIELDS].join(', ')}`, false) });
  const name = input.name;
  if (typeof name !== 'string' || !NAME.test(name)) issues.push({ path: 'name', message: 'must be lower-case letters, digits and dashes (1–63)' });
  const objectiveRaw = isRecord(input.slo) ? input.slo.objective : undefined;
  const objective = typeof objectiveRaw === 'number' ? objectiveRaw : DEFAULT_OBJECTIVE;
  if (!(objective > 0 && objective < 1)) issues.push({ path: 'slo.objective', message: 'must be a ratio between 0 and 1, e.g. 0.999' });

  const entries = isRecord(input.scenarios) ? Object.entries(input.scenarios) : [];
  if (!isRecord(input.scenarios) || entries.length === 0) issues.push({ path: 'scenarios', message: 'must name at least one scenario: { "<name>": { tier, load, mix | journey | steps } }' });
  if (entries.length > MAX_SCENARIOS) issues.push({ path: 'scenarios', message: `at most ${MAX_SCENARIOS} scenarios run at once, got ${entries.length}` });

  const scenarios: ResolvedScenario[] = [];
  const thresholds = thresholdsOf(input.thresholds, 'thresholds', issues);
  // No thresholds anywhere: the whole run is judged on the defaults.
  const implicit = input.thresholds === undefined && entries.every(([, v]) => !isRecord(v) || v.thresholds === undefined);
  const tokenEnv: Record<string, string> = {};
  for (const [key, value] of entries.slice(0, MAX_SCENARIOS)) {
    const at = `scenarios.${key}`;
    if (!NAME.test(key)) issues.push({ path: at, message: 'a scenario name is lower-case letters, digits and dashes (1–63)' });
    if (!isRecord(value)) {
      issues.push({ path: at, message: 'must be a scenario: { tier, load, mix | journey | steps }' });
      continue;
    }
    if ('token' in value) {
      issues.push({ path: `${at}.token`, message: 'a token does not belong in a scenario file: name the environment variable that holds it, e.g. "tokenEnv": "FREE_TOKEN"' });
    }
    if (value.tokenEnv !== undefined) {
      if (typeof value.tokenEnv === 'string' && ENV_NAME.test(value.tokenEnv)) tokenEnv[key] = value.tokenEnv;
      else issues.push({ path: `${at}.tokenEnv`, message: 'must be the name of an environment variable, e.g. FREE_TOKEN' });
    }
    let startAfterMs: number | undefined;
    if (value.startAfter !== undefined) {
      startAfterMs = parseDurationMs(value.startAfter);
      if (startAfterMs === undefined || startAfterMs < 0) issues.push({ path: `${at}.startAfter`, message: 'must be a duration such as "30s"' });
    }
    const own = Object.fromEntries(Object.entries(value).filter(([k]) => !TENANT_FIELDS.has(k) && k !== 'token' && k !== 'thresholds'));
    for (const t of thresholdsOf(value.thresholds, `${at}.thresholds`, issues)) thresholds.push({ ...t, key: `${key}:${t.key}` });
    try {
      const s = resolveScenario({ ...own, name: key, ...(input.seed !== undefined && own.seed === undefined ? { seed: input.seed } : {}) }, overrides, options);
      scenarios.push(Object.freeze({ ...s, objective, ...(startAfterMs !== undefined ? { startAfterMs } : {}) }));
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      issues.push(...err.issues.map((i) => ({ ...i, path: i.path.startsWith('overrides') || i.path.startsWith('--') ? i.path : `${at}${i.path === '' ? '' : `.${i.path}`}` })));
    }
  }
  // Every threshold, the plan's and each scenario's (scoped to it), against the traffic it judges.
  const members = entries.slice(0, MAX_SCENARIOS).filter(([, v]) => isRecord(v));
  const thresholdEntries = [
    ...rawThresholdEntries(input.thresholds, ['thresholds']),
    ...members.flatMap(([key, v]) => rawThresholdEntries((v as Record<string, unknown>).thresholds, ['scenarios', key, 'thresholds'], key)),
  ];
  issues.push(...checkThresholds(thresholdEntries, members.map(([key, v]) => rawTraffic(key, v))).issues);
  if (issues.length > 0) throw new ConfigError(dedupe(issues), options.source === undefined ? `run "${String(name)}"` : `run in ${options.source}`);
  return Object.freeze({
    kind: 'plan' as const,
    name: name as string,
    description: typeof input.description === 'string' ? input.description : '',
    scenarios,
    thresholds: implicit ? defaultThresholds(objective, { iterations: implicitIn(scenarios, 'iterations.failed'), checks: implicitIn(scenarios, 'checks') }) : thresholds,
    objective,
    tokenEnv,
    ...(options.source !== undefined ? { source: options.source } : {}),
  });
}
