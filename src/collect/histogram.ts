/**
 * HDR latency histograms: a thin wrapper over hdr-histogram-js so the rest of the code never
 * touches its options. Values are recorded in microseconds (1 µs to 1 h, 3 significant digits)
 * with the default JS implementation (32-bit counts, ~95 KB each), not WebAssembly (nothing to
 * initialise) and not the packed one: packed is 4× smaller but 20× slower to summarise and
 * serialise, and the collectors serialise open slices on every snapshot.
 */
import { inflateSync } from 'node:zlib';
import type { JsHistogram } from 'hdr-histogram-js';
import { FlowgaugeError } from '../core/errors.js';
import { buildInt32Histogram, decodeInflated, encodeCompressedBase64, type JsHistogramShape } from './hdr-library.js';
import type { PctStat } from '../slo/threshold-grammar.js';

/** A histogram of microsecond values (or of any unit recorded ×1000, see `recordScaled`). */
export type LatencyHistogram = JsHistogram;

/** A percentile summary in milliseconds (report.json `Pct`). All zero when `count` is 0. */
export type Pct = { readonly [K in PctStat]: number };

/** Highest value kept: one hour in µs. Larger values are clamped to it (and still counted). */
export const HIGHEST_TRACKABLE_US = 3_600_000_000;

const SHAPE: JsHistogramShape = {
  lowestDiscernibleValue: 1,
  highestTrackableValue: HIGHEST_TRACKABLE_US,
  numberOfSignificantValueDigits: 3,
  autoResize: false,
};

/** An empty histogram with the toolkit's settings. */
export function createLatencyHistogram(): LatencyHistogram {
  return buildInt32Histogram(SHAPE);
}

/**
 * The counts index of `v` (an integer from 0 to HIGHEST_TRACKABLE_US, below 2^32), as the
 * library's `countsArrayIndex` computes it with `log2` and `pow`, here with `clz32` and a shift:
 * recording is on the hot path several times per request, and this is most of its cost.
 * `test/collect/histogram.test.ts` holds it to the library's answer.
 */
export function countsIndexOf(h: LatencyHistogram, v: number): number {
  const bucket = Math.max(31 - Math.clz32(v) - h.subBucketHalfCountMagnitude - h.unitMagnitude, 0);
  const sub = v >>> (bucket + h.unitMagnitude);
  return ((bucket + 1) << h.subBucketHalfCountMagnitude) + sub - h.subBucketHalfCount;
}

/** Records a raw value (already in the histogram's unit), rounded and clamped into range. */
export function recordScaled(h: LatencyHistogram, value: number): void {
  if (Number.isNaN(value)) return;
  const r = Math.round(value);
  const v = r < 0 ? 0 : r > HIGHEST_TRACKABLE_US ? HIGHEST_TRACKABLE_US : r;
  // What `recordValue` does, without its log2/pow: the clamp keeps the index inside the counts.
  h.incrementCountAtIndex(countsIndexOf(h, v));
  h.updateMinAndMax(v);
  h.incrementTotalCount();
}

/**
 * Records a duration given in nanoseconds (as µs). Negative durations (clock skew between
 * readings, never expected) are recorded as 0 rather than dropped, so counts stay exact.
 */
export function recordNs(h: LatencyHistogram, ns: number): void {
  recordScaled(h, ns / 1000);
}

const ZERO_PCT: Pct = Object.freeze({ p50: 0, p90: 0, p95: 0, p99: 0, p999: 0, max: 0, mean: 0, count: 0 });

/** Rounds to 1 ns of precision in ms, removing float noise from the ÷1000 conversion. */
const ms = (us: number): number => Math.round(us * 1000) / 1e6;

const PERCENTILES = [50, 90, 95, 99, 99.9, 100] as const;

/** Unit in the last place of `x`, as hdr-histogram-js computes it (its rounding rule needs it). */
const ulp = (x: number): number => 2 ** (Math.floor(Math.log2(x)) - 52);

/**
 * Percentile summary in milliseconds (µs ÷ 1000), computed in one pass over the buckets with
 * exactly `getValueAtPercentile`'s rule (the library walks the buckets once per percentile, and
 * its `mean` walks them again through a slow iterator). `max` is the highest value equivalent
 * to the largest recorded one, like the percentiles, so a merged histogram gives the same `max`
 * as one that saw every sample. For a histogram recorded ×1000 in another unit (tokens/s), the
 * result is in that unit.
 */
