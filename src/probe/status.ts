/**
 * The SLO status of a probe history over a window: per check and overall, time-based and
 * probe-based uptime, error budget and burn rate against the objective, incidents with their
 * recovery-time verdicts, and TLS findings. Pure; `--json` prints this object as it is
 * (schema `flowgauge/slo-status@1`: fields may be added, never renamed).
 *
 * Built as a fold over records (`createSloStatusFold`), so a history of any size is read in
 * bounded memory: nothing here holds more than a reorder buffer, a point per series and the
 * listed incidents.
 */
import { assertObjective, DEFAULT_OBJECTIVE } from '../slo/budget.js';
import { InvalidArgumentError } from '../core/errors.js';
import { RTO_MS, DEFAULT_FAILURES_TO_OPEN } from './incidents.js';
import { recordTimeMs, type ProbeRecord } from './record.js';
import { OVERALL } from './series.js';
import { createSeriesStream } from './series-stream.js';
import { createSeriesFold, MAX_LISTED_INCIDENTS, type SeriesFold, type SeriesStatus } from './status-series.js';
import { timelineOf, type Timeline } from './timeline.js';

/** Schema name of the status object. */
export const SLO_STATUS_SCHEMA = 'flowgauge/slo-status@1';

export type { IncidentStatus, SeriesStatus, TlsStatus } from './status-series.js';

/** What reading the history found (passed through for the report). */
export interface HistoryStats {
  readonly files: number;
  readonly tornTails: number;
  readonly badLines: number;
}

