/**
 * What following asynchronous work showed: runs that answered `running` (and triggers whose
 * run id was known) polled with `GET /runs/{id}` until they finished. Pure: the follower in
 * run/ does the polling and reports each poll and each end here.
 *
 * The interface states neither the range of `progress` nor that it never goes back, so both
 * are observed: the range seen, values outside 0–100, decreases, non-integers. Completion is
 * seen at a poll, up to one interval after it happened: the mean bias is half the interval.
 */
import { createLatencyHistogram, recordNs, toPct, type Pct } from './histogram.js';

/** What was followed. */
export type AsyncKind = 'run' | 'trigger';

/** How a follow ended. */
export type FollowEnd = 'completed' | 'failed' | 'timeout' | 'abandoned' | 'error';

/** Why a run that needed following was not followed. */
export type FollowSkip = 'cap' | 'stopped';

/** One poll's answer. */
export interface PollObservation {
  /** HTTP status (0 when no response arrived). */
  readonly httpStatus: number;
  /** Error classification of a failed poll. */
  readonly errorCode: string | undefined;
  /** `status` of the run in the body, when the poll succeeded. */
  readonly runStatus: string | undefined;
  /** `progress` of the body as sent (anything). */
  readonly progress: unknown;
}

/** One followed run. */
export interface AsyncRunTrack {
  poll(p: PollObservation): void;
  /** Ends the follow; `atNs` is when the end was seen (the completing poll's arrival). */
  end(outcome: FollowEnd, atNs: number): void;
  /**
   * The run was handed over to the journey that polls it itself: it counts as neither followed
   * nor ended, while the polls already sent (and one still in flight) stay counted.
   */
  release(): void;
}

/** A trigger completion learnt from a notification rather than a poll. */
export interface NotifiedTriggerCompletion {
  readonly intendedNs: number;
  readonly completedNs: number;
  readonly status: 'completed' | 'failed';
}

/** The `asyncRuns` section of report.json. */
export interface AsyncRunsSnapshot {
  readonly pollIntervalMs: number;
  /** Completion is observed up to one interval late; on average half of it. */
  readonly meanBiasMs: number;
  readonly followed: { readonly run: number; readonly trigger: number };
  readonly notFollowed: Readonly<Record<FollowSkip, number>>;
  readonly final: Readonly<Record<FollowEnd, number>>;
  /** Follows still going when the snapshot was taken. */
  readonly active: number;
  /** Intended start of the request → the poll that saw the run finished (completed or failed). */
  readonly timeToCompletionMs: Pct;
  /** Polls per finished follow (completed or failed), exact. */
  readonly pollsPerRun: { readonly runs: number; readonly mean: number; readonly max: number };
  readonly polls: {
    readonly total: number;
    readonly statuses: Readonly<Record<string, number>>;
    readonly errors: Readonly<Record<string, number>>;
  };
  readonly progress: {
    /** Numeric progress values seen. */
    readonly values: number;
    /** Lowest and highest value seen; null before any. */
    readonly min: number | null;
    readonly max: number | null;
    /** Range of the value at completion. */
    readonly atCompletion: { readonly min: number | null; readonly max: number | null };
    readonly outside0to100: number;
    readonly nonInteger: number;
    /** Polls whose body had no numeric progress. */
    readonly missing: number;
    /** Polls whose progress was lower than the previous poll's, and the runs that had one. */
    readonly decreases: number;
    readonly runsWithDecrease: number;
    /** True when no run's progress ever went down. */
    readonly monotonic: boolean;
  };
  readonly triggers: {
    readonly completedByPolling: number;
    readonly completedByNotification: number;
    /** Intended start of the trigger → its run's completion, by either route. */
    readonly timeToCompletionMs: Pct;
  };
}

/** The collector. */
export interface AsyncRunsCollector {
  /** Starts tracking one follow from the request's intended start. */
  begin(kind: AsyncKind, intendedNs: number): AsyncRunTrack;
  skipped(reason: FollowSkip): void;
  triggerNotified(c: NotifiedTriggerCompletion): void;
  snapshot(): AsyncRunsSnapshot;
}

