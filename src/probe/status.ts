/**
 * The SLO status of a probe history over a window: per check and overall, time-based and
 * probe-based uptime, error budget and burn rate against the objective, incidents with their
 * recovery-time verdicts, and TLS findings. Pure; `--json` prints this object as it is
 * (schema `flowgauge/slo-status@1`: fields may be added, never renamed).
 */
import { InvalidArgumentError } from '../core/errors.js';
import { DEFAULT_OBJECTIVE } from '../slo/budget.js';
import { detectIncidents, RTO_MS, DEFAULT_FAILURES_TO_OPEN, type Incident } from './incidents.js';
import { recordTimeMs, type ProbeRecord } from './record.js';
import { OVERALL, overallSeries, seriesByCheck, type OutcomePoint } from './series.js';
import { buildTimeline, type Timeline } from './timeline.js';
import { computeUptime, uptimeBudget } from './uptime.js';

/** Schema name of the status object. */
export const SLO_STATUS_SCHEMA = 'flowgauge/slo-status@1';

/** An incident as reported: ISO times and minutes. */
export interface IncidentStatus {
  readonly start: string;
  readonly end: string | null;
  readonly durationMinutes: number;
  readonly failures: number;
  readonly open: boolean;
  readonly withinRto: boolean;
}

/** The last TLS finding of a check. */
export interface TlsStatus {
  readonly checkedAt: string;
  readonly version: string | null;
  readonly versionOk: boolean;
  readonly certValidTo: string | null;
  readonly certDaysLeft: number | null;
  readonly authorized: boolean;
}

/** Status of one series (a check, or `overall`). Absent quantities are null. */
export interface SeriesStatus {
  readonly name: string;
  readonly probes: number;
  readonly successes: number;
  readonly probeUptime: number | null;
  readonly observedMinutes: number;
  /** observedMinutes / the window's minutes: how much of the window the records speak for. */
  readonly coverage: number;
  /** Records that arrived further apart than the earlier one claimed (see `computeUptime`). */
  readonly lateGaps: number;
  /** Minutes those late records leave uncounted (neither up nor down). */
  readonly lateGapMinutes: number;
  readonly upMinutes: number;
  readonly downMinutes: number;
  readonly timeUptime: number | null;
  readonly allowedDowntimeMinutes: number;
  readonly budgetLeftMinutes: number;
  readonly budgetConsumed: number;
  readonly burnRate: number | null;
  readonly withinObjective: boolean | null;
  readonly incidents: readonly IncidentStatus[];
  readonly mttrMinutes: number | null;
  readonly mttrWithinRto: boolean | null;
  readonly rtoBreaches: number;
  readonly tls: TlsStatus | null;
}

/** What reading the history found (passed through for the report). */
export interface HistoryStats {
  readonly files: number;
  readonly tornTails: number;
  readonly badLines: number;
}

/** The whole status. */
export interface SloStatus {
  readonly schema: typeof SLO_STATUS_SCHEMA;
  readonly generatedAt: string;
  readonly window: { readonly start: string; readonly end: string; readonly days: number };
  readonly objective: number;
  readonly rtoHours: number;
  readonly failuresToOpen: number;
  /** How the overall series is judged: a round is down when any check failed. */
  readonly overallDefinition: 'any-check-failing';
  readonly overall: SeriesStatus;
  readonly checks: readonly SeriesStatus[];
  /** Overall time-based uptime meets the objective (false when nothing was observed). */
  readonly withinObjective: boolean;
  /** What a reader must know before trusting the figures (coverage, late records); may be empty. */
  readonly warnings: readonly string[];
  /** The window in equal buckets per series (overall first), incidents marked, budget burned. */
  readonly timeline: Timeline;
  readonly history: HistoryStats & { readonly records: number };
}

/** Options of `buildSloStatus`. */
export interface SloStatusOptions {
  /** End of the window (now), ms since the epoch. */
  readonly nowMs: number;
  readonly windowMs: number;
  /** Default 0.999. */
  readonly objective?: number;
  readonly failuresToOpen?: number;
  readonly rtoMs?: number;
  readonly history?: HistoryStats;
}

const MINUTE_MS = 60_000;
const r6 = (x: number): number => Math.round(x * 1e6) / 1e6;
const iso = (ms: number): string => new Date(ms).toISOString();

function incidentStatus(i: Incident): IncidentStatus {
  return {
    start: iso(i.startMs),
    end: i.endMs === null ? null : iso(i.endMs),
    durationMinutes: r6(i.durationMs / MINUTE_MS),
    failures: i.failures,
    open: i.open,
    withinRto: i.withinRto,
  };
}

function lastTls(records: readonly ProbeRecord[], check: string | undefined): TlsStatus | null {
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i] as ProbeRecord;
    if ((check === undefined || r.check === check) && r.tls !== null && r.tls !== undefined) return { checkedAt: r.time, ...r.tls };
  }
  return null;
}

