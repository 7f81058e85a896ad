/**
 * The running state of one run and the only path a result takes into it: judged by its
 * scenario's collectors, added to the run's total, then handed to phases and outputs as a frozen sample.
 * Mix requests and journey requests go through `record` alike, so both count the same way.
 */
import { createTransportError, DEFAULT_REQUEST_MS, errorCodeOf, type ApiResult, type StreamResult } from '../api/index.js';
import type { Clock } from '../core/clock.js';
import type { OpName } from '../core/ops.js';
import { createCollectors, createIterationStats, createRateLimitAnalyser, defaultPromptBands, type Collectors, type IterationStats, type RateLimitAnalyser } from '../collect/index.js';
import type { AsyncEnd, CheckSample, IterationSample, RequestHook, RequestStart, RunSample, SampleListener } from './events.js';
import type { TokenCounter } from '../scenario/index.js';
import { requestSample, runSample, type SampleContext } from './sample.js';

/** The state of one scenario. */
export interface ScenarioState {
  readonly name: string;
  readonly collectors: Collectors;
  readonly iterations: IterationStats;
  /** The tenant (token) it sends as: the first scenario of the plan with that token. */
  readonly tenant: string;
  /** The tenant's requests sent and not yet recorded: the rate-limit analyser's uncertainty about order. */
  readonly flight: { n: number };
  /** What its streams' prompts and outputs are counted in (the scenario's tokenizer; words when absent). */
  readonly counter?: TokenCounter;
}

/** What the engine records into. */
export interface RunState {
  readonly scenarios: readonly ScenarioState[];
  /** The whole run: the single scenario's own state when there is one. */
  readonly total: ScenarioState;
  /** Requests the user's stop (Ctrl-C, abort-on-fail) cut at the end of its grace period, counted apart: they say nothing of the service. */
  readonly cancelled: () => number;
  /**
   * Requests still open when the grace period after the schedule ended, within their own
   * deadline: cut by the run, not failed by the target, so counted apart and judged no further.
   */
  readonly cut: () => number;
  /** Hooks of what acts before a request is sent (tracing, following); undefined when none does. */
  hook(r: RequestStart): RequestHook | undefined;
  /**
   * Records one result. `cutByStop` is true when the run's own stop signal aborted it: such a
   * request is counted as cancelled (the user's stop) or cut (the end of the grace period) and
   * judged no further, unless it had already passed its own deadline (`deadlineMs`, the call's;
   * absent: the client's default), which is the target's `TIMEOUT`.
   */
  record(
    scenario: ScenarioState,
    ctx: SampleContext,
    result: ApiResult<unknown> | StreamResult,
    hook: RequestHook | undefined,
    cutByStop: boolean,
    deadlineMs?: number,
  ): void;
  iterationStarted(scenario: ScenarioState): void;
  iteration(scenario: ScenarioState, i: IterationSample): void;
  check(scenario: ScenarioState, c: CheckSample): void;
  step(scenario: ScenarioState, name: string, durationNs: number): void;
  asyncEnd(e: AsyncEnd): void;
}

/** Options of `createRunState`. */
export interface RunStateOptions {
  readonly scenarios: readonly string[];
  readonly clock: Clock;
  readonly runStartNs: number;
  readonly runStartWallMs: number;
  readonly objective: number;
  /** The phases' and outputs' hooks, in order. */
  readonly listeners: readonly SampleListener[];
  /**
   * True once the run was stopped by its user (Ctrl-C) or an abort-on-fail threshold: requests
   * that stop cuts are cancelled (excluded, counted). Otherwise a request still open when the
   * grace period ends is cut (excluded, counted), or `TIMEOUT` when past its own deadline.
   */
  readonly stoppedByUser?: () => boolean;
  /** Processes sending with the same tokens (workers × shards), this one included (default 1). */
  readonly sharers?: number;
  /** The tenant of each scenario (scenarios with one token share a rate-limit analyser); each its own by default. */
  readonly tenantOf?: (scenario: string) => string;
  /** A scenario's tier as a contract (its limit per minute): what 429s are judged against when the service states no limit. */
  readonly contractOf?: (scenario: string) => { readonly limit: number; readonly windowMs: number } | undefined;
  /** Each scenario's tokenizer and prompt-length bands (words and their default bands when absent). */
  readonly promptsOf?: (scenario: string) => { readonly counter: TokenCounter; readonly bands: readonly number[] } | undefined;
}

