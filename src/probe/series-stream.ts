/**
 * The outcome series of `series.ts`, point by point from a stream of records, in bounded
 * memory: the records go through a reorder buffer (`reorder.ts`) into time order, each becomes
 * a point of its check's series at once, and rounds are gathered while open and become points
 * of the overall series when closed. Given sorted records, it emits exactly the points of
 * `seriesByCheck` and `overallSeries`, in the same order per series.
 */
import { createReorderBuffer, DEFAULT_REORDER_CAPACITY } from './reorder.js';
import { recordTimeMs, type ProbeRecord } from './record.js';
import { OVERALL, type OutcomePoint } from './series.js';

/** Receives each point of each series in time order; `record` is the point's own (checks only). */
export type SeriesSink = (series: string, point: OutcomePoint, record: ProbeRecord | undefined) => void;

/** A series stream: records in, points out. */
export interface SeriesStream {
  /** Takes a record; `timeMs` saves reading its time again when the caller has it. */
  add(record: ProbeRecord, timeMs?: number): void;
  /** Emits everything still held. Call once, after the last record. */
  end(): void;
  /** Records that came further out of order than the reorder buffer holds (placed late). */
  readonly late: number;
  /** Most records held at once (open rounds keep only a point each). */
  readonly peakHeld: number;
}

/** Options of `createSeriesStream`. */
export interface SeriesStreamOptions {
  /** Records held to restore time order (default `DEFAULT_REORDER_CAPACITY`). */
  readonly reorder?: number;
  /**
   * Rounds gathered at once (default 64). The checks of a round run together, so its records
   * sit side by side; a round is closed when this many newer rounds have opened, or at the end.
   */
  readonly openRounds?: number;
}

interface OpenRound {
  timeMs: number;
  success: boolean;
  intervalMs: number;
}

/** Creates a stream handing points to `sink`. */
export function createSeriesStream(sink: SeriesSink, options: SeriesStreamOptions = {}): SeriesStream {
  const maxOpen = options.openRounds ?? 64;
  // Insertion order is opening order, which is time order since records arrive sorted.
  const rounds = new Map<string, OpenRound>();

  const close = (key: string, round: OpenRound): void => {
    rounds.delete(key);
    sink(OVERALL, { timeMs: round.timeMs, success: round.success, intervalMs: round.intervalMs }, undefined);
  };
  const take = (r: ProbeRecord, t: number): void => {
    sink(r.check, { timeMs: t, success: r.success, intervalMs: r.intervalMs }, r);
    const key = `${r.instance}#${r.round}`;
    const round = rounds.get(key);
    if (round !== undefined) {
      round.timeMs = Math.min(round.timeMs, t);
      round.success &&= r.success;
      round.intervalMs = Math.max(round.intervalMs, r.intervalMs);
    } else {
      rounds.set(key, { timeMs: t, success: r.success, intervalMs: r.intervalMs });
      if (rounds.size > maxOpen) {
        const oldest = rounds.entries().next();
        if (oldest.done !== true) close(...oldest.value);
      }
    }
  };
  const buffer = createReorderBuffer<ProbeRecord>(take, options.reorder ?? DEFAULT_REORDER_CAPACITY);

  return {
    add: (record, timeMs = recordTimeMs(record)) => buffer.push(record, timeMs),
    end() {
      buffer.flush();
      for (const [key, round] of [...rounds]) close(key, round);
    },
    get late() {
      return buffer.late;
    },
    get peakHeld() {
      return buffer.peak;
    },
  };
}
