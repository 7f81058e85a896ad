/**
 * The report of a run as a projection of its state: the collectors' and journey accounting's
 * snapshots, the executors' counts, and the sections its phases projected, judged by the
 * thresholds. Called for the schedule's report (before anything can wait on the target) and the
 * final one.
 */
import { VALIDATE_SAMPLE_EVERY } from '../api/index.js';
import { combineTenantRateLimits, type CollectorSnapshot } from '../collect/index.js';
import { isClosedModel, peakTargetRatePerS } from '../load/index.js';
import type { Executor } from '../load/index.js';
import { buildReport, buildScenarioSection } from '../report/build-report.js';
import { evaluateReportThresholds } from '../report/metrics.js';
import { settleRateLimits } from '../report/settle-rate-limits.js';
import type { BuildReportInput, Report, RunWarning, ScenarioReport } from '../report/index.js';
import type { ResolvedRunPlan, ResolvedScenario } from '../scenario/index.js';
import type { ParsedThreshold } from '../slo/index.js';
import type { PhaseSections } from './phase.js';
import type { RunState, ScenarioState } from './run-state.js';
import { shardOfReport, type RunShard } from './run-shard.js';

/** One scheduled scenario. */
export interface ProjectedUnit {
  readonly scenario: ResolvedScenario;
  readonly unit: ScenarioState;
  readonly executor: Executor;
  /** Where in its schedule it started (it joined late), in ms. */
  readonly startOffsetMs?: number;
}