/** Creates the state of a run and its dispatch to phases and outputs. */
export function createRunState(o: RunStateOptions): RunState {
  // One rate-limit analyser and one in-flight count per tenant: the service keeps one window per token.
  const tenants = new Map<string, { flight: { n: number }; rateLimit: RateLimitAnalyser }>();
  const tenantState = (tenant: string): { flight: { n: number }; rateLimit: RateLimitAnalyser } => {
    let t = tenants.get(tenant);
    if (t === undefined) {
      const flight = { n: 0 };
      const contract = o.contractOf?.(tenant);
      const rateLimit = createRateLimitAnalyser({
        runStartNs: o.runStartNs,
        runStartWallMs: o.runStartWallMs,
        inFlight: () => flight.n,
        sharers: o.sharers ?? 1,
        tenant,
        ...(contract === undefined ? {} : { contract }),
      });
      tenants.set(tenant, (t = { flight, rateLimit }));
    }
    return t;
  };
  // The run's total counts each scenario's streams in that scenario's unit, banded by the first
  // scenario's bands for the unit.
  const bandsByUnit = new Map<string, readonly number[]>();
  for (const name of o.scenarios) {
    const p = o.promptsOf?.(name);
    if (p !== undefined && !bandsByUnit.has(p.counter.name)) bandsByUnit.set(p.counter.name, p.bands);
  }
  const make = (name: string, tenant: string | undefined): ScenarioState => {
    const t = tenant === undefined ? undefined : tenantState(tenant);
    const prompts = tenant === undefined ? undefined : o.promptsOf?.(name);
    const bands = prompts === undefined ? (unit: string) => bandsByUnit.get(unit) ?? defaultPromptBands(unit) : (unit: string) => (unit === prompts.counter.name ? prompts.bands : defaultPromptBands(unit));
    return {
      name,
      tenant: tenant ?? name,
      collectors: createCollectors({
        runStartNs: o.runStartNs,
        runStartWallMs: o.runStartWallMs,
        objective: o.objective,
        promptBands: bands,
        unit: name,
        ...(t === undefined ? {} : { rateLimit: t.rateLimit }),
      }),
      iterations: createIterationStats(),
      flight: t?.flight ?? { n: 0 },
      ...(prompts === undefined ? {} : { counter: prompts.counter }),
    };
  };
  const scenarios = o.scenarios.map((name) => make(name, o.tenantOf?.(name) ?? name));
  const byName = new Map(scenarios.map((s) => [s.name, s]));
  // The run's total only adds up its tenants' verdicts (its analyser judges nothing itself).
  const total = scenarios.length === 1 ? (scenarios[0] as ScenarioState) : make('(all)', undefined);
  const shared = scenarios.length !== 1;

  // Per-method lists, so the hot path loops only over listeners that listen.
  // A listener that asked only for asynchronous values (following) hears only the samples that
  // carry one: the others, nearly every request, build no RunSample for it.
  const onSample = o.listeners.filter((x) => x.sample !== undefined && x.values !== 'async');
  const onSampleAsync = o.listeners.filter((x) => x.sample !== undefined && x.values === 'async');
  const onRequest = o.listeners.filter((x) => x.request !== undefined);
  const onIteration = o.listeners.filter((x) => x.iteration !== undefined);
  const onCheck = o.listeners.filter((x) => x.check !== undefined);
  const onAsync = o.listeners.filter((x) => x.asyncEnd !== undefined);
  const onCut = o.listeners.filter((x) => x.cut !== undefined);
  const valuesAll = o.listeners.some((x) => x.values === 'all');
  // Operations whose values a phase listed (the audit and notifications: run, stream, trigger).
  const valueOps: ReadonlySet<string> = new Set(o.listeners.flatMap((x) => (Array.isArray(x.values) ? (x.values as readonly OpName[]) : [])));
  const valuesAsync = valuesAll || o.listeners.some((x) => x.values === 'async');
  let cancelled = 0;
  let cut = 0;

  const hookNone = (r: RequestStart): undefined => {
    const s = byName.get(r.scenario);
    if (s !== undefined) s.flight.n++;
    return undefined;
  };
  const hookOne = (r: RequestStart): RequestHook | undefined => {
    hookNone(r);
    return onRequest[0]?.request?.(r);
  };
  const hookMany = (r: RequestStart): RequestHook | undefined => {
    hookNone(r);
    const hooks = onRequest.flatMap((x) => x.request?.(r) ?? []);
    if (hooks.length === 0) return undefined;
    const headers = Object.assign({}, ...hooks.map((h) => h.headers ?? {})) as Record<string, string>;
    return { headers, end: (s) => hooks.forEach((h) => h.end(s)) };
  };

  return {
    scenarios,
    total,
    cancelled: () => cancelled,
    cut: () => cut,
    hook: onRequest.length === 0 ? hookNone : onRequest.length === 1 ? hookOne : hookMany,

    record(scenario, ctx, given, hook, cutByStop, deadlineMs) {
      if (scenario.flight.n > 0) scenario.flight.n--;
      let result = given;
      let code = errorCodeOf(result);
      if (cutByStop && code === 'ABORTED') {
        if (o.stoppedByUser?.() !== false) {
          cancelled++;
          return;
        }
        // The grace period after the schedule ran out with the request open. Within its own
        // deadline it might still have been answered: the run cut it, not the target.
        const limitMs = deadlineMs ?? DEFAULT_REQUEST_MS;
        if (!(limitMs > 0 && result.meta.endNs - result.meta.startNs >= limitMs * 1e6)) {
          cut++;
          // Unjudged, but the service may have counted it, and what was measured of it counts.
          const partial = requestSample(ctx, result, code, scenario.counter);
          scenario.collectors.observeCut(partial);
          if (shared) total.collectors.observeCut(partial);
          if (onCut.length > 0) {
            const frozen = Object.freeze({ ...partial, scenario: scenario.name });
            for (const x of onCut) x.cut?.(frozen);
          }
          return;
        }
        // Past its own deadline (the client had not yet swept it): the target did not answer in time.
        code = 'TIMEOUT';
        result = { ...result, error: createTransportError(code, `${ctx.op}: TIMEOUT (past its ${limitMs} ms deadline when the grace period ended)`) } as typeof given;
      }
      const sample = requestSample(ctx, result, code, scenario.counter);
      const verdict = scenario.collectors.observe(sample);
      if (shared) total.collectors.observe(sample, verdict);
      // 'async': what starts asynchronous work, and a poll that saw a run end (a journey polling its own runs).
      const asyncValue =
        valuesAsync && result.ok && (ctx.op === 'trigger' || (ctx.op === 'run' && sample.runStatus === 'running') || (ctx.op === 'getRun' && (sample.runStatus === 'completed' || sample.runStatus === 'failed')));
      if (onSample.length === 0 && hook === undefined && !asyncValue) return;
      const wantsValue = result.ok && (valuesAll || asyncValue || valueOps.has(ctx.op));
      const s: RunSample = runSample(ctx, sample, verdict, wantsValue ? (result as { value: unknown }).value : undefined);
      for (const x of onSample) x.sample?.(s);
      if (asyncValue) for (const x of onSampleAsync) x.sample?.(s);
      hook?.end(s);
    },

    iterationStarted(scenario) {
      scenario.iterations.started();
      if (shared) total.iterations.started();
    },

    iteration(scenario, i) {
      scenario.iterations.ended(i.result, i.endNs - i.intendedNs, i.error);
      if (shared) total.iterations.ended(i.result, i.endNs - i.intendedNs, i.error);
      const frozen = Object.freeze({ ...i });
      for (const x of onIteration) x.iteration?.(frozen);
    },

    check(scenario, c) {
      scenario.iterations.check(c.name, c.passed, c.example);
      if (shared) total.iterations.check(c.name, c.passed, c.example);
      const frozen = Object.freeze({ ...c });
      for (const x of onCheck) x.check?.(frozen);
    },

    step(scenario, name, durationNs) {
      scenario.iterations.step(name, durationNs);
      if (shared) total.iterations.step(name, durationNs);
    },

    asyncEnd(e) {
      const frozen = Object.freeze({ ...e });
      for (const x of onAsync) x.asyncEnd?.(frozen);
    },
  };
}
