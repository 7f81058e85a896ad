/**
 * Prometheus metrics of uptime probes: the last result per check, counts by result, duration
 * per phase, when the check last ran and when its certificate expires. A probe runs every few
 * seconds at most, so no caching is needed here.
 *
 * The counters and the histogram are cumulative over the probe's whole durable history, not
 * over this process: `seed` adds what the history held before the process started
 * (`ProbeTotals`, folded by `src/probe/totals.ts`). A CronJob's `probe --once` pushing to a
 * Pushgateway, or a restarted daemon, thus exports totals that only grow, and `increase()`
 * works across runs.
 */
import type { Gauge, Metric, Registry } from 'prom-client';
import { promClient } from './prom-client-module.js';
import { InvalidArgumentError } from '../core/errors.js';
import { PROBE_DURATION_BUCKETS_S, PROBE_METRICS } from '../slo/metric-names.js';

/** Durations of one probe's phases, in seconds; absent when the phase did not happen. */
export interface ProbePhases {
  /** Name resolution (absent for IP literals). */
  readonly dns?: number | undefined;
  readonly connect?: number | undefined;
  readonly tls?: number | undefined;
  /** Time to the first response byte. */
  readonly ttfb?: number | undefined;
  /** The whole HTTP request. */
  readonly total: number;
}

/** What one probe of a check found. */
export interface ProbeResult {
  readonly success: boolean;
  /**
   * The whole check, which may span several requests (observed as phase `check`); absent for
   * history records written before it was kept.
   */
  readonly durationS?: number | undefined;
  readonly phases: ProbePhases;
  /** Time to the first token event, for stream checks. */
  readonly ttftS?: number | undefined;
  /** Negotiated TLS version (`TLSv1.3`), for HTTPS targets. */
  readonly tlsVersion?: string | undefined;
  /** When the check finished, Unix seconds. */
  readonly finishedAtS?: number | undefined;
  /** When the leaf certificate the check saw expires, Unix seconds (HTTPS targets). */
  readonly certExpiryS?: number | undefined;
}

/** Counts of one histogram series: per bucket (not cumulative; the last is above every bound), sum and count. */
export interface PhaseTotals {
  readonly buckets: number[];
  sum: number;
  count: number;
}

/** Cumulative counts of one check. */
export interface CheckTotals {
  success: number;
  failure: number;
  /** By phase (`dns`, `connect`, `tls`, `ttfb`, `ttft`, `total`, `check`). */
  readonly phases: Record<string, PhaseTotals>;
  /** When the latest probe finished, Unix seconds (absent in totals kept before it was). */
  lastRunS?: number;
  /** When the latest successful probe finished, Unix seconds; absent when none succeeded. */
  lastSuccessS?: number;
}

/**
 * Cumulative probe counts, plain data (JSON as it is): what `seed` adds and what the history's
 * checkpoint file keeps. `bounds` are the histogram's bucket bounds the counts were made with.
 */
export interface ProbeTotals {
  readonly bounds: readonly number[];
  readonly checks: Record<string, CheckTotals>;
}

/** Phases of the duration histogram, in the order a check goes through them. */
export const PROBE_PHASES = ['dns', 'connect', 'tls', 'ttfb', 'ttft', 'total', 'check'] as const;

/** Empty totals over the probe's buckets. */
export function emptyProbeTotals(): ProbeTotals {
  return { bounds: [...PROBE_DURATION_BUCKETS_S], checks: {} };
}

function phaseValues(r: ProbeResult): [string, number | undefined][] {
  return [
    ['dns', r.phases.dns],
    ['connect', r.phases.connect],
    ['tls', r.phases.tls],
    ['ttfb', r.phases.ttfb],
    ['ttft', r.ttftS],
    ['total', r.phases.total],
    ['check', r.durationS],
  ];
}

