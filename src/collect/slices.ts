/**
 * Per-slice (default one second) counts and latency histograms, by *intended* start, so a
 * slice shows what the schedule asked for in that second and how it fared.
 *
 * Memory stays flat: a slice keeps live histograms only while samples for it may still
 * arrive. Once the newest time seen is the close lag past a slice's end, its histograms are
 * serialised and dropped. The lag is `closeLagMs`, or longer when requests are: once
 * `LONG_SAMPLES` requests have taken longer than it, it covers them (to the whole second, plus
 * a slice), up to `MAX_CLOSE_LAG_MS`; one slow request alone does not move it.
 *
 * A sample that arrives later still (a very slow request) is merged into the serialised form
 * (decode, record, encode): exact, and no live objects kept, but a compressed decode and encode
 * each time. With a fixed lag, streams longer than it (LLM answers of 10 s and more) all took
 * that path: at 10,000 streams of 10 s, a thousand decodes and encodes a second, and their
 * garbage, stalled the event loop (docs/performance.md, "Slices that follow long streams").
 */
import { isOpName, type OpName } from '../core/ops.js';
import type { RequestSample, SliClass } from '../core/types.js';
import { createLatencyHistogram, decodeHistogram, encodeHistogram, recordNs } from './histogram.js';
import type { LatencyHistogram } from './histogram.js';

/** One slice as report.json `slices[]` shows it. */
export interface SliceEntry {
  /** Start of the slice in seconds since the run's start. */
  readonly t: number;
  /** Requests intended to start in the slice (and observed so far). */
  readonly requests: number;
  readonly good: number;
  readonly bad: number;
  readonly excluded: number;
  readonly responses429: number;
  /**
   * Per operation: count (every request, 429s included) and serialised latency histogram (µs,
   * HdrHistogram compressed base64) of the served answers: every one but a 429.
   */
  readonly ops: Partial<Record<OpName, { readonly count: number; readonly latency: string }>>;
}

interface Slice {
  requests: number;
  good: number;
  bad: number;
  excluded: number;
  responses429: number;
  live: Map<OpName, { count: number; h: LatencyHistogram }> | undefined;
  closed: Map<OpName, { count: number; latency: string }> | undefined;
}

/** The slice table. */
export interface SliceTable {
  observe(sample: RequestSample, sli: SliClass): void;
  /** Serialises slices that can no longer receive samples in the normal course, as of `nowNs`. */
  advance(nowNs: number): void;
  /** Every slice from 0 to the last one with data (empty seconds included, so charts have no gaps). */
  entries(): SliceEntry[];
  /** Number of slices still holding live histograms. */
  openCount(): number;
  /** Samples merged into an already serialised slice so far (each a decode and an encode). */
  lateMerges(): number;
}

/** The longest the close lag grows to follow slow requests (each live slice holds ~94 KB per operation). */
export const MAX_CLOSE_LAG_MS = 60_000;
/** Requests longer than the close lag it takes to lengthen it (a lone timeout keeps the memory it had). */
export const LONG_SAMPLES = 64;

/** Options of `createSliceTable`. */
export interface SliceTableOptions {
  readonly runStartNs: number;
  readonly sliceMs: number;
  readonly closeLagMs: number;
}