/** What the projection reads. */
export interface ProjectInput {
  readonly plan: ResolvedRunPlan;
  readonly state: RunState;
  readonly units: readonly ProjectedUnit[];
  readonly target: { readonly baseUrl: string; readonly embedded: boolean };
  readonly shard: RunShard | undefined;
  /** Where in the schedule the run joined it (it came up after `--start-at`), in ms; 0 when on time. */
  readonly joinedAtMs?: number;
  readonly startedAtMs: number;
  readonly endedAtMs: number;
  readonly nowNs: number;
  readonly interrupted: boolean;
  readonly abortedBy: string | undefined;
  readonly dataExhausted: readonly string[];
  /** The sections the phases projected (none yet in the schedule's report). */
  readonly phases: Partial<PhaseSections>;
  /** What the phases warn of. */
  readonly phaseWarnings: readonly RunWarning[];
  readonly thresholds: readonly ParsedThreshold[];
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** Start lag p99 beyond which the schedule is said to have fallen behind (ms). */
const SCHEDULE_BEHIND_MS = 50;

function loadOf(u: ProjectedUnit, shardCount: number): BuildReportInput['load'] {
  const st = u.executor.stats();
  // The rate asked for: a ramp's peak stage rate (its mean is achievedRatePerS's to show).
  const rate = peakTargetRatePerS(u.scenario.load);
  return {
    executor: u.scenario.load.executor,
    targetRatePerS: isClosedModel(u.scenario.load) ? null : round3(rate / shardCount),
    started: st.started,
    dropped: st.dropped,
    scheduleLagMs: st.scheduleLag,
    scheduleS: st.elapsedNs / 1e9,
    missed: st.missed,
    joinedAtS: (u.startOffsetMs ?? 0) / 1000,
  };
}

/** A run that came up after `--start-at`: what joining its schedule late cost, by model. */
function joinedLate(p: ProjectInput): RunWarning[] {
  const atMs = p.joinedAtMs ?? 0;
  if (atMs <= 0) return [];
  const late = `came up ${(atMs / 1000).toFixed(1)} s after --start-at and joined its schedule in phase`;
  const missed = p.units.reduce((n, u) => n + u.executor.stats().missed, 0);
  const open = p.units.some((u) => !isClosedModel(u.scenario.load));
  const closed = p.units.some((u) => isClosedModel(u.scenario.load));
  const what = [
    ...(open ? [`the ${missed} arrival${missed === 1 ? '' : 's'} due before then ${missed === 1 ? 'was' : 'were'} not sent (load.missed), every later one at its own instant`] : []),
    ...(closed ? [`its closed-model workers ran ${(atMs / 1000).toFixed(1)} s less than the schedule and ended with it (fewer iterations, nothing missed)`] : []),
  ];
  return [{ code: 'JOINED_LATE', message: `${late}: ${what.join('; ')}. Give the shards a wider margin before --start-at` }];
}

/** Blocked (queued for a connection) p90 beyond which the client's pool is said to have limited the load (ms). */
const POOL_BLOCKED_MS = 10;

/** The operation that waited longest for a connection, when its p90 passed the bound. */
function poolWait(u: ProjectedUnit): { op: string; p50: number; p90: number; count: number } | undefined {
  let worst: { op: string; p50: number; p90: number; count: number } | undefined;
  for (const [op, o] of Object.entries(u.unit.collectors.view().ops)) {
    const b = o?.phases?.blockedMs;
    if (b !== undefined && b.p90 > POOL_BLOCKED_MS && (worst === undefined || b.p90 > worst.p90)) worst = { op, p50: b.p50, p90: b.p90, count: b.count };
  }
  return worst;
}

/** What the generator did to the load that the reader must know, and what to change. */
function warningsOf(p: ProjectInput): RunWarning[] {
  const out: RunWarning[] = [];
  for (const u of p.units) {
    const st = u.executor.stats();
    const who = p.units.length > 1 ? `scenario "${u.scenario.name}": ` : '';
    const load = u.scenario.load;
    if (st.dropped > 0 && !isClosedModel(load)) {
      const cap = load.maxInFlight;
      out.push({
        code: 'DROPPED',
        message: `${who}${st.dropped} of ${st.scheduled} starts were dropped because ${cap} were already in flight: the target or the client is slower than the schedule; raise load.maxInFlight (or --max-in-flight) or lower the rate`,
      });
    }
    if (!isClosedModel(load) && st.scheduleLag.count > 0 && st.scheduleLag.p99 > SCHEDULE_BEHIND_MS) {
      out.push({
        code: 'SCHEDULE_BEHIND',
        message: `${who}requests started late (start lag p99 ${st.scheduleLag.p99.toFixed(1)} ms, max ${st.scheduleLag.max.toFixed(1)} ms): the generator, not the target, was behind the schedule; latency is still measured from the intended start, but lower the rate or run shards on more cores`,
      });
    }
    const pool = poolWait(u);
    if (pool !== undefined) {
      out.push({
        code: 'POOL_SATURATED',
        message: `${who}requests waited for a free connection (${pool.op}: blocked p50 ${pool.p50.toFixed(1)} ms, p90 ${pool.p90.toFixed(1)} ms): the client's connection pool, not the target, limited the load and the latency includes the wait; raise --connections, or leave it out so the pool is sized from the scenario`,
      });
    }
    // Not a fault, but the reader must know the contract figures cover only part of the bodies.
    if (u.scenario.validate === 'sample') {
      out.push({ code: 'VALIDATE_SAMPLE', message: `${who}validate: sample: one 2xx body in ${VALIDATE_SAMPLE_EVERY} was checked against the interface's schemas (the rest on status and framing only), so contract violations are counted from that share` });
    } else if (u.scenario.validate === 'off') {
      out.push({ code: 'VALIDATE_OFF', message: `${who}validate: off: 2xx bodies were judged on status and HTTP framing only, not checked against the interface's schemas; no contract violation of a body could be seen` });
    }
    if (p.dataExhausted.includes(u.scenario.name)) {
      out.push({ code: 'DATA_EXHAUSTED', message: `${who}its unique data rows ran out after ${st.started} iterations; the scenario stopped early: add rows or use order "sequential"` });
    }
  }
  return out;
}

/** Projects the run's state into a report@1, judged by its thresholds. */
export function projectRunReport(p: ProjectInput): Report {
  const shardCount = p.shard?.count ?? 1;
  const durationS = Math.max(0, p.endedAtMs - p.startedAtMs) / 1000;
  const loads = p.units.map((u) => loadOf(u, shardCount));
  const total = p.state.total;
  const first = loads[0] as BuildReportInput['load'];
  const cancelled = p.state.cancelled();
  // Requests the end of the grace period cut, with the grace period named when the scenarios share one.
  const cut = p.state.cut();
  const graces = [...new Set(p.units.map((u) => u.scenario.load.gracefulStopMs))];
  const cutBy = cut > 0 ? { cut, ...(graces.length === 1 ? { gracefulStopS: (graces[0] as number) / 1000 } : {}) } : {};
  const load: BuildReportInput['load'] =
    loads.length === 1
      ? { ...first, cancelled, ...cutBy }
      : {
          executor: [...new Set(loads.map((l) => l.executor))].join('+'),
          targetRatePerS: loads.every((l) => l.targetRatePerS !== null) ? round3(loads.reduce((n, l) => n + (l.targetRatePerS ?? 0), 0)) : null,
          started: loads.reduce((n, l) => n + l.started, 0),
          dropped: loads.reduce((n, l) => n + l.dropped, 0),
          // The run's lag is its worst scenario's (each summary is exact only for its own executor).
          scheduleLagMs: loads.map((l) => l.scheduleLagMs).reduce((a, b) => (b.p99 > a.p99 ? b : a)),
          scheduleS: Math.max(...loads.map((l) => l.scheduleS ?? 0)),
          missed: loads.reduce((n, l) => n + (l.missed ?? 0), 0),
          joinedAtS: (p.joinedAtMs ?? 0) / 1000,
          cancelled,
          ...cutBy,
        };
  let scenarios: Record<string, ScenarioReport> | undefined;
  let snapshot = total.collectors.snapshot(p.nowNs);
  if (p.units.length > 1) {
    scenarios = {};
    const snaps = p.units.map((u) => u.unit.collectors.snapshot(p.nowNs));
    // Each tenant judged its own headers and windows (scenarios of one token share them); the
    // run's line only adds the tenants up.
    const oneEach = snaps.filter((_, i) => p.units.findIndex((u) => u.unit.tenant === p.units[i]?.unit.tenant) === i);
    snapshot = { ...snapshot, rateLimit: combineTenantRateLimits(snapshot.rateLimit, oneEach.map((s) => s.rateLimit)) };
    p.units.forEach((u, i) => {
      (scenarios as Record<string, ScenarioReport>)[u.unit.name] = buildScenarioSection({
        load: loads[i] as BuildReportInput['load'],
        durationS,
        snapshot: snaps[i] as CollectorSnapshot,
        iterations: u.unit.iterations.active ? u.unit.iterations.snapshot() : undefined,
        objective: p.plan.objective,
      });
    });
  }
  const report = buildReport({
    scenario: p.plan.name,
    interrupted: p.interrupted,
    target: p.target,
    startedAtMs: p.startedAtMs,
    endedAtMs: p.endedAtMs,
    load,
    snapshot,
    iterations: total.iterations.active ? total.iterations.snapshot() : undefined,
    thresholds: [],
    objective: p.plan.objective,
    ...(scenarios !== undefined ? { scenarios } : {}),
    warnings: [...joinedLate(p), ...warningsOf(p), ...p.phaseWarnings],
    ...(p.abortedBy !== undefined ? { abortedBy: p.abortedBy } : {}),
    ...(shardOfReport(p.shard) !== undefined ? { shard: shardOfReport(p.shard) } : {}),
    phases: p.phases,
  });
  // The 429s settle on everything the run saw before the thresholds judge them.
  const settled = settleRateLimits(report);
  const warned = settled.warnings.length === 0 ? settled.report : { ...settled.report, warnings: [...(settled.report.warnings ?? []), ...settled.warnings] };
  return evaluateReportThresholds(warned, p.thresholds);
}
