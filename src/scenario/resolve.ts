/**
 * `resolveScenario`: validates a raw scenario (from any file format) and fills every default.
 * Every problem, with its path, goes into one `ConfigError`.
 */
import { DEFAULT_OBJECTIVE } from '../slo/budget.js';
import { ConfigError, type ConfigIssue } from '../core/errors.js';
import { type Tier, tierLimitPerMinute } from '../core/tiers.js';
import { parsePercent, parseRatePerS } from '../core/units.js';
import { OPS, type OpName } from '../core/ops.js';
import { DEFAULT_SEED } from '../load/create-executor.js';
import { toConfigIssues, zodErrorMap } from './issues.js';
import { resolveLoad, type LoadOverrides as CheckedOverrides } from '../load/index.js';
import { dirname, isAbsolute, resolve as resolvePath } from 'node:path';
import { MAX_DURATION_MS, MAX_IN_FLIGHT, MAX_RATE_PER_S, RATE_FORMS, type ParsedScenario, type RateSpec, scenarioSchema, show, tierSchema } from './schema.js';
import type { ParsedData, ResolvedData } from './data-schema.js';
import type { ParsedStep } from './steps-schema.js';
import { compileSteps } from './steps.js';
import { checkThresholds, rawThresholdEntries, rawTraffic } from './threshold-check.js';
import type { TokenizerName } from './tokenizer.js';
import { defaultPromptBands } from '../collect/prompt-length.js';
import type { Journey } from './journey.js';
import type { ResolvedMixEntry, ResolvedScenario, ResolvedThreshold, ScenarioOverrides } from './types.js';
import { isRecord } from '../core/is-record.js';

/** Options of `resolveScenario` that are not about the scenario's content. */
export interface ResolveOptions {
  /** Where the scenario came from, kept in the result and named in the error. */
  readonly source?: string;
}

/**
 * Validates `raw` and resolves it with `overrides` applied. Throws `ConfigError` listing every
 * problem (paths like `mix[2].weight`, overrides as `overrides.rate`); throws nothing else.
 */
export function resolveScenario(raw: unknown, overrides: ScenarioOverrides = {}, options: ResolveOptions = {}): ResolvedScenario {
  return readingGuard(() => resolveChecked(raw, overrides, options), raw, options.source);
}

/**
 * Runs `read` and turns anything it throws that is not a ConfigError into one: a scenario
 * module's getter or proxy that throws is the file's problem, never a crash.
 */
export function readingGuard<T>(read: () => T, raw: unknown, source: string | undefined): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError([{ path: '', message: `reading the scenario threw: ${err instanceof Error ? err.message : String(err)}` }], subject(raw, source));
  }
}

function resolveChecked(raw: unknown, overrides: ScenarioOverrides, options: ResolveOptions): ResolvedScenario {
  const issues: ConfigIssue[] = [];
  const checked = checkOverrides(overrides, issues);
  const input = checked.tier !== undefined && isRecord(raw) ? { ...raw, tier: checked.tier } : raw;
  const parsed = scenarioSchema.safeParse(input, { error: zodErrorMap, reportInput: true });
  // The thresholds' keys and expressions are checked whatever else is wrong: every problem at once.
  const thresholdIssues = isRecord(raw) ? checkThresholds(rawThresholdEntries(raw.thresholds, ['thresholds']), [rawTraffic(typeof raw.name === 'string' ? raw.name : 'scenario', raw)]).issues : [];
  if (!parsed.success) {
    if (!isRecord(raw)) {
      issues.unshift({
        path: '',
        message: `a scenario must be an object such as defineScenario({ name, tier, load, mix }), got ${show(raw)}`,
      });
    } else {
      issues.unshift(...toConfigIssues(parsed.error.issues, [], raw));
    }
    throw new ConfigError([...issues, ...thresholdIssues], subject(raw, options.source));
  }
  issues.push(...thresholdIssues);
  const s = parsed.data;
  const tier: Tier = s.tier;
  const limit = tierLimitPerMinute(tier);
  const load = resolveLoad(s.load, limit, checked, issues);
  let journey: Journey | undefined = s.journey;
  if (s.steps !== undefined) {
    const compiled = compileSteps(s.steps);
    issues.push(...compiled.issues);
    journey = compiled.journey;
  }
  if (issues.length > 0) throw new ConfigError(issues, subject(raw, options.source));

  const entries = s.mix ?? [];
  const total = entries.reduce((sum, e) => sum + e.weight, 0);
  const mix: ResolvedMixEntry[] = entries.map((e) =>
    Object.freeze({
      op: e.op,
      weight: e.weight / total,
      flowId: e.flowId,
      input: e.input,
      sessionId: e.sessionId,
      query: e.query,
      negative: e.negative,
    }),
  );
  const objective = s.slo?.objective ?? DEFAULT_OBJECTIVE;
  const thresholds: ResolvedThreshold[] =
    s.thresholds === undefined
      ? defaultThresholds(objective, { iterations: journey !== undefined, checks: s.journey !== undefined || (s.steps !== undefined && stepsCheck(s.steps)) })
      : Object.entries(s.thresholds).map(([key, t]) =>
          Object.freeze({ key, expr: t.expr, abortOnFail: t.abortOnFail ?? false, ...(t.delayAbortEval !== undefined ? { delayAbortEvalMs: t.delayAbortEval } : {}) }),
        );
  const resolved: ResolvedScenario = {
    name: s.name,
    description: s.description ?? '',
    tier,
    tierLimitPerMinute: limit,
    load: deepFreezeLoad(load),
    mix: Object.freeze(mix),
    thresholds: Object.freeze(thresholds),
    seed: s.seed ?? DEFAULT_SEED,
    deadlinesMs: deadlinesOf(s.timeouts),
    validate: s.validate ?? 'full',
    objective: s.slo?.objective ?? DEFAULT_OBJECTIVE,
    ...(options.source === undefined ? {} : { source: options.source }),
    ...(journey !== undefined ? { journey } : {}),
    ...(s.data !== undefined ? { data: resolveData(s.data, options.source) } : {}),
    ...promptsOf(s),
  };
  return Object.freeze(resolved);
}