/** Builds the status of `records` (any order; those outside the window only clip into it). */
export function buildSloStatus(records: readonly ProbeRecord[], options: SloStatusOptions): SloStatus {
  const objective = options.objective ?? DEFAULT_OBJECTIVE;
  const failuresToOpen = options.failuresToOpen ?? DEFAULT_FAILURES_TO_OPEN;
  const rtoMs = options.rtoMs ?? RTO_MS;
  if (!(Number.isFinite(options.windowMs) && options.windowMs > 0)) throw new InvalidArgumentError('status window must be a positive duration');
  const window = { startMs: options.nowMs - options.windowMs, endMs: options.nowMs };
  const sorted = [...records].filter((r) => recordTimeMs(r) < window.endMs).sort((a, b) => recordTimeMs(a) - recordTimeMs(b));

  const timelineInput: { name: string; points: readonly OutcomePoint[]; incidents: { startMs: number; endMs: number }[] }[] = [];
  const seriesStatus = (name: string, points: readonly OutcomePoint[], tls: TlsStatus | null): SeriesStatus => {
    const u = computeUptime(points, window);
    const b = uptimeBudget(u, objective, options.windowMs);
    const inc = detectIncidents(name, points, { failuresToOpen, rtoMs, nowMs: options.nowMs });
    // Incidents that ended before the window are history of an earlier window.
    const relevant = inc.incidents.filter((i) => (i.endMs ?? options.nowMs) >= window.startMs);
    timelineInput.push({ name, points, incidents: relevant.map((i) => ({ startMs: i.startMs, endMs: i.endMs ?? options.nowMs })) });
    const closed = relevant.filter((i) => !i.open);
    const mttrMs = closed.length === 0 ? undefined : closed.reduce((s, i) => s + i.durationMs, 0) / closed.length;
    return {
      name,
      probes: u.probes,
      successes: u.successes,
      probeUptime: u.probeUptime ?? null,
      observedMinutes: r6(u.observedMs / MINUTE_MS),
      coverage: r6(u.observedMs / options.windowMs),
      lateGaps: u.lateGaps,
      lateGapMinutes: r6(u.lateGapMs / MINUTE_MS),
      upMinutes: r6(u.upMs / MINUTE_MS),
      downMinutes: b.downMinutes,
      timeUptime: u.timeUptime ?? null,
      allowedDowntimeMinutes: b.allowedDowntimeMinutes,
      budgetLeftMinutes: b.budgetLeftMinutes,
      budgetConsumed: b.budgetConsumed,
      burnRate: b.burnRate ?? null,
      withinObjective: b.withinObjective ?? null,
      incidents: relevant.map(incidentStatus),
      mttrMinutes: mttrMs === undefined ? null : r6(mttrMs / MINUTE_MS),
      mttrWithinRto: mttrMs === undefined ? null : mttrMs < rtoMs,
      rtoBreaches: relevant.filter((i) => !i.withinRto).length,
      tls,
    };
  };

  const checks = [...seriesByCheck(sorted)].map(([name, points]) => seriesStatus(name, points, lastTls(sorted, name)));
  const overall = seriesStatus(OVERALL, overallSeries(sorted), lastTls(sorted, undefined));
  const inWindow = sorted.filter((r) => recordTimeMs(r) >= window.startMs).length;
  return {
    schema: SLO_STATUS_SCHEMA,
    generatedAt: iso(options.nowMs),
    window: { start: iso(window.startMs), end: iso(window.endMs), days: r6(options.windowMs / 86_400_000) },
    objective,
    rtoHours: r6(rtoMs / 3_600_000),
    failuresToOpen,
    overallDefinition: 'any-check-failing',
    overall,
    checks,
    withinObjective: overall.withinObjective === true,
    warnings: statusWarnings(overall, checks),
    timeline: buildTimeline(
      [...timelineInput.filter((t) => t.name === OVERALL), ...timelineInput.filter((t) => t.name !== OVERALL)],
      window,
      overall.allowedDowntimeMinutes * MINUTE_MS,
    ),
    history: { files: 0, tornTails: 0, badLines: 0, ...options.history, records: inWindow },
  };
}

/** Coverage below this share of the window is worth a warning. */
const LOW_COVERAGE = 0.9;

/** Warnings about what the figures cannot see: late records and a thinly covered window. */
function statusWarnings(overall: SeriesStatus, checks: readonly SeriesStatus[]): string[] {
  const out: string[] = [];
  for (const c of [overall, ...checks]) {
    if (c.lateGaps === 0) continue;
    out.push(
      `${c.name}: ${c.lateGaps} record${c.lateGaps === 1 ? '' : 's'} arrived further apart than they claim to stand for, ` +
        `leaving ${c.lateGapMinutes.toFixed(2)} min counted neither up nor down; run the probe with --interval equal to its schedule`,
    );
  }
  if (overall.probes > 0 && overall.coverage < LOW_COVERAGE) {
    out.push(`the records cover ${(overall.coverage * 100).toFixed(1)} % of the window: uptime is judged over the observed ${overall.observedMinutes.toFixed(2)} min only`);
  }
  return out;
}
