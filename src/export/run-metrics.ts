/**
 * Prometheus metrics of a load run, fed one sample at a time. `observe` sits on the hot path
 * of a load generator (tens of thousands of requests per second): series cells are looked up
 * once and cached, so the steady state allocates nothing and formats no labels, and the cells
 * are plain counters (`fast-metrics.ts`) that the registry serialises at scrape time.
 *
 * Every count here equals its report.json figure: request latency is of the served answers
 * (every request but a 429, as `ops.<op>.latencyMs`), 429 latency apart (`rateLimit.latencyMs`),
 * and stream figures of the streams answered 2xx (as `stream`), ITL, TPOT and tokens per second
 * without the streams delivered in one read (the same `core/stream-timings.ts` functions).
 */
import type { Registry } from 'prom-client';
import { promClient } from './prom-client-module.js';
import { InvalidArgumentError } from '../core/errors.js';
import { NS_PER_S } from '../core/clock.js';
import { isTargetName, TARGET_NAME_HELP } from '../core/target-name.js';
import type { OpKey } from '../core/ops.js';
import { deliveredAtOnce, tokensPerSecond, tpotNs } from '../core/stream-timings.js';
import type { RequestSample, SliClass, Verdict } from '../core/types.js';
import {
  NOTIFICATION_DELIVERY_BUCKETS_S,
  NOTIFICATION_METRICS,
  REQUEST_DURATION_BUCKETS_S,
  RUN_METRICS,
  JOURNEY_METRICS,
  STREAM_ITL_BUCKETS_S,
  STREAM_TOKENS_PER_S_BUCKETS,
  STREAM_TPOT_BUCKETS_S,
  STREAM_TTFT_BUCKETS_S,
  mergeBuckets,
} from '../slo/metric-names.js';
import { PHASES, phaseDurationsNs } from '../collect/request-phases.js';
import { FastCounter, FastGauge, FastHistogram, type CounterCell, type GaugeCell, type HistogramCell } from './fast-metrics.js';

/** Options of `createRunMetrics`. */
export interface RunMetricsOptions {
  /** Registry to register in; a new one when omitted (never prom-client's global one). */
  readonly registry?: Registry;
  /** Scenario name: the `scenario` label of every series. */
  readonly scenario: string;
  /** Tier label (`free`, `pro`, `custom`). */
  readonly tier: string;
  /**
   * The target's name (`--target-name`): a `target` label on every series (the registry's
   * default label), so runs against staging and production stay apart in one Prometheus.
   */
  readonly target?: string;
  /** Extra bucket bounds in seconds (e.g. threshold values), merged into every latency histogram's defaults. */
  readonly latencyBucketsS?: readonly number[];
  /** Distinct `flow` label values kept before others are folded into `other` (default 100). */
  readonly maxFlows?: number;
  /**
   * In a run of several scenarios: each one's tier label, by scenario name. A sample of one of
   * them is labelled with its own scenario and tier; run-wide series keep `scenario`/`tier`.
   */
  readonly scenarios?: Readonly<Record<string, string>>;
}

/** Options resolved once. */
export interface ResolvedRunMetricsOptions {
  readonly scenario: string;
  readonly tier: string;
  readonly requestBucketsS: readonly number[];
  readonly ttftBucketsS: readonly number[];
  readonly itlBucketsS: readonly number[];
  readonly tpotBucketsS: readonly number[];
  /** Output tokens per second (not seconds): no latency bound is merged in. */
  readonly tokensPerSBuckets: readonly number[];
  readonly maxFlows: number;
  readonly scenarios: Readonly<Record<string, string>>;
}

/** The metrics of one run. */
export interface RunMetrics {
  readonly registry: Registry;
  readonly options: ResolvedRunMetricsOptions;
  /**
   * Records one finished request and the collectors' verdict on it, under `scenario` when it
   * is one of `options.scenarios` (else the run's). Copies nothing it keeps.
   */
  observe(sample: RequestSample, verdict: Verdict, scenario?: string): void;
  /**
   * A stream the end of the grace period cut, unjudged: what was measured of it (time to start,
   * to the first token, the gaps between its tokens) as the report's `stream` counts it; no request.
   */
  observeCut?(sample: RequestSample, scenario?: string): void;
  /** Sets the number of requests in flight. */
  setInFlight(n: number): void;
  /** Counts starts dropped because the in-flight limit was reached. */
  addDropped(n: number): void;
  /** Counts starts the executor scheduled (started plus dropped). */
  addScheduled(n: number): void;
  /**
   * Counts one notification by `result` (a bounded verdict or refusal reason) and, for a
   * delivery matched to a completion the client saw, its latency in seconds.
   */
  observeNotification?(result: string, latencyS?: number): void;
  /**
   * Moves the 429s whose verdict the report settled differently (on all of the run's evidence)
   * between the series they were counted in as they came: `flowgauge_rate_limited_total` by kind,
   * and the SLI outcome of `flowgauge_sli_events_total` and `flowgauge_requests_total` (premature
   * is bad; expected and uncertain are excluded). After it the series equal the report's figures.
   */
  settle?(report: SettledView): void;
  /** Counts one journey iteration by result. */
  observeIteration?(scenario: string, result: string): void;
  /** Counts one journey check by name and result (at most `MAX_CHECK_SERIES` names; more fold into `other`). */
  observeCheck?(scenario: string, name: string, passed: boolean): void;
}