/** Each operation's deadline: its own, else `request`; none listed when neither was written. */
function deadlinesOf(t: ParsedScenario['timeouts']): Readonly<Partial<Record<OpName, number>>> {
  const out: Partial<Record<OpName, number>> = {};
  if (t === undefined) return Object.freeze(out);
  for (const op of OPS) {
    const ms = t[op] ?? t.request;
    if (ms !== undefined) out[op] = ms;
  }
  return Object.freeze(out);
}

function checkOverrides(overrides: ScenarioOverrides, issues: ConfigIssue[]): CheckedOverrides & { tier: Tier | undefined } {
  let tier: Tier | undefined;
  let durationMs: number | undefined;
  let rate: RateSpec | undefined;
  let maxInFlight: number | undefined;
  if (!isRecord(overrides)) {
    issues.push({ path: 'overrides', message: 'must be an object' });
    return { durationMs, rate, maxInFlight, tier };
  }
  // Overrides come from flags or other code: check them as unknown values.
  const o: Record<string, unknown> = overrides;
  if (o.durationMs !== undefined) {
    if (typeof o.durationMs !== 'number' || !(o.durationMs > 0) || o.durationMs > MAX_DURATION_MS) {
      issues.push({
        path: 'overrides.durationMs',
        message: `must be a number of ms > 0 and at most 90d, got ${show(o.durationMs)}`,
      });
    } else durationMs = o.durationMs;
  }
  if (o.rate !== undefined) {
    const perS = parseRatePerS(o.rate);
    const fraction = perS === undefined ? parsePercent(o.rate) : undefined;
    const value = perS ?? fraction;
    if (value === undefined || !(value > 0) || !Number.isFinite(value)) {
      issues.push({ path: 'overrides.rate', message: `${show(o.rate)} is not a rate > 0; use ${RATE_FORMS}` });
    } else if (perS !== undefined && perS > MAX_RATE_PER_S) {
      issues.push({ path: 'overrides.rate', message: `must be at most ${MAX_RATE_PER_S}/s: one process cannot schedule more (run shards)` });
    } else rate = perS !== undefined ? { perS } : { fraction: value };
  }
  if (o.maxInFlight !== undefined) {
    if (typeof o.maxInFlight !== 'number' || !Number.isInteger(o.maxInFlight) || o.maxInFlight < 1 || o.maxInFlight > MAX_IN_FLIGHT) {
      issues.push({ path: 'overrides.maxInFlight', message: `must be an integer from 1 to ${MAX_IN_FLIGHT}, got ${show(o.maxInFlight)}` });
    } else maxInFlight = o.maxInFlight;
  }
  if (o.tier !== undefined) {
    const t = tierSchema.safeParse(o.tier, { error: zodErrorMap, reportInput: true });
    if (t.success) tier = t.data;
    else issues.push(...toConfigIssues(t.error.issues, ['overrides', 'tier']));
  }
  return { durationMs, rate, maxInFlight, tier };
}

