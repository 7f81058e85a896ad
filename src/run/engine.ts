/**
 * The engine: one run of one or several scenarios against one target, in this thread. It
 * schedules each scenario's executor, records every result through the run's state, emits
 * samples and lifecycle events to its outputs and phases, and always ends in a report: on
 * schedule end, on a stop signal (Ctrl-C) and on an abort-on-fail threshold alike. Every step
 * after the schedule has a deadline and obeys the stop signal. The run session (`session.ts`)
 * drives it in this thread, or one per worker thread (`workers/`).
 */
import type { Client } from '../api/index.js';
import { type Clock, createSystemClock } from '../core/clock.js';
import { tierLimitPerMinute } from '../core/tiers.js';
import { FlowgaugeError } from '../core/errors.js';
import { createExecutor, loadDurationMs, type Executor } from '../load/index.js';
import { evaluateThresholdsOn } from '../report/metrics.js';
import type { Report, RunWarning } from '../report/index.js';
import { defaultPromptBands } from '../collect/index.js';
import { loadRowSource, loadTokenCounter, planOf, type ResolvedRunPlan, type ResolvedScenario, type RowSource, type TokenCounter } from '../scenario/index.js';
import type { SampleListener } from './events.js';
import type { OutputContext, RunOutput } from './output.js';
import type { PhaseContext, PhaseSections, RunPhase } from './phase.js';
import { createLiveMeter } from './live-meter.js';
import { prepareTargets } from './prepare.js';
import { projectRunReport } from './project.js';
import { createRunState, type ScenarioState } from './run-state.js';
import { createJourneyJob, createMixJob } from './scenario-jobs.js';
import { parsePlanThresholds } from './plan-thresholds.js';
import { checkJoinable, joinPointMs, type RunShard } from './run-shard.js';

/** What one run in this thread is: the session builds it (and each worker thread, its own). */
export interface EngineOptions {
  /** One scenario, or a plan of several that run at once. */
  readonly scenario: ResolvedScenario | ResolvedRunPlan;
  /** The client of every scenario that `clients` does not name. */
  readonly client: Client;
  /** Clients by scenario name (tenants: each its own token). */
  readonly clients?: Readonly<Record<string, Client>>;
  /** Rows of scenarios' `data`, by scenario name; a scenario's own `data` is read when absent here. */
  readonly data?: Readonly<Record<string, RowSource>>;
  readonly target: { readonly baseUrl: string; readonly embedded: boolean };
  readonly clock?: Clock;
  /** This run is shard `index` of `count`; with a fingerprint its report says so (`shard`). */
  readonly shard?: RunShard;
  /**
   * The wall-clock instant (ms) the run's shards share (`--start-at`): a run that starts more
   * than `JOIN_LATE_AFTER_MS` after it joins its schedule in phase, as far in as it is late.
   */
  readonly startAtMs?: number;
  /** Aborting it stops scheduling, drains in-flight requests for the grace period, and reports. */
  readonly stopSignal?: AbortSignal;
  /** What only consumes the run (metrics, spans, progress, dashboard, report writer), in order. */
  readonly outputs?: readonly RunOutput[];
  /** What acts beside or after the schedule and owns a report section (following, notifications, audit), in order. */
  readonly phases?: readonly RunPhase[];
  /** Time between ticks (default 1000 ms). */
  readonly progressIntervalMs?: number;
  /** Longest time the requests before the run (finding a flow, a session, a run id) may take together (default 30 s). */
  readonly prepareTimeoutMs?: number;
  /** Longest time the steps after the schedule (following, notifications, audit) may take (default 60 s). */
  readonly finishTimeoutMs?: number;
  /**
   * Awaited once the targets are prepared, before the clock starts: the shards of a run split
   * over worker threads meet here, so their schedules start together and interleave evenly.
   */
  readonly ready?: () => Promise<void>;
  /**
   * Called at once when an abort-on-fail threshold of this run fails (before draining), with its
   * key: the shards of a run split over worker threads tell the main thread, which stops the rest.
   */
  readonly onAbort?: (threshold: string) => void;
  /**
   * Aborted when another part of the same run (a sibling worker) failed an abort-on-fail
   * threshold, its key the signal's reason: this run ends as if its own had (`abortedBy`, not
   * interrupted), and still finishes and reports.
   */
  readonly abortSignal?: AbortSignal;
}

