/**
 * The status figures of one series (a check, or overall), folded point by point in bounded
 * memory: uptime and budget, incidents with their recovery-time verdicts, the timeline row and
 * the last TLS finding. `status.ts` feeds one fold per series from a stream of records.
 */
import { createIncidentTracker, type Incident } from './incidents.js';
import type { ProbeRecord, TlsFinding } from './record.js';
import type { OutcomePoint } from './series.js';
import { createTimelineAccumulator, type TimelineTrack } from './timeline.js';
import { createUptimeAccumulator, uptimeBudget, type TimeWindow } from './uptime.js';

/** An incident as reported: ISO times and minutes. */
export interface IncidentStatus {
  readonly start: string;
  readonly end: string | null;
  readonly durationMinutes: number;
  readonly failures: number;
  readonly open: boolean;
  readonly withinRto: boolean;
}

/** The last TLS finding of a check (`certMinDays` is absent in older records; 0: not judged), and when it was made. */
export type TlsStatus = { readonly checkedAt: string } & Pick<TlsFinding, 'version' | 'versionOk' | 'certValidTo' | 'certDaysLeft' | 'authorized' | 'certMinDays'>;

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
  /** The latest incidents of the window, oldest first (at most `MAX_LISTED_INCIDENTS`). */
  readonly incidents: readonly IncidentStatus[];
  /** Incidents of the window too old to be listed; they count in MTTR and RTO breaches. */
  readonly incidentsOmitted: number;
  readonly mttrMinutes: number | null;
  readonly mttrWithinRto: boolean | null;
  readonly rtoBreaches: number;
  readonly tls: TlsStatus | null;
}

/**
 * Incidents a series lists, the latest. A flapping check over a long window can open hundreds
 * of thousands; the rest are counted (`incidentsOmitted`) and still weigh in MTTR and breaches.
 */
export const MAX_LISTED_INCIDENTS = 1000;

/** What every series of one status shares. */
export interface SeriesFoldOptions {
  readonly window: TimeWindow;
  readonly nowMs: number;
  readonly windowMs: number;
  readonly objective: number;
  readonly failuresToOpen: number;
  readonly rtoMs: number;
}

/** One series' fold. */
export interface SeriesFold {
  /** Takes the next point (in time order). */
  add(point: OutcomePoint): void;
  /** Notes a record of the series (its TLS finding, if any, becomes the latest). */
  record(r: ProbeRecord): void;
  /** The series' status and timeline row. Call once, after the last point. */
  finish(): { readonly status: SeriesStatus; readonly row: TimelineTrack };
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

/** Creates the fold of the series `name`. */
export function createSeriesFold(name: string, o: SeriesFoldOptions): SeriesFold {
  const uptime = createUptimeAccumulator(o.window);
  const timeline = createTimelineAccumulator(o.window);
  // Closed incidents arrive as events; the tracker need not keep them.
  const tracker = createIncidentTracker(name, { failuresToOpen: o.failuresToOpen, rtoMs: o.rtoMs, keepClosed: 0 });
  const listed: IncidentStatus[] = [];
  let counted = 0;
  let closedCount = 0;
  let closedMs = 0;
  let rtoBreaches = 0;
  let tls: TlsStatus | null = null;

  const take = (i: Incident): void => {
    // Incidents that ended before the window are history of an earlier window.
    if ((i.endMs ?? o.nowMs) < o.window.startMs) return;
    counted++;
    if (!i.open) {
      closedCount++;
      closedMs += i.durationMs;
    }
    if (!i.withinRto) rtoBreaches++;
    timeline.markIncident(i.startMs, i.endMs ?? o.nowMs);
    listed.push(incidentStatus(i));
    if (listed.length > MAX_LISTED_INCIDENTS) listed.shift();
  };

  return {
    add(point) {
      uptime.add(point);
      timeline.add(point);
      const ev = tracker.observe(point);
      if (ev?.kind === 'closed') take(ev.incident);
    },
    record(r) {
      if (r.tls !== null && r.tls !== undefined) tls = { checkedAt: r.time, ...r.tls };
    },
    finish() {
      const open = tracker.current(o.nowMs);
      if (open !== undefined) take(open);
      const u = uptime.finish();
      const b = uptimeBudget(u, o.objective, o.windowMs);
      const mttrMs = closedCount === 0 ? undefined : closedMs / closedCount;
      const status: SeriesStatus = {
        name,
        probes: u.probes,
        successes: u.successes,
        probeUptime: u.probeUptime ?? null,
        observedMinutes: r6(u.observedMs / MINUTE_MS),
        coverage: r6(u.observedMs / o.windowMs),
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
        incidents: listed,
        incidentsOmitted: counted - listed.length,
        mttrMinutes: mttrMs === undefined ? null : r6(mttrMs / MINUTE_MS),
        mttrWithinRto: mttrMs === undefined ? null : mttrMs < o.rtoMs,
        rtoBreaches,
        tls,
      };
      return { status, row: timeline.finish(name) };
    },
  };
}