/** What the default thresholds judge besides requests: a journey's iterations, and checks. */
export interface DefaultThresholdsFor {
  /** The traffic is a journey (code or steps): no iteration may fail. */
  readonly iterations?: boolean;
  /** It makes (or, in code, may make) checks: at least 99.9 % of them must pass. */
  readonly checks?: boolean;
}

/** The pass rate the default `checks` threshold asks for. */
const DEFAULT_CHECKS_EXPR = '>=99.9%';

/**
 * What a scenario without `thresholds` is judged on: availability against its objective and no
 * premature throttling (a run is never a bare PASS); with a journey, no failed iteration and
 * checks passing at `DEFAULT_CHECKS_EXPR`. An explicit `thresholds: {}` has none.
 */
export function defaultThresholds(objective: number, traffic: DefaultThresholdsFor = {}): ResolvedThreshold[] {
  return [
    Object.freeze({ key: 'availability', expr: `>=${Math.round(objective * 1e6) / 1e4}%`, abortOnFail: false, implicit: true }),
    Object.freeze({ key: 'ratelimit.premature429', expr: '==0', abortOnFail: false, implicit: true }),
    ...(traffic.iterations === true ? [Object.freeze({ key: 'iterations.failed', expr: '==0', abortOnFail: false, implicit: true })] : []),
    ...(traffic.checks === true ? [Object.freeze({ key: 'checks', expr: DEFAULT_CHECKS_EXPR, abortOnFail: false, implicit: true })] : []),
  ];
}

/** True when a step of `steps`, at any depth, checks its answer. */
function stepsCheck(steps: readonly ParsedStep[]): boolean {
  return steps.some((st) => ('repeat' in st ? stepsCheck(st.steps) : 'op' in st && Object.keys(st.check ?? {}).length > 0));
}

/**
 * The unit of prompt lengths: the scenario's `tokenizer`, else that of its synthetic prompts,
 * else words; and its bands (0 put first when the first bound is above it). Left out when the
 * scenario chose neither, so the defaults apply.
 */
function promptsOf(s: ParsedScenario): { tokenizer?: TokenizerName; promptBands?: readonly number[] } {
  const synthetic = s.data?.synthetic;
  const tokenizer = s.tokenizer ?? (synthetic !== undefined && 'promptTokens' in synthetic ? (synthetic.tokenizer ?? 'words') : undefined);
  if (tokenizer === undefined && s.promptBands === undefined) return {};
  const unit = tokenizer ?? 'words';
  const bands = s.promptBands === undefined ? defaultPromptBands(unit) : s.promptBands[0] === 0 ? s.promptBands : [0, ...s.promptBands];
  return { tokenizer: unit, promptBands: Object.freeze([...bands]) };
}

/** A data file is relative to the scenario file that names it (to the working directory without one). */
function resolveData(d: ParsedData, source: string | undefined): ResolvedData {
  if (d.synthetic !== undefined && 'promptTokens' in d.synthetic) {
    const t = d.synthetic;
    const lengths = typeof t.promptTokens === 'number' ? [t.promptTokens] : t.promptTokens;
    return Object.freeze({
      kind: 'synthetic-tokens',
      promptTokens: Object.freeze([...lengths]),
      tokenizer: t.tokenizer ?? 'words',
      ...(t.outputTokens !== undefined && t.outputTokensVar !== undefined ? { output: Object.freeze({ tokens: t.outputTokens, variable: t.outputTokensVar }) } : {}),
    });
  }
  if (d.synthetic !== undefined) {
    const w = d.synthetic.words;
    const min = w.min ?? 1;
    const max = Math.max(min, w.max ?? Math.ceil(w.mean * 4));
    return Object.freeze({ kind: 'synthetic', words: Object.freeze({ mean: w.mean, sd: w.sd ?? 0, min, max }) });
  }
  const file = d.file as string;
  const path = isAbsolute(file) ? file : resolvePath(source === undefined ? '.' : dirname(resolvePath(source)), file);
  return Object.freeze({ kind: 'file', path, order: d.order ?? 'sequential' });
}

function subject(raw: unknown, source: string | undefined): string {
  let name = '';
  try {
    name = isRecord(raw) && typeof raw.name === 'string' ? ` "${raw.name.slice(0, 60)}"` : '';
  } catch {
    // A getter that throws: the file is named by its path alone.
  }
  return `scenario${name}${source === undefined ? '' : ` (${source})`}`;
}

/** Freezes a resolved load and every list in it (a ramp's stages), whatever its executor. */
function deepFreezeLoad<T extends object>(load: T): T {
  for (const v of Object.values(load)) {
    if (!Array.isArray(v)) continue;
    for (const x of v) if (typeof x === 'object' && x !== null) Object.freeze(x);
    Object.freeze(v);
  }
  return Object.freeze(load);
}