/** How a run ended. */
export interface RunOutcome {
  readonly report: Report;
  /** Every threshold passed. */
  readonly passed: boolean;
  /** Scenarios whose `unique` data ran out (the run stopped early; a configuration error). */
  readonly dataExhausted: readonly string[];
}

const DEFAULT_FINISH_TIMEOUT_MS = 60_000;
/** After the finish signal, how long a phase may take to return what it has. */
const FINISH_GRACE_MS = 500;

/** Runs a plan to its end (or its stop) in this thread and builds the report. Throws only before the first request. */
export async function runEngine(options: EngineOptions): Promise<RunOutcome> {
  const plan = planOf(options.scenario);
  const clock = options.clock ?? createSystemClock();
  const outputs = options.outputs ?? [];
  const phases = options.phases ?? [];
  // The run's state dispatches samples to both, phases first (following hears a run before anything announces its end).
  const listeners: readonly SampleListener[] = [...phases, ...outputs];
  const thresholds = parsePlanThresholds(plan);
  const clientOf = (s: ResolvedScenario): Client => options.clients?.[s.name] ?? options.client;

  // Tokenizers first: a missing optional package is a configuration error, found before any request.
  const prompts = new Map<string, { counter: TokenCounter; bands: readonly number[] }>();
  for (const s of plan.scenarios) {
    if (s.tokenizer === undefined && s.promptBands === undefined) continue;
    const counter = await loadTokenCounter(s.tokenizer ?? 'words');
    prompts.set(s.name, { counter, bands: s.promptBands ?? defaultPromptBands(counter.name) });
  }
  const prepared = [];
  for (const s of plan.scenarios) {
    const targets = await prepareTargets(clientOf(s), s, options.stopSignal, options.prepareTimeoutMs);
    if (s.journey !== undefined && targets.defaultFlowId === '') {
      throw new FlowgaugeError('FG_CONFIG_INVALID', `scenario "${s.name}": target ${clientOf(s).baseUrl} lists no published flow for vu.flowId`);
    }
    const data = options.data?.[s.name] ?? (s.data !== undefined ? await loadRowSource(s.data, s.seed) : undefined);
    prepared.push({ scenario: s, targets, data });
  }
  await options.ready?.();

  const startedAtMs = clock.wallMs();
  const runStartNs = clock.nowNs();
  // A shard that came up after the shared start joins the schedule where it has got to.
  const joinedAtMs = joinPointMs(options.startAtMs, startedAtMs);
  checkJoinable(joinedAtMs, Math.max(...plan.scenarios.map((s) => (s.startAfterMs ?? 0) + loadDurationMs(s.load))));
  const tenantOf = tenantsOf(plan, clientOf);
  const state = createRunState({
    scenarios: plan.scenarios.map((s) => s.name),
    clock,
    runStartNs,
    runStartWallMs: startedAtMs,
    objective: plan.objective,
    listeners,
    stoppedByUser: () => interrupted || abortedBy !== undefined,
    sharers: options.shard?.count ?? 1,
    tenantOf,
    contractOf: (name) => {
      const s = plan.scenarios.find((x) => x.name === name);
      return s === undefined ? undefined : { limit: tierLimitPerMinute(s.tier), windowMs: 60_000 };
    },
    promptsOf: (name) => prompts.get(name),
  });
  const byName = new Map(plan.scenarios.map((s) => [s.name, s]));
  const sessionIdsOf = Object.fromEntries(
    plan.scenarios.map((s) => [s.name, [...new Set(s.mix.flatMap((m) => ((m.op === 'run' || m.op === 'stream') && m.sessionId !== undefined ? [m.sessionId] : [])))]]),
  );
  const clientByName = (name: string): Client => {
    const s = byName.get(name);
    return s === undefined ? options.client : clientOf(s);
  };
  const outputCtx: OutputContext = {
    clock,
    runStartNs,
    startedAtMs,
    scenarios: plan.scenarios.map((s) => s.name),
    targetOf: (name) => {
      const c = clientByName(name);
      return { baseUrl: c.baseUrl, webhookHost: c.webhookHost };
    },
  };
  const ctx: PhaseContext = {
    ...outputCtx,
    client: clientOf(plan.scenarios[0] as ResolvedScenario),
    clientOf: clientByName,
    tenantOf,
    sessionIds: [...new Set(Object.values(sessionIdsOf).flat())],
    sessionIdsOf,
    sharded: (options.shard?.count ?? 1) > 1,
    emitAsyncEnd: (e) => state.asyncEnd(e),
    spent: (scenario, answer) => {
      const unit = state.scenarios.find((s) => s.name === scenario) ?? state.scenarios[0];
      unit?.collectors.observeSetup(answer);
    },
  };
  for (const p of phases) await p.start?.(ctx);
  for (const o of outputs) await o.start?.(outputCtx);

  // The run ends at the first of: every schedule's end, a stop signal, a failed abort-on-fail threshold.
  let finish!: () => void;
  const stopped = new Promise<void>((resolve) => (finish = resolve));
  const dataExhausted: string[] = [];
  const units = prepared.map(({ scenario, targets, data }, i) => {
    const unit = state.scenarios[i] as ScenarioState;
    // The service counted the preparation's requests in its window; so does the analyser.
    for (const answer of targets.setup ?? []) unit.collectors.observeSetup(answer);
    const deps = { scenario, state, unit, client: clientOf(scenario), clock, targets };
    let executor!: Executor;
    const job =
      scenario.journey === undefined
        ? createMixJob(deps)
        : createJourneyJob({
            ...deps,
            journey: scenario.journey,
            data,
            ...(options.shard ? { shard: options.shard } : {}),
            onDataExhausted: () => {
              dataExhausted.push(scenario.name);
              executor.stop();
            },
          });
    // A scenario whose start the late join passed joins its own schedule as far in.
    const startOffsetMs = Math.max(0, joinedAtMs - (scenario.startAfterMs ?? 0));
    executor = createExecutor(scenario.load, { clock, job, seed: scenario.seed, ...(options.shard ? { shard: options.shard } : {}), ...(startOffsetMs > 0 ? { startOffsetMs } : {}) });
    return { scenario, unit, executor, startOffsetMs, startAfterNs: Math.max(0, (scenario.startAfterMs ?? 0) - joinedAtMs) * 1e6 };
  });

  const durationMs = Math.max(0, ...units.map((u) => u.startAfterNs / 1e6 + loadDurationMs(u.scenario.load) - u.startOffsetMs));
  const meter = createLiveMeter({ clock, runStartNs, durationMs, units, state, objective: plan.objective });
  let abortedBy: string | undefined;
  let interrupted = false;

  const interval = (options.progressIntervalMs ?? 1000) * 1e6;
  const onTick = [...phases, ...outputs].filter((o) => o.tick !== undefined);
  const liveThresholds = thresholds.all.length > 0 && outputs.some((o) => o.tick !== undefined && o.liveThresholds === true);
  let tickTimer = clock.setTimer(runStartNs + interval, function tick() {
    // Every threshold judged on the live figures once a second, only for a view that shows them (the dashboard).
    const p = !liveThresholds ? meter.progress() : { ...meter.progress(), thresholds: evaluateThresholdsOn(meter.metrics(), thresholds.all) };
    for (const o of onTick) o.tick?.(p);
    if (thresholds.abortOnFail.length > 0) {
      const elapsedMs = (clock.nowNs() - runStartNs) / 1e6;
      const due = thresholds.abortOnFail.filter((t) => (thresholds.abortDelayMs?.get(t.key) ?? 0) <= elapsedMs);
      const broken = due.length === 0 ? undefined : evaluateThresholdsOn(meter.metrics(), due).find((r) => !r.passed);
      if (broken !== undefined) {
        abortedBy = broken.metric;
        options.onAbort?.(broken.metric);
        finish();
        return;
      }
    }
    tickTimer = clock.setTimer(clock.nowNs() + interval, tick);
  });
  const onStop = (): void => {
    interrupted = true;
    finish();
  };
  if (options.stopSignal?.aborted === true) onStop();
  else options.stopSignal?.addEventListener('abort', onStop, { once: true });
  const onPeerAbort = (): void => {
    abortedBy ??= String(options.abortSignal?.reason);
    finish();
  };
  if (options.abortSignal?.aborted === true) onPeerAbort();
  else options.abortSignal?.addEventListener('abort', onPeerAbort, { once: true });

  const startTimers = units.map((u) => (u.startAfterNs > 0 ? clock.setTimer(runStartNs + u.startAfterNs, () => u.executor.start()) : (u.executor.start(), undefined)));
  await Promise.race([Promise.all(units.map((u) => u.executor.scheduleEnded)), stopped]);
  clock.clearTimer(tickTimer);
  for (const t of startTimers) if (t !== undefined) clock.clearTimer(t);
  options.stopSignal?.removeEventListener('abort', onStop);
  options.abortSignal?.removeEventListener('abort', onPeerAbort);
  for (const u of units) u.executor.stop();
  await Promise.all(units.map((u) => u.executor.drain(u.scenario.load.gracefulStopMs)));
  // drain() returns once the grace period is over; aborted requests settle right after.
  await Promise.all(units.map((u) => u.executor.finished));
  for (const u of units) {
    const dropped = u.executor.stats().dropped;
    if (u.scenario.journey !== undefined) {
      u.unit.iterations.dropped(dropped);
      if (state.total !== u.unit) state.total.iterations.dropped(dropped);
    }
  }

  // The report's time span is the schedule's; what follows (following, notifications, audit) is bounded.
  const endedAtMs = clock.wallMs();
  const project = (phaseSections: Partial<PhaseSections>, phaseWarnings: readonly RunWarning[]): Report =>
    projectRunReport({ plan, state, units, target: options.target, shard: options.shard, joinedAtMs, startedAtMs, endedAtMs, interrupted, abortedBy, dataExhausted, phases: phaseSections, phaseWarnings, thresholds: thresholds.all, nowNs: clock.nowNs() });
  const scheduleReport = project({}, []);
  for (const p of phases) p.scheduleEnded?.(scheduleReport);
  for (const o of outputs) await o.scheduleEnded?.(scheduleReport);

  const finishStop = new AbortController();
  const deadlineNs = clock.nowNs() + (options.finishTimeoutMs ?? DEFAULT_FINISH_TIMEOUT_MS) * 1e6;
  const deadline = clock.setTimer(deadlineNs, () => finishStop.abort());
  // A stop while finishing (following, notifications, the audit) cuts what the report says:
  // the run is interrupted, as a stop during the schedule makes it (never a PASS, exit 130).
  const onLateStop = (): void => {
    interrupted = true;
    finishStop.abort();
  };
  options.stopSignal?.addEventListener('abort', onLateStop, { once: true });
  if (options.stopSignal?.aborted === true) finishStop.abort();
  // A phase that does not obey the signal is abandoned shortly after it: the report comes
  // first. The grace lets one that does obey it (its requests cancelled) still say what it found.
  const cut = new Promise<void>((resolve) => {
    const later = (): void => void clock.setTimer(clock.nowNs() + FINISH_GRACE_MS * 1e6, resolve);
    if (finishStop.signal.aborted) later();
    else finishStop.signal.addEventListener('abort', later, { once: true });
  });
  for (const p of phases) if (p.finish !== undefined) await Promise.race([p.finish({ interrupted, signal: finishStop.signal, deadlineNs }), cut]);
  clock.clearTimer(deadline);
  options.stopSignal?.removeEventListener('abort', onLateStop);

  // Each phase projects its own section from what it learnt.
  const phaseSections: Record<string, unknown> = {};
  for (const p of phases) {
    const value = p.section?.project();
    if (p.section !== undefined && value !== undefined) phaseSections[p.section.key] = value;
  }
  const report = project(phaseSections as Partial<PhaseSections>, phases.flatMap((p) => p.warnings?.() ?? []));
  for (const o of outputs) await o.end?.(report);
  return { report, passed: report.passed, dataExhausted };
}