/** The whole status. */
export interface SloStatus {
  readonly schema: typeof SLO_STATUS_SCHEMA;
  /** The target these figures are of (`--target-name` of its probe); absent when its records name none. */
  readonly target?: string;
  /**
   * When the history holds several targets: each one's status (`createTargetedStatusFold`).
   * The figures beside it are then those of the target furthest from its objective, and
   * `withinObjective` is true only when every target meets it.
   */
  readonly targets?: readonly SloStatus[];
  readonly generatedAt: string;
  readonly window: { readonly start: string; readonly end: string; readonly days: number };
  readonly objective: number;
  readonly rtoHours: number;
  readonly failuresToOpen: number;
  /** How the overall series is judged: a round is down when any check failed. */
  readonly overallDefinition: 'any-check-failing';
  readonly overall: SeriesStatus;
  readonly checks: readonly SeriesStatus[];
  /** Overall time-based uptime meets the objective (false when nothing was observed); with `targets`, every target's does. */
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

const r6 = (x: number): number => Math.round(x * 1e6) / 1e6;
const iso = (ms: number): string => new Date(ms).toISOString();

/** A status built record by record. */
export interface SloStatusFold {
  /** Takes a record, in about time order (see `createSeriesStream`); `timeMs` if already read. */
  add(record: ProbeRecord, timeMs?: number): void;
  /** The status; `history` (what reading found) replaces the option's. Call once. */
  finish(history?: HistoryStats): SloStatus;
}

/**
 * Creates the fold of a status. Records need only be nearly in time order (as a history file
 * holds them); those at or after the window's end are ignored, earlier ones only clip into it.
 */
export function createSloStatusFold(options: SloStatusOptions): SloStatusFold {
  const objective = options.objective ?? DEFAULT_OBJECTIVE;
  const failuresToOpen = options.failuresToOpen ?? DEFAULT_FAILURES_TO_OPEN;
  const rtoMs = options.rtoMs ?? RTO_MS;
  if (!(Number.isFinite(options.windowMs) && options.windowMs > 0)) throw new InvalidArgumentError('status window must be a positive duration');
  assertObjective(objective);
  const window = { startMs: options.nowMs - options.windowMs, endMs: options.nowMs };
  const shared = { window, nowMs: options.nowMs, windowMs: options.windowMs, objective, failuresToOpen, rtoMs };
  const overall = createSeriesFold(OVERALL, shared);
  // Checks in order of their first record, as the status lists them.
  const checks = new Map<string, SeriesFold>();
  let inWindow = 0;
  const stream = createSeriesStream((name, point, record) => {
    if (name === OVERALL) return overall.add(point);
    let fold = checks.get(name);
    if (fold === undefined) checks.set(name, (fold = createSeriesFold(name, shared)));
    fold.add(point);
    if (record !== undefined) {
      fold.record(record);
      overall.record(record);
    }
  });

  return {
    add(record, t = recordTimeMs(record)) {
      if (t >= window.endMs) return;
      if (t >= window.startMs) inWindow++;
      stream.add(record, t);
    },
    finish(history) {
      stream.end();
      const o = overall.finish();
      const c = [...checks.values()].map((f) => f.finish());
      const checkStatus = c.map((x) => x.status);
      return {
        schema: SLO_STATUS_SCHEMA,
        generatedAt: iso(options.nowMs),
        window: { start: iso(window.startMs), end: iso(window.endMs), days: r6(options.windowMs / 86_400_000) },
        objective,
        rtoHours: r6(rtoMs / 3_600_000),
        failuresToOpen,
        overallDefinition: 'any-check-failing',
        overall: o.status,
        checks: checkStatus,
        withinObjective: o.status.withinObjective === true,
        warnings: statusWarnings(o.status, checkStatus),
        timeline: timelineOf([o.row, ...c.map((x) => x.row)], window, o.status.allowedDowntimeMinutes * 60_000),
        history: { files: 0, tornTails: 0, badLines: 0, ...(history ?? options.history), records: inWindow },
      };
    },
  };
}

/** Builds the status of `records` (any order; those outside the window only clip into it). */
export function buildSloStatus(records: readonly ProbeRecord[], options: SloStatusOptions): SloStatus {
  const fold = createSloStatusFold(options);
  for (const r of [...records].sort((a, b) => recordTimeMs(a) - recordTimeMs(b))) fold.add(r);
  return fold.finish();
}

/** Coverage below this share of the window is worth a warning. */
const LOW_COVERAGE = 0.9;

/** A list of names for a sentence: `a`, `a and b`, `a, b and c`. */
function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1) as string}`;
}

/**
 * Warnings about what the figures cannot see (late records, a thinly covered window, unlisted
 * incidents) and about certificates under the probe's minimum. One warning per kind, naming
 * the series it concerns: a late schedule shows in every series at once and is one finding.
 */
function statusWarnings(overall: SeriesStatus, checks: readonly SeriesStatus[]): string[] {
  const out: string[] = [];
  const all = [overall, ...checks];
  const omitted = all.filter((c) => c.incidentsOmitted > 0);
  if (omitted.length > 0) {
    out.push(
      `older incidents of the window are not listed (only the latest ${MAX_LISTED_INCIDENTS} of a series are): ` +
        `${listed(omitted.map((c) => `${c.incidentsOmitted} older incidents of ${c.name}`))}; MTTR and RTO breaches count them all`,
    );
  }
  const late = all.filter((c) => c.lateGaps > 0);
  if (late.length > 0) {
    out.push(
      `records arrived further apart than they claim to stand for in ${listed(late.map((c) => `${c.name} (${c.lateGaps} record${c.lateGaps === 1 ? '' : 's'}, ${c.lateGapMinutes.toFixed(2)} min)`))}: ` +
        'those minutes count neither up nor down; run the probe with --interval equal to its schedule',
    );
  }
  if (overall.probes > 0 && overall.coverage < LOW_COVERAGE) {
    out.push(`the records cover ${(overall.coverage * 100).toFixed(1)} % of the window: uptime is judged over the observed ${overall.observedMinutes.toFixed(2)} min only`);
  }
  const expiring = checks.filter((c) => c.tls !== null && c.tls.certDaysLeft !== null && (c.tls.certMinDays ?? 0) > 0 && c.tls.certDaysLeft < (c.tls.certMinDays ?? 0));
  const first = expiring[0]?.tls;
  if (first != null && first.certDaysLeft !== null) {
    const left = first.certDaysLeft;
    const when = left < 0 ? `expired ${(-left).toFixed(1)} days ago` : `expires in ${left.toFixed(1)} days`;
    out.push(
      `the certificate seen by ${listed(expiring.map((c) => c.name))} ${when} (${first.certValidTo ?? 'unknown date'}), under the probe's ${first.certMinDays ?? 0}-day minimum: ` +
        'renew it (uptime is not affected: the answers were good; a finding, not downtime, until it is renewed or expires)',
    );
  }
  return out;
}