function observeInto(totals: ProbeTotals, check: string, phase: string, s: number | undefined): void {
  if (s === undefined || !Number.isFinite(s) || s < 0) return;
  const c = checkTotals(totals, check);
  let p = c.phases[phase];
  if (p === undefined) c.phases[phase] = p = { buckets: new Array<number>(totals.bounds.length + 1).fill(0), sum: 0, count: 0 };
  let i = 0;
  while (i < totals.bounds.length && s > (totals.bounds[i] as number)) i++;
  p.buckets[i] = (p.buckets[i] as number) + 1;
  p.sum += s;
  p.count++;
}

function checkTotals(totals: ProbeTotals, check: string): CheckTotals {
  let c = totals.checks[check];
  if (c === undefined) totals.checks[check] = c = { success: 0, failure: 0, phases: {} };
  return c;
}

const later = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined ? b : b === undefined ? a : Math.max(a, b));

/** Adds one probe's result to `totals` (the fold of the history and the live metrics share this). */
export function addToProbeTotals(totals: ProbeTotals, check: string, r: ProbeResult): void {
  const c = checkTotals(totals, check);
  if (r.success) c.success++;
  else c.failure++;
  const at = r.finishedAtS !== undefined && Number.isFinite(r.finishedAtS) ? r.finishedAtS : undefined;
  if (at !== undefined) {
    c.lastRunS = later(c.lastRunS, at);
    if (r.success) c.lastSuccessS = later(c.lastSuccessS, at);
  }
  for (const [phase, s] of phaseValues(r)) observeInto(totals, check, phase, s);
}

/** Adds `from` into `into` (same bounds, else a typed error). */
export function mergeProbeTotals(into: ProbeTotals, from: ProbeTotals): void {
  if (!sameBounds(into.bounds, from.bounds)) throw new InvalidArgumentError('probe totals of different bucket bounds cannot be added');
  for (const [check, c] of Object.entries(from.checks)) {
    const t = checkTotals(into, check);
    t.success += c.success;
    t.failure += c.failure;
    const run = later(t.lastRunS, finite(c.lastRunS));
    const ok = later(t.lastSuccessS, finite(c.lastSuccessS));
    if (run !== undefined) t.lastRunS = run;
    if (ok !== undefined) t.lastSuccessS = ok;
    for (const [phase, p] of Object.entries(c.phases)) {
      let q = t.phases[phase];
      if (q === undefined) t.phases[phase] = q = { buckets: new Array<number>(into.bounds.length + 1).fill(0), sum: 0, count: 0 };
      p.buckets.forEach((n, i) => ((q as PhaseTotals).buckets[i] = ((q as PhaseTotals).buckets[i] ?? 0) + n));
      q.sum += p.sum;
      q.count += p.count;
    }
  }
}

const finite = (x: unknown): number | undefined => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);