/**
 * Which scenarios run as one tenant (one token): those given the same client object, or naming
 * the same `tokenEnv`. A tenant is named by its first scenario; an unknown name is its own.
 */
function tenantsOf(plan: ResolvedRunPlan, clientOf: (s: ResolvedScenario) => Client): (scenario: string) => string {
  const order = plan.scenarios.map((s) => s.name);
  const tenant = new Map<string, string>();
  const firstBy = new Map<unknown, string>();
  for (const s of plan.scenarios) {
    const env = plan.tokenEnv[s.name];
    const keys: unknown[] = [clientOf(s), ...(env !== undefined ? [`tokenEnv:${env}`] : [])];
    const found = [...new Set(keys.flatMap((k) => (firstBy.has(k) ? [firstBy.get(k) as string] : [])))].sort((a, b) => order.indexOf(a) - order.indexOf(b));
    const name = found[0] ?? s.name;
    // A scenario that shares a client with one tenant and a tokenEnv with another joins them.
    for (const other of found.slice(1)) for (const [n, t] of tenant) if (t === other) tenant.set(n, name);
    for (const [k, t] of firstBy) if (found.includes(t)) firstBy.set(k, name);
    for (const k of keys) firstBy.set(k, name);
    tenant.set(s.name, name);
  }
  return (scenario) => tenant.get(scenario) ?? scenario;
}