/** The gaps of a stream delivered in one read: none counted (allocated once, not per stream). */
const NO_GAPS: readonly number[] = [];
/** What `settle` reads of a report (a scenario's section has the same shape). */
export interface SettledView {
  readonly ops: Readonly<Record<string, { readonly good: number; readonly bad: number; readonly excluded: number } | undefined>>;
  readonly rateLimit: { readonly byOp?: Readonly<Record<string, { readonly expected: number; readonly premature: number; readonly uncertain: number }>> };
  readonly scenarios?: Readonly<Record<string, Omit<SettledView, 'scenarios'>>>;
}

/** Distinct check names exported; a journey that makes names from data cannot grow the series. */
export const MAX_CHECK_SERIES = 100;

/** The series of one scenario (its `scenario` and `tier` labels). */
interface UnitCells {
  readonly ttft: HistogramCell;
  readonly itl: HistogramCell;
  readonly tpot: HistogramCell;
  readonly tokensPerS: HistogramCell;
  readonly timeToStart: HistogramCell;
  readonly tokens: CounterCell;
  readonly incomplete: CounterCell;
  op(op: OpKey): OpChildren;
  request(s: RequestSample, outcome: SliClass): CounterCell;
  /** Moves `n` of an operation's 429 requests from one SLI outcome to another. */
  move429(op: string, from: SliClass, to: SliClass, n: number): void;
  /** Operations seen. */
  ops(): readonly string[];
  remaining(): GaugeCell;
  limit(): GaugeCell;
}

interface OpChildren {
  /** Latency of the served answers (every one but a 429). */
  readonly duration: HistogramCell;
  /** Latency of the 429 answers; the series appears with the op's first 429. */
  refused(): HistogramCell;
  /** blocked, connect, tls, wait, receive (PHASES' order). */
  readonly phases: readonly HistogramCell[];
  readonly sli: Readonly<Record<SliClass, CounterCell>>;
  readonly expected429: CounterCell;
  readonly premature429: CounterCell;
  readonly uncertain429: CounterCell;
  readonly violations: CounterCell;
}

/** `2xx`…`5xx`, or `none` when no response arrived. */
export function statusClass(status: number): string {
  return status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'none';
}

/** Resolves and checks the options; throws `InvalidArgumentError` on a programmer mistake. */
export function resolveRunMetricsOptions(options: RunMetricsOptions): ResolvedRunMetricsOptions {
  if (typeof options.scenario !== 'string' || options.scenario === '') {
    throw new InvalidArgumentError('createRunMetrics: scenario must be a non-empty string');
  }
  if (typeof options.tier !== 'string' || options.tier === '') {
    throw new InvalidArgumentError('createRunMetrics: tier must be a non-empty string');
  }
  const extra = options.latencyBucketsS ?? [];
  if (extra.some((b) => !(Number.isFinite(b) && b > 0))) {
    throw new InvalidArgumentError('createRunMetrics: latencyBucketsS must be positive finite seconds');
  }
  const maxFlows = options.maxFlows ?? 100;
  if (!(Number.isInteger(maxFlows) && maxFlows >= 0)) {
    throw new InvalidArgumentError('createRunMetrics: maxFlows must be a non-negative integer');
  }
  return {
    scenario: options.scenario,
    tier: options.tier,
    requestBucketsS: mergeBuckets(REQUEST_DURATION_BUCKETS_S, extra),
    ttftBucketsS: mergeBuckets(STREAM_TTFT_BUCKETS_S, extra),
    itlBucketsS: mergeBuckets(STREAM_ITL_BUCKETS_S, extra),
    tpotBucketsS: mergeBuckets(STREAM_TPOT_BUCKETS_S, extra),
    tokensPerSBuckets: STREAM_TOKENS_PER_S_BUCKETS,
    maxFlows,
    scenarios: { ...options.scenarios },
  };
}

