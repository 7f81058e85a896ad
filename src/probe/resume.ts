/**
 * What a restarted probe needs from its history, folded in bounded memory: the latest record
 * of each check (the span a `--once` round stands for) and, per series, the failures since its
 * last success (so an outage that began before the restart keeps its start and its count).
 * Earlier records change neither, so none is kept.
 */
import { foldHistory, type HistoryRange, type HistoryScan } from './history-reader.js';
import { recordTimeMs, type ProbeRecord } from './record.js';
import { createSeriesStream } from './series-stream.js';

/** The failures that end a series: since its last success, or since its first point. */
export interface FailureRun {
  /** Time of the first of them. */
  readonly startMs: number;
  readonly failures: number;
}

/** Where a history left the probe. */
export interface ProbeResume {
  /** The latest record of each check no later than `nowMs`. */
  readonly latest: readonly ProbeRecord[];
  /** Series (checks and `overall`) that ended failing, with their run of failures. */
  readonly tails: ReadonlyMap<string, FailureRun>;
}

/** A resume built record by record. */
export interface ResumeFold {
  /** Takes a record, in about time order; `timeMs` if already read. */
  add(record: ProbeRecord, timeMs?: number): void;
  /** Call once, after the last record. */
  finish(): ProbeResume;
}

/**
 * Creates the fold of a resume as of `nowMs`. With `target`, records of other targets are
 * skipped (those that name none are this prober's: written before targets were kept).
 */
export function createResumeFold(nowMs: number, target?: string): ResumeFold {
  const latest = new Map<string, { record: ProbeRecord; timeMs: number }>();
  const tails = new Map<string, FailureRun>();
  const stream = createSeriesStream((series, p) => {
    if (p.success) tails.delete(series);
    else {
      const run = tails.get(series);
      tails.set(series, run === undefined ? { startMs: p.timeMs, failures: 1 } : { startMs: run.startMs, failures: run.failures + 1 });
    }
  });
  return {
    add(record, t = recordTimeMs(record)) {
      if (target !== undefined && record.target !== undefined && record.target !== target) return;
      stream.add(record, t);
      if (t > nowMs) return;
      const seen = latest.get(record.check);
      if (seen === undefined || seen.timeMs < t) latest.set(record.check, { record, timeMs: t });
    },
    finish() {
      stream.end();
      return { latest: [...latest.values()].map((l) => l.record), tails };
    },
  };
}

/** Folds the history of `dir` in `range` into a resume of `target` (default: every record) as of `nowMs`. */
export async function readProbeResume(dir: string, range: HistoryRange, nowMs: number, target?: string): Promise<ProbeResume & { readonly scan: HistoryScan }> {
  const fold = createResumeFold(nowMs, target);
  const scan = await foldHistory(dir, range, (r, t) => fold.add(r, t));
  return { ...fold.finish(), scan };
}