/** True when two bound lists are the same. */
export function sameBounds(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * The duration histogram, kept as plain counts so the history's counts can be added to it
 * (prom-client's `Histogram` can only observe). The registry renders it like any histogram.
 */
function createTotalsHistogram(totals: ProbeTotals, registry: Registry, target: string): void {
  const spec = PROBE_METRICS.duration;
  const name = spec.name;
  const metric = {
    name,
    help: spec.help,
    type: 'histogram',
    aggregator: 'sum',
    labelNames: spec.labelNames,
    reset: () => undefined,
    get: async () => {
      const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
      for (const [check, c] of Object.entries(totals.checks)) {
        for (const phase of PROBE_PHASES) {
          const p = c.phases[phase];
          if (p === undefined) continue;
          let acc = 0;
          totals.bounds.forEach((le, i) => {
            acc += p.buckets[i] as number;
            values.push({ metricName: `${name}_bucket`, labels: { le, target, check, phase }, value: acc });
          });
          values.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', target, check, phase }, value: p.count });
          values.push({ metricName: `${name}_sum`, labels: { target, check, phase }, value: p.sum });
          values.push({ metricName: `${name}_count`, labels: { target, check, phase }, value: p.count });
        }
      }
      return { name, help: spec.help, type: 'histogram', values, aggregator: 'sum' };
    },
  };
  registry.registerMetric(metric as unknown as Metric);
}

/** Probe metrics in one registry. */
export interface ProbeMetrics {
  readonly registry: Registry;
  /** The `target` label of every series. */
  readonly target: string;
  /** Records one probe of `check` (a short configured name, a bounded label). */
  record(check: string, result: ProbeResult): void;
  /**
   * Adds counts made before this process (the durable history), so the counters continue
   * rather than start over, and the last run and last success are known before the first
   * probe. Call before the first `record`, at most once.
   */
  seed(totals: ProbeTotals): void;
}

/** Options of `createProbeMetrics`. */
export interface ProbeMetricsOptions {
  /** Registry to register in; a new one when omitted. */
  readonly registry?: Registry;
  /** The probe's target name (`--target-name`): the `target` label of every series. */
  readonly target: string;
}

/** Creates and registers the probe metrics of one target. */
export function createProbeMetrics(options: ProbeMetricsOptions): ProbeMetrics {
  const { target } = options;
  if (typeof target !== 'string' || target === '') throw new InvalidArgumentError('probe metrics need a non-empty target name');
  const { Counter, Gauge, Registry } = promClient();
  const registry = options.registry ?? new Registry();
  const p = PROBE_METRICS;
  const gauge = (s: { name: string; help: string; labelNames: readonly string[] }): Gauge =>
    new Gauge({ name: s.name, help: s.help, labelNames: [...s.labelNames], registers: [registry] });
  const success = gauge(p.success);
  const total = new Counter({ name: p.total.name, help: p.total.help, labelNames: [...p.total.labelNames], registers: [registry] });
  const totals = emptyProbeTotals();
  createTotalsHistogram(totals, registry, target);
  const tls = gauge(p.tlsVersion);
  const lastRun = gauge(p.lastRun);
  const lastSuccess = gauge(p.lastSuccess);
  const certExpiry = gauge(p.tlsCertExpiry);
  const seen = new Set<string>();
  const lastTls = new Map<string, string>();
  let seeded = false;
  let recorded = false;

  const ensure = (check: string): void => {
    if (seen.has(check)) return;
    // Both results exist from the first probe on, so a failure ratio reads 0, not "no data".
    total.labels(target, check, 'success').inc(0);
    total.labels(target, check, 'failure').inc(0);
    seen.add(check);
  };

  return {
    registry,
    target,
    seed(from) {
      if (seeded || recorded) throw new InvalidArgumentError('probe metrics: seed once, before the first record');
      seeded = true;
      mergeProbeTotals(totals, from);
      for (const [check, c] of Object.entries(from.checks)) {
        ensure(check);
        total.labels(target, check, 'success').inc(c.success);
        total.labels(target, check, 'failure').inc(c.failure);
        // A pushed round that fails must not drop when the check last succeeded from its group.
        const run = finite(c.lastRunS);
        const ok = finite(c.lastSuccessS);
        if (run !== undefined) lastRun.labels(target, check).set(run);
        if (ok !== undefined) lastSuccess.labels(target, check).set(ok);
      }
    },
    record(check, r) {
      if (typeof check !== 'string' || check === '') throw new InvalidArgumentError('probe check name must be a non-empty string');
      recorded = true;
      ensure(check);
      success.labels(target, check).set(r.success ? 1 : 0);
      total.labels(target, check, r.success ? 'success' : 'failure').inc();
      addToProbeTotals(totals, check, { ...r, success: r.success });
      if (r.finishedAtS !== undefined && Number.isFinite(r.finishedAtS)) {
        lastRun.labels(target, check).set(r.finishedAtS);
        if (r.success) lastSuccess.labels(target, check).set(r.finishedAtS);
      }
      // Only a check that saw a certificate says when it expires; one over http says nothing.
      if (r.certExpiryS !== undefined && Number.isFinite(r.certExpiryS)) certExpiry.labels(target, check).set(r.certExpiryS);
      if (r.tlsVersion !== undefined && r.tlsVersion !== '') {
        const prev = lastTls.get(check);
        // An info metric: only the current version's series exists, always 1.
        if (prev !== undefined && prev !== r.tlsVersion) tls.remove(target, check, prev);
        tls.labels(target, check, r.tlsVersion).set(1);
        lastTls.set(check, r.tlsVersion);
      }
    },
  };
}