/** Creates a slice table. */
export function createSliceTable(options: SliceTableOptions): SliceTable {
  const { runStartNs } = options;
  const sliceNs = options.sliceMs * 1e6;
  const lagNs = options.closeLagMs * 1e6;
  const slices: (Slice | undefined)[] = [];
  /** Every slice below this index is closed. */
  let firstOpen = 0;
  let watermarkNs = -Infinity;
  /** The close lag now: `closeLagMs`, or what the `LONG_SAMPLES`-th longest request needs, up to the cap. */
  let closeLagNs = lagNs;
  let lateMerges = 0;
  const maxLagNs = MAX_CLOSE_LAG_MS * 1e6;
  /** Requests longer than the lag, by whole seconds of latency (the last counter: the cap and beyond); none when the configured lag is already the cap or more. */
  const longBySecond = new Array<number>(lagNs < maxLagNs ? MAX_CLOSE_LAG_MS / 1000 + 1 : 0).fill(0);

  const noteLong = (latencyNs: number): void => {
    const top = longBySecond.length - 1;
    const k = Math.min(top, Math.floor(latencyNs / 1e9));
    longBySecond[k] = (longBySecond[k] as number) + 1;
    let n = 0;
    for (let j = top; j >= 0; j--) {
      n += longBySecond[j] as number;
      if (n >= LONG_SAMPLES) {
        // LONG_SAMPLES requests took at least j s: the lag covers j + 1 s and a slice.
        closeLagNs = Math.min(maxLagNs, Math.max(closeLagNs, (j + 1) * 1e9 + sliceNs));
        return;
      }
    }
  };

  const close = (s: Slice): void => {
    if (s.live === undefined) return;
    s.closed = new Map([...s.live].map(([op, v]) => [op, { count: v.count, latency: encodeHistogram(v.h) }]));
    s.live = undefined;
  };

  const advance = (nowNs: number): void => {
    if (nowNs <= watermarkNs) return;
    watermarkNs = nowNs;
    while (firstOpen < slices.length && runStartNs + (firstOpen + 1) * sliceNs + closeLagNs <= watermarkNs) {
      const s = slices[firstOpen];
      if (s !== undefined) close(s);
      firstOpen++;
    }
  };

  /** Counts the sample under its op; `served` false (a 429) leaves its latency out. */
  const record = (s: Slice, sample: RequestSample, ns: number, served: boolean): void => {
    // A journey's own requests (`vu.http`) have their totals in `ops`; slices keep the interface's operations.
    if (!isOpName(sample.op)) return;
    const op = sample.op;
    if (s.live !== undefined) {
      let v = s.live.get(op);
      if (v === undefined) s.live.set(op, (v = { count: 0, h: createLatencyHistogram() }));
      v.count++;
      if (served) recordNs(v.h, ns);
      return;
    }
    const closed = s.closed as Map<OpName, { count: number; latency: string }>;
    const prev = closed.get(op);
    if (!served && prev !== undefined) {
      closed.set(op, { count: prev.count + 1, latency: prev.latency });
      return;
    }
    lateMerges++;
    const h = prev === undefined ? createLatencyHistogram() : decodeHistogram(prev.latency);
    if (served) recordNs(h, ns);
    closed.set(op, { count: (prev?.count ?? 0) + 1, latency: encodeHistogram(h) });
  };

  return {
    observe(sample, sli) {
      const index = Math.max(0, Math.floor((sample.intendedNs - runStartNs) / sliceNs));
      let s = slices[index];
      if (s === undefined) {
        const isClosed = index < firstOpen;
        s = {
          requests: 0,
          good: 0,
          bad: 0,
          excluded: 0,
          responses429: 0,
          live: isClosed ? undefined : new Map(),
          closed: isClosed ? new Map() : undefined,
        };
        slices[index] = s;
      }
      const latencyNs = sample.endNs - sample.intendedNs;
      if (latencyNs + sliceNs > closeLagNs && closeLagNs < maxLagNs) noteLong(latencyNs);
      s.requests++;
      s[sli]++;
      const served = sample.status !== 429;
      if (!served) s.responses429++;
      record(s, sample, latencyNs, served);
      advance(sample.endNs);
    },
    advance,
    entries() {
      const sliceS = options.sliceMs / 1000;
      const out: SliceEntry[] = [];
      for (let i = 0; i < slices.length; i++) {
        const s = slices[i];
        const t = Math.round(i * sliceS * 1e6) / 1e6;
        if (s === undefined) {
          out.push({ t, requests: 0, good: 0, bad: 0, excluded: 0, responses429: 0, ops: {} });
          continue;
        }
        const ops: Partial<Record<OpName, { count: number; latency: string }>> = {};
        if (s.live !== undefined) for (const [op, v] of s.live) ops[op] = { count: v.count, latency: encodeHistogram(v.h) };
        else if (s.closed !== undefined) for (const [op, v] of s.closed) ops[op] = { ...v };
        out.push({ t, requests: s.requests, good: s.good, bad: s.bad, excluded: s.excluded, responses429: s.responses429, ops });
      }
      return out;
    },
    openCount: () => slices.slice(firstOpen).filter((s) => s?.live !== undefined).length,
    lateMerges: () => lateMerges,
  };
}