export function toPct(h: LatencyHistogram): Pct {
  const total = h.totalCount;
  if (total === 0) return ZERO_PCT;
  const targets = PERCENTILES.map((p) => {
    const fp = (p / 100) * total;
    return Math.max(Math.ceil(fp - ulp(fp)), 1);
  });
  const values: number[] = [];
  let running = 0;
  let sum = 0;
  for (let i = 0; i < h.countsArrayLength && running < total; i++) {
    const c = h.getCountAtIndex(i);
    if (c === 0) continue;
    running += c;
    const v = h.valueFromIndex(i);
    sum += h.medianEquivalentValue(v) * c;
    while (values.length < targets.length && running >= (targets[values.length] as number)) {
      values.push(h.highestEquivalentValue(v));
    }
  }
  const [p50 = 0, p90 = 0, p95 = 0, p99 = 0, p999 = 0, max = 0] = values;
  return {
    p50: ms(p50),
    p90: ms(p90),
    p95: ms(p95),
    p99: ms(p99),
    p999: ms(p999),
    max: ms(max),
    mean: ms(sum / total),
    count: total,
  };
}

/** The empty summary. */
export function emptyPct(): Pct {
  return ZERO_PCT;
}

/** HdrHistogram's compressed base64 form (`HISTFAAA…`), readable by every HdrHistogram port. */
export function encodeHistogram(h: LatencyHistogram): string {
  return encodeCompressedBase64(h);
}

/**
 * Reads a histogram written by `encodeHistogram`. Throws on malformed input: callers decoding
 * untrusted files (report merge) catch it and report the file.
 */
export function decodeHistogram(s: string): LatencyHistogram {
  const inflated = checkedInflate(s);
  return decodeInflated(new Uint8Array(inflated.buffer, inflated.byteOffset, inflated.length));
}

/**
 * Most bytes an encoded histogram may inflate to. One of this toolkit's (1 µs to 1 h, 3
 * digits) inflates to well under 256 KiB; a file claiming more is refused before it is decoded
 * (a 2.8 MB report once inflated to 2 GiB).
 */
export const MAX_INFLATED_HISTOGRAM_BYTES = 4 * 1024 * 1024;
/** Compressed-encoding cookies of HdrHistogram (V1 and V2). */
const COMPRESSED_COOKIES = new Set([0x1c849304, 0x1c849314]);

/**
 * Refuses a compressed histogram whose payload would inflate past the cap, or whose header
 * asks for a range or precision a decoder would allocate gigabytes for. Throws a `FlowgaugeError`
 * (`FG_REPORT_INVALID`) with the reason.
 */
export function checkEncodedHistogram(s: string): void {
  checkedInflate(s);
}

/** `checkEncodedHistogram`'s work, giving back the inflated encoding it checked (decoded once, not twice). */
function checkedInflate(s: string): Buffer {
  const raw = Buffer.from(s, 'base64');
  if (raw.length < 8 || !COMPRESSED_COOKIES.has(raw.readUInt32BE(0))) throw new FlowgaugeError('FG_REPORT_INVALID', 'not a compressed HDR histogram');
  let inflated: Buffer;
  try {
    inflated = inflateSync(raw.subarray(8), { maxOutputLength: MAX_INFLATED_HISTOGRAM_BYTES });
  } catch (err) {
    const big = err instanceof RangeError || (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
    throw new FlowgaugeError('FG_REPORT_INVALID', big ? `inflates past ${MAX_INFLATED_HISTOGRAM_BYTES / 2 ** 20} MiB (a decompression bomb?)` : 'its payload does not inflate');
  }
  if (inflated.length < 40) throw new FlowgaugeError('FG_REPORT_INVALID', 'its header is cut short');
  const digits = inflated.readInt32BE(12);
  const highest = Number(inflated.readBigInt64BE(24));
  if (digits < 0 || digits > 5) throw new FlowgaugeError('FG_REPORT_INVALID', `it asks for ${digits} significant digits (at most 5)`);
  if (!(highest > 0 && highest <= HIGHEST_TRACKABLE_US * 1000)) throw new FlowgaugeError('FG_REPORT_INVALID', `its highest trackable value ${highest} is out of range`);
  return inflated;
}

/** Adds every count of `source` into `target` (exact: bucket by bucket). */
export function mergeInto(target: LatencyHistogram, source: LatencyHistogram): void {
  target.add(source);
}