/** Creates and registers the run metrics. */
export function createRunMetrics(options: RunMetricsOptions): RunMetrics {
  const o = resolveRunMetricsOptions(options);
  const registry = options.registry ?? new (promClient().Registry)();
  if (options.target !== undefined) {
    if (!isTargetName(options.target)) throw new InvalidArgumentError(`createRunMetrics: target must be ${TARGET_NAME_HELP}`);
    // A default label, on every series the registry serialises (and in the snapshots workers send).
    registry.setDefaultLabels({ target: options.target });
  }
  const m = RUN_METRICS;
  const { scenario, tier } = o;

  const requests = new FastCounter(m.requests, registry);
  const requestDuration = new FastHistogram(m.requestDuration, registry, o.requestBucketsS);
  const rateLimitedDuration = new FastHistogram(m.rateLimitedDuration, registry, o.requestBucketsS);
  const requestPhase = new FastHistogram(m.requestPhase, registry, o.requestBucketsS);
  const ttftMetric = new FastHistogram(m.streamTtft, registry, o.ttftBucketsS);
  const itlMetric = new FastHistogram(m.streamItl, registry, o.itlBucketsS);
  const tpotMetric = new FastHistogram(m.streamTpot, registry, o.tpotBucketsS);
  const tokensPerSMetric = new FastHistogram(m.streamTokensPerSecond, registry, o.tokensPerSBuckets);
  const timeToStartMetric = new FastHistogram(m.streamTimeToStart, registry, o.ttftBucketsS);
  const tokensMetric = new FastCounter(m.streamTokens, registry);
  const incompleteMetric = new FastCounter(m.streamIncomplete, registry);
  const rateLimited = new FastCounter(m.rateLimited, registry);
  // Rate-limit gauges appear with the first header seen: absent means "never advertised".
  const remainingGauge = new FastGauge(m.rateLimitRemaining, registry);
  const limitGauge = new FastGauge(m.rateLimitLimit, registry);
  // Dropped, scheduled and in-flight exist from the start at zero, so "nothing dropped"
  // reads 0 rather than "no data".
  const dropped = new FastCounter(m.dropped, registry).cell(scenario, tier);
  const scheduled = new FastCounter(m.scheduled, registry).cell(scenario, tier);
  const sliEvents = new FastCounter(m.sliEvents, registry);
  const inFlight = new FastGauge(m.inFlight, registry).cell(scenario, tier);
  const violations = new FastCounter(m.contractViolations, registry);
  // Notification series appear with the first delivery, so runs without a receiver export none.
  let notifications: FastCounter | undefined;
  let deliveryLatency: HistogramCell | undefined;
  const notificationCells = new Map<string, CounterCell>();
  // Journey series appear with the first iteration, so mix runs export none.
  let iterations: FastCounter | undefined;
  let checks: FastCounter | undefined;
  const journeyCells = new Map<string, CounterCell>();
  const checkNames = new Set<string>();

  const phaseNs = new Float64Array(PHASES.length);
  const flows = new Set<string>();
  const flowLabel = (flowId: string | undefined): string => {
    if (flowId === undefined || flowId === '') return 'none';
    if (flows.has(flowId)) return flowId;
    if (flows.size >= o.maxFlows) return 'other';
    flows.add(flowId);
    return flowId;
  };

  /** The series of one scenario: its own labels, created on its first sample. */
  const makeUnit = (name: string, tierLabel: string): UnitCells => {
    const ops = new Map<OpKey, OpChildren>();
    const requestChildren = new Map<string, CounterCell>();
    let remaining: GaugeCell | undefined;
    let limit: GaugeCell | undefined;
    return {
      ttft: ttftMetric.cell(name, tierLabel),
      itl: itlMetric.cell(name, tierLabel),
      tpot: tpotMetric.cell(name, tierLabel),
      tokensPerS: tokensPerSMetric.cell(name, tierLabel),
      timeToStart: timeToStartMetric.cell(name, tierLabel),
      tokens: tokensMetric.cell(name, tierLabel),
      incomplete: incompleteMetric.cell(name, tierLabel),
      op(op) {
        let c = ops.get(op);
        if (c === undefined) {
          // Every SLI class and 429 kind exists (at 0) once an operation is seen, so error
          // ratios read 0, not "no data".
          const sli = {
            good: sliEvents.cell(name, tierLabel, op, 'good'),
            bad: sliEvents.cell(name, tierLabel, op, 'bad'),
            excluded: sliEvents.cell(name, tierLabel, op, 'excluded'),
          };
          let refused: HistogramCell | undefined;
          c = {
            duration: requestDuration.cell(name, tierLabel, op),
            refused: () => (refused ??= rateLimitedDuration.cell(name, tierLabel, op)),
            phases: PHASES.map((ph) => requestPhase.cell(name, tierLabel, op, ph)),
            sli,
            expected429: rateLimited.cell(name, tierLabel, op, 'expected'),
            premature429: rateLimited.cell(name, tierLabel, op, 'premature'),
            uncertain429: rateLimited.cell(name, tierLabel, op, 'uncertain'),
            violations: violations.cell(name, tierLabel, op),
          };
          ops.set(op, c);
        }
        return c;
      },
      move429(op, from, to, n) {
        let left = n;
        for (const [key, cell] of requestChildren) {
          if (left <= 0) break;
          const [kOp, flow, status, code, outcome] = key.split('\u0000') as [string, string, string, string, string];
          if (kOp !== op || status !== '429' || outcome !== from || cell.value <= 0) continue;
          const k = Math.min(left, cell.value);
          cell.value -= k;
          const target = `${kOp}\u0000${flow}\u0000${status}\u0000${code}\u0000${to}`;
          let other = requestChildren.get(target);
          if (other === undefined) requestChildren.set(target, (other = requests.cell(name, tierLabel, kOp, flow, '4xx', code, to)));
          other.inc(k);
          left -= k;
        }
      },
      ops: () => [...ops.keys()],
      request(s, outcome) {
        const code = s.errorCode ?? 'none';
        // Keyed by the folded flow label, so unbounded flow ids cannot grow the cache either.
        const flow = flowLabel(s.flowId);
        const key = `${s.op}\u0000${flow}\u0000${s.status}\u0000${code}\u0000${outcome}`;
        let c = requestChildren.get(key);
        if (c === undefined) {
          c = requests.cell(name, tierLabel, s.op, flow, statusClass(s.status), code, outcome);
          requestChildren.set(key, c);
        }
        return c;
      },
      remaining: () => (remaining ??= remainingGauge.cell(name, tierLabel)),
      limit: () => (limit ??= limitGauge.cell(name, tierLabel)),
    };
  };
  const runUnit = makeUnit(scenario, tier);
  const units = new Map<string, UnitCells>();
  // Scenario names come from the plan (a bounded set): any other name counts under the run's.
  const unitOf = (name: string | undefined): UnitCells => {
    if (name === undefined) return runUnit;
    const tierOf = o.scenarios[name];
    if (tierOf === undefined) return runUnit;
    let u = units.get(name);
    if (u === undefined) units.set(name, (u = makeUnit(name, tierOf)));
    return u;
  };
  const labelsOf = (name: string): [string, string] => {
    const t = o.scenarios[name];
    return t === undefined ? [scenario, tier] : [name, t];
  };

  const seconds = (fromNs: number, toNs: number | undefined): number | undefined => {
    if (toNs === undefined) return undefined;
    const s = (toNs - fromNs) / NS_PER_S;
    return Number.isFinite(s) ? Math.max(0, s) : undefined;
  };

  return {
    registry,
    options: o,
    observe(s, verdict, name) {
      const u = unitOf(name);
      const c = u.op(s.op);
      const outcome = verdict.sli;
      c.sli[outcome].inc();
      u.request(s, outcome).inc();
      // One population for latency, as the report's: a 429 is a refusal, not the service's work.
      const d = seconds(s.intendedNs, s.endNs);
      if (d !== undefined) {
        if (s.status === 429) c.refused().observe(d);
        else c.duration.observe(d);
      }
      if (phaseDurationsNs(s, phaseNs)) {
        for (let i = 0; i < phaseNs.length; i++) (c.phases[i] as HistogramCell).observe((phaseNs[i] as number) / NS_PER_S);
      }
      if (verdict.throttle === 'expected') c.expected429.inc();
      else if (verdict.throttle === 'premature') c.premature429.inc();
      else if (verdict.throttle === 'uncertain') c.uncertain429.inc();
      if (s.violations.length > 0) c.violations.inc(s.violations.length);
      const rl = s.rateLimit;
      if (rl !== undefined) {
        if (rl.remaining !== undefined) u.remaining().set(rl.remaining);
        if (rl.limit !== undefined) u.limit().set(rl.limit);
      }
      const st = s.stream;
      // As the report's `stream`: only an answer 2xx opened a stream (a 429 or a 5xx is no incomplete stream).
      if (st !== undefined && s.status >= 200 && s.status < 300) {
        const first = seconds(s.intendedNs, st.firstTokenNs);
        if (first !== undefined) u.ttft.observe(first);
        const start = seconds(s.intendedNs, st.startEventNs);
        if (start !== undefined) u.timeToStart.observe(start);
        // As the report's: a stream delivered in one read has no gaps, TPOT or rate to tell.
        const gaps = deliveredAtOnce(st) ? NO_GAPS : st.itlNs;
        for (let i = 0; i < gaps.length; i++) {
          const g = (gaps[i] as number) / NS_PER_S;
          if (Number.isFinite(g) && g >= 0) u.itl.observe(g);
        }
        const tpot = tpotNs(st);
        if (tpot !== undefined && Number.isFinite(tpot)) u.tpot.observe(Math.max(0, tpot / NS_PER_S));
        const perS = tokensPerSecond(st);
        if (perS !== undefined && Number.isFinite(perS)) u.tokensPerS.observe(perS);
        if (st.tokens > 0) u.tokens.inc(st.tokens);
        if (!st.complete || s.errorCode !== undefined) u.incomplete.inc();
      }
    },
    observeCut(s, name) {
      const st = s.stream;
      if (st === undefined || s.status < 200 || s.status >= 300) return;
      const u = unitOf(name);
      const first = seconds(s.intendedNs, st.firstTokenNs);
      if (first !== undefined) u.ttft.observe(first);
      const start = seconds(s.intendedNs, st.startEventNs);
      if (start !== undefined) u.timeToStart.observe(start);
      for (const gap of st.itlNs) {
        const g = gap / NS_PER_S;
        if (Number.isFinite(g) && g >= 0) u.itl.observe(g);
      }
    },
    settle(report) {
      const one = (u: UnitCells, view: Omit<SettledView, 'scenarios'>): void => {
        for (const op of u.ops()) {
          const target = view.rateLimit.byOp?.[op];
          const o = view.ops[op];
          if (target === undefined || o === undefined) continue;
          const c = u.op(op as OpKey);
          // Only the 429s move: the SLI series follow their premature count.
          const toBad = target.premature - c.premature429.value;
          c.expected429.value = target.expected;
          c.premature429.value = target.premature;
          c.uncertain429.value = target.uncertain;
          if (toBad === 0) continue;
          const [from, to]: [SliClass, SliClass] = toBad > 0 ? ['excluded', 'bad'] : ['bad', 'excluded'];
          const n = Math.abs(toBad);
          c.sli[from].value -= n;
          c.sli[to].value += n;
          u.move429(op, from, to, n);
        }
      };
      if (report.scenarios === undefined) one(runUnit, report);
      else for (const [name, section] of Object.entries(report.scenarios)) one(unitOf(name), section);
    },
    setInFlight(n) {
      if (Number.isFinite(n) && n >= 0) inFlight.set(n);
    },
    addDropped(n) {
      if (Number.isFinite(n) && n > 0) dropped.inc(n);
    },
    addScheduled(n) {
      if (Number.isFinite(n) && n > 0) scheduled.inc(n);
    },
    observeIteration(unit, result) {
      iterations ??= new FastCounter(JOURNEY_METRICS.iterations, registry);
      const [sc, t] = labelsOf(unit);
      const key = `i\u0000${sc}\u0000${result}`;
      let cell = journeyCells.get(key);
      if (cell === undefined) journeyCells.set(key, (cell = iterations.cell(sc, t, result)));
      cell.inc();
    },
    observeCheck(unit, name, passed) {
      checks ??= new FastCounter(JOURNEY_METRICS.checks, registry);
      const [sc, t] = labelsOf(unit);
      const check = checkNames.has(name) || checkNames.size < MAX_CHECK_SERIES ? name : 'other';
      checkNames.add(check);
      for (const r of ['pass', 'fail'] as const) {
        const k = `c\u0000${sc}\u0000${check}\u0000${r}`;
        if (!journeyCells.has(k)) journeyCells.set(k, checks.cell(sc, t, check, r));
      }
      journeyCells.get(`c\u0000${sc}\u0000${check}\u0000${passed ? 'pass' : 'fail'}`)?.inc();
    },
    observeNotification(result, latencyS) {
      notifications ??= new FastCounter(NOTIFICATION_METRICS.notifications, registry);
      let cell = notificationCells.get(result);
      if (cell === undefined) notificationCells.set(result, (cell = notifications.cell(scenario, tier, result)));
      cell.inc();
      if (latencyS !== undefined && Number.isFinite(latencyS) && latencyS >= 0) {
        deliveryLatency ??= new FastHistogram(NOTIFICATION_METRICS.deliveryLatency, registry, NOTIFICATION_DELIVERY_BUCKETS_S).cell(scenario, tier);
        deliveryLatency.observe(latencyS);
      }
    },
  };
}