function bump(map: Record<string, number>, key: string): void {
  map[key] = (map[key] ?? 0) + 1;
}

/** Creates the collector for a given poll interval. */
export function createAsyncRunsCollector(options: { readonly pollIntervalMs: number }): AsyncRunsCollector {
  const pollIntervalMs = options.pollIntervalMs;
  const followed = { run: 0, trigger: 0 };
  const notFollowed: Record<FollowSkip, number> = { cap: 0, stopped: 0 };
  const final: Record<FollowEnd, number> = { completed: 0, failed: 0, timeout: 0, abandoned: 0, error: 0 };
  const statuses: Record<string, number> = {};
  const errors: Record<string, number> = {};
  const completion = createLatencyHistogram();
  const perRun = { runs: 0, total: 0, max: 0 };
  const triggerCompletion = createLatencyHistogram();
  const triggers = { polled: 0, notified: 0 };
  const p = { values: 0, min: Infinity, max: -Infinity, endMin: Infinity, endMax: -Infinity, outside: 0, nonInteger: 0, missing: 0, decreases: 0, runsWithDecrease: 0 };
  let active = 0;
  let polls = 0;

  return {
    begin(kind, intendedNs) {
      followed[kind]++;
      active++;
      let n = 0;
      let last: number | undefined;
      let decreased = false;
      let ended = false;
      let released = false;
      return {
        poll(o) {
          if (ended) return;
          n++;
          polls++;
          bump(statuses, String(o.httpStatus));
          if (o.errorCode !== undefined) {
            bump(errors, o.errorCode);
            return;
          }
          const v = o.progress;
          if (typeof v !== 'number' || !Number.isFinite(v)) {
            p.missing++;
            return;
          }
          p.values++;
          if (v < p.min) p.min = v;
          if (v > p.max) p.max = v;
          if (v < 0 || v > 100) p.outside++;
          if (!Number.isInteger(v)) p.nonInteger++;
          if (last !== undefined && v < last) {
            p.decreases++;
            if (!decreased) p.runsWithDecrease++;
            decreased = true;
          }
          last = v;
          if (o.runStatus === 'completed' || o.runStatus === 'failed') {
            if (v < p.endMin) p.endMin = v;
            if (v > p.endMax) p.endMax = v;
          }
        },
        end(outcome, atNs) {
          if (ended || released) return;
          ended = true;
          active--;
          final[outcome]++;
          if (outcome === 'completed' || outcome === 'failed') {
            recordNs(completion, atNs - intendedNs);
            perRun.runs++;
            perRun.total += n;
            if (n > perRun.max) perRun.max = n;
            if (kind === 'trigger') {
              triggers.polled++;
              recordNs(triggerCompletion, atNs - intendedNs);
            }
          }
        },
        release() {
          if (ended || released) return;
          released = true;
          followed[kind]--;
          active--;
        },
      };
    },

    skipped(reason) {
      notFollowed[reason]++;
    },

    triggerNotified(c) {
      triggers.notified++;
      recordNs(triggerCompletion, c.completedNs - c.intendedNs);
    },

    snapshot() {
      const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);
      return {
        pollIntervalMs,
        meanBiasMs: pollIntervalMs / 2,
        followed: { ...followed },
        notFollowed: { ...notFollowed },
        final: { ...final },
        active,
        timeToCompletionMs: toPct(completion),
        pollsPerRun: { runs: perRun.runs, mean: perRun.runs === 0 ? 0 : Math.round((perRun.total / perRun.runs) * 1000) / 1000, max: perRun.max },
        polls: { total: polls, statuses: { ...statuses }, errors: { ...errors } },
        progress: {
          values: p.values,
          min: finite(p.min),
          max: finite(p.max),
          atCompletion: { min: finite(p.endMin), max: finite(p.endMax) },
          outside0to100: p.outside,
          nonInteger: p.nonInteger,
          missing: p.missing,
          decreases: p.decreases,
          runsWithDecrease: p.runsWithDecrease,
          monotonic: p.decreases === 0,
        },
        triggers: { completedByPolling: triggers.polled, completedByNotification: triggers.notified, timeToCompletionMs: toPct(triggerCompletion) },
      };
    },
  };
}
