/**
 * Incidents from probe outcomes. Pure.
 *
 * `failuresToOpen` consecutive failures open an incident, which starts at the **first** failure
 * of that run; the next success closes it, and its time is the incident's end. Shorter runs of
 * failures are no incident (they still count as downtime in the uptime math). Each incident,
 * and the mean time to recover, is compared with the service's recovery time objective
 * (the interface states under 4 hours; docs/probes.md).
 */
import { InvalidArgumentError } from '../core/errors.js';
import type { OutcomePoint } from './series.js';

/** The stated recovery time objective: under 4 hours. */
export const RTO_MS = 4 * 3_600_000;

/** The default number of consecutive failures that opens an incident. */
export const DEFAULT_FAILURES_TO_OPEN = 3;

/** One incident of a check (or of the overall series). */
export interface Incident {
  readonly check: string;
  /** Time of the first failure. */
  readonly startMs: number;
  /** Time of the success that closed it; null while open. */
  readonly endMs: number | null;
  /** end − start, or (for an open incident) now − start. */
  readonly durationMs: number;
  /** Failed probes in the incident. */
  readonly failures: number;
  readonly open: boolean;
  /** durationMs < RTO. For an open incident, whether it is still under it. */
  readonly withinRto: boolean;
}

/** What the tracker saw change. */
export type IncidentEvent = { readonly kind: 'opened'; readonly incident: Incident } | { readonly kind: 'closed'; readonly incident: Incident };

/** Options of incident detection. */
export interface IncidentOptions {
  readonly failuresToOpen?: number;
  readonly rtoMs?: number;
  /**
   * Closed incidents `closed()` keeps, the latest (default: all). A daemon or a fold over a long
   * history that only needs the events sets a bound, so flapping cannot grow it without end.
   */
  readonly keepClosed?: number;
  /**
   * The failures a series ended with in an earlier history (a restarted probe): the tracker
   * starts inside that run, open when it is long enough, as if it had observed it.
   */
  readonly resumeFrom?: { readonly startMs: number; readonly failures: number };
}

/** Follows one series point by point, for live reporting and for the batch summary. */
export interface IncidentTracker {
  /** Takes the next point (in time order); returns the change it caused, if any. */
  observe(point: OutcomePoint): IncidentEvent | undefined;
  /** The open incident as of `nowMs`, if any. */
  current(nowMs: number): Incident | undefined;
  /** Closed incidents, oldest first (the latest `keepClosed` of them). */
  closed(): readonly Incident[];
}

function resolveIncidentOptions(o: IncidentOptions): { failuresToOpen: number; rtoMs: number } {
  const failuresToOpen = o.failuresToOpen ?? DEFAULT_FAILURES_TO_OPEN;
  const rtoMs = o.rtoMs ?? RTO_MS;
  if (!(Number.isInteger(failuresToOpen) && failuresToOpen >= 1)) {
    throw new InvalidArgumentError(`failuresToOpen must be an integer >= 1, got ${failuresToOpen}`);
  }
  if (!(Number.isFinite(rtoMs) && rtoMs > 0)) throw new InvalidArgumentError(`rtoMs must be a positive number, got ${rtoMs}`);
  return { failuresToOpen, rtoMs };
}

/** Creates a tracker for the series of `check`. Throws `InvalidArgumentError` for bad options. */
export function createIncidentTracker(check: string, options: IncidentOptions = {}): IncidentTracker {
  const { failuresToOpen, rtoMs } = resolveIncidentOptions(options);
  const keepClosed = options.keepClosed ?? Infinity;
  const done: Incident[] = [];
  let runStartMs: number | undefined = options.resumeFrom?.startMs;
  let runFailures = options.resumeFrom?.failures ?? 0;
  let opened = runFailures >= failuresToOpen;

  const make = (endMs: number | null, nowMs: number): Incident => {
    const start = runStartMs as number;
    const durationMs = Math.max(0, (endMs ?? nowMs) - start);
    return { check, startMs: start, endMs, durationMs, failures: runFailures, open: endMs === null, withinRto: durationMs < rtoMs };
  };

  return {
    observe(p) {
      if (!p.success) {
        if (runStartMs === undefined) runStartMs = p.timeMs;
        runFailures++;
        if (!opened && runFailures >= failuresToOpen) {
          opened = true;
          return { kind: 'opened', incident: make(null, p.timeMs) };
        }
        return undefined;
      }
      let event: IncidentEvent | undefined;
      if (opened) {
        const incident = make(p.timeMs, p.timeMs);
        if (keepClosed > 0) {
          done.push(incident);
          if (done.length > keepClosed) done.shift();
        }
        event = { kind: 'closed', incident };
      }
      runStartMs = undefined;
      runFailures = 0;
      opened = false;
      return event;
    },
    current: (nowMs) => (opened ? make(null, nowMs) : undefined),
    closed: () => done,
  };
}

/** Incidents of one series with their recovery statistics. */
export interface IncidentSummary {
  readonly check: string;
  /** Closed incidents, then the open one if any. */
  readonly incidents: readonly Incident[];
  readonly open: Incident | undefined;
  /** Mean duration of the closed incidents; undefined when none closed. */
  readonly mttrMs: number | undefined;
  /** MTTR under the RTO; undefined when there is no MTTR. */
  readonly mttrWithinRto: boolean | undefined;
  /** Incidents (open included) that reached the RTO. */
  readonly rtoBreaches: number;
  readonly rtoMs: number;
}

/** Detects the incidents of a time-ordered series, as of `nowMs` (for an open one). */
export function detectIncidents(check: string, points: readonly OutcomePoint[], options: IncidentOptions & { nowMs: number }): IncidentSummary {
  const rtoMs = resolveIncidentOptions(options).rtoMs;
  const tracker = createIncidentTracker(check, options);
  for (const p of points) tracker.observe(p);
  const closed = tracker.closed();
  const open = tracker.current(options.nowMs);
  const incidents = open === undefined ? [...closed] : [...closed, open];
  const mttrMs = closed.length === 0 ? undefined : closed.reduce((s, i) => s + i.durationMs, 0) / closed.length;
  return {
    check,
    incidents,
    open,
    mttrMs,
    mttrWithinRto: mttrMs === undefined ? undefined : mttrMs < rtoMs,
    rtoBreaches: incidents.filter((i) => !i.withinRto).length,
    rtoMs,
  };
}
