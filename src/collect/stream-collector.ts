/**
 * Stream timing: time to first byte, to `start`, to the first token (TTFT), every inter-token
 * gap (ITL), time per output token (TPOT), time to `end`, tokens per second, and token counts
 * against `usage.completion_tokens`. All latencies are measured from the intended start.
 */
import { STREAM_TIMINGS, STREAM_TIMING_NAMES, deliveredAtOnce, streamTimingKey, tokensPerSecond, tpotNs, type StreamTimingField, type StreamTimingName } from '../core/stream-timings.js';
import type { RequestSample } from '../core/types.js';
import { createLatencyHistogram, encodeHistogram, recordNs, recordScaled, toPct } from './histogram.js';
import type { LatencyHistogram, Pct } from './histogram.js';

/** What the stream collector found, for report.json `stream`. */
export interface StreamSnapshot {
  /** Streams opened: samples of a stream that got a 2xx response. */
  readonly count: number;
  /** Streams that ended with `end` and no error. */
  readonly completed: number;
  /** count − completed: no `end`, or an error event. */
  readonly incomplete: number;
  readonly ttfbMs: Pct;
  readonly timeToStartMs: Pct;
  readonly ttftMs: Pct;
  /** Every gap between consecutive token arrivals, of the streams not delivered at once. */
  readonly itlMs: Pct;
  /** (end − first token) / (tokens − 1), per stream with at least two tokens not delivered at once. */
  readonly tpotMs: Pct;
  readonly timeToEndMs: Pct;
  /** tokens / (end − first token), per completed stream not delivered at once; in tokens per second, not ms. */
  readonly tokensPerS: Pct;
  /** Token events received in all streams. */
  readonly tokens: number;
  /** Streams whose token events differ from `usage.completion_tokens` (when the end event had it). */
  readonly tokenCountMismatches: number;
  /**
   * Streams of two or more tokens whose tokens all arrived at one instant (one read, a burst): the
   * answer was not streamed to the client, so they are left out of ITL, TPOT and tokens per second
   * (`deliveredAtOnce` in core/stream-timings.ts). Optional for reports written before it was counted.
   */
  readonly deliveredAtOnce?: number;
  readonly unknownEvents: number;
  readonly malformedEvents: number;
  /** Serialised histograms, keyed `stream.<name>` like report.json `histograms`. */
  readonly histograms: Record<string, string>;
}

/** Accumulates stream samples. */
export interface StreamCollector {
  /** Records the stream part of a sample (ignored unless it carries a stream and a 2xx). */
  observe(sample: RequestSample): void;
  /**
   * Records what was measured of a stream the end of the run cut (its grace period ended with it
   * open): its first byte, start, first token and the gaps between the tokens that came. It is
   * not a stream of `count` (neither complete nor incomplete: unjudged).
   */
  observeCut(sample: RequestSample): void;
  /** With `encode` false, `histograms` is empty (a live view that serialises nothing). */
  snapshot(encode?: boolean): StreamSnapshot;
  /** The live histogram of a timing (for merging or live views); do not record into it. */
  histogram(name: StreamTimingName): LatencyHistogram;
}

/**
 * Creates a stream collector. Tokens per second is stored ×1000 (milli-tokens per second) in
 * an HDR histogram of the same settings as latencies, so the ÷1000 of `toPct` gives tokens/s
 * back with three significant digits, and the serialised form merges like the others.
 *
 * TPOT is docs/measuring.md's (end − first token)/(tokens − 1), the definition LLM benchmarks share
 * (request latency less TTFT, over the tokens after the first), so figures compare across
 * tools; the mean ITL is reported beside it. A stream that never ended uses its last token. A
 * stream delivered at once is counted and kept out of ITL, TPOT and tokens per second
 * (`tpotNs`, `tokensPerSecond`: the same figures the Prometheus histograms get).
 */
export function createStreamCollector(): StreamCollector {
  const h = Object.fromEntries(STREAM_TIMING_NAMES.map((n) => [n, createLatencyHistogram()])) as Record<
    StreamTimingName,
    LatencyHistogram
  >;
  let count = 0;
  let completed = 0;
  let tokens = 0;
  let mismatches = 0;
  let atOnce = 0;
  let unknownEvents = 0;
  let malformedEvents = 0;

  return {
    observe(sample) {
      const s = sample.stream;
      if (s === undefined || sample.status < 200 || sample.status >= 300) return;
      const t0 = sample.intendedNs;
      count++;
      if (s.complete && sample.errorCode === undefined) completed++;
      tokens += s.tokens;
      unknownEvents += s.unknownEvents;
      malformedEvents += s.malformedEvents;
      if (s.usageCompletionTokens !== undefined && s.usageCompletionTokens !== s.tokens) mismatches++;
      const burst = deliveredAtOnce(s);
      if (burst) atOnce++;
      if (s.firstByteNs !== undefined) recordNs(h.ttfb, s.firstByteNs - t0);
      if (s.startEventNs !== undefined) recordNs(h.timeToStart, s.startEventNs - t0);
      if (s.firstTokenNs !== undefined) recordNs(h.ttft, s.firstTokenNs - t0);
      if (s.endEventNs !== undefined) recordNs(h.timeToEnd, s.endEventNs - t0);
      if (!burst) for (const gap of s.itlNs) recordNs(h.itl, gap);
      const tpot = tpotNs(s);
      if (tpot !== undefined) recordNs(h.tpot, tpot);
      const perS = tokensPerSecond(s);
      if (perS !== undefined) recordScaled(h.tokensPerS, perS * 1000);
    },

    observeCut(sample) {
      const s = sample.stream;
      if (s === undefined || sample.status < 200 || sample.status >= 300) return;
      const t0 = sample.intendedNs;
      if (s.firstByteNs !== undefined) recordNs(h.ttfb, s.firstByteNs - t0);
      if (s.startEventNs !== undefined) recordNs(h.timeToStart, s.startEventNs - t0);
      if (s.firstTokenNs !== undefined) recordNs(h.ttft, s.firstTokenNs - t0);
      for (const gap of s.itlNs) recordNs(h.itl, gap);
    },

    snapshot(encode = true) {
      return {
        count,
        completed,
        incomplete: count - completed,
        ...(Object.fromEntries(STREAM_TIMINGS.map((t) => [t.field, toPct(h[t.name])])) as Record<StreamTimingField, Pct>),
        tokens,
        tokenCountMismatches: mismatches,
        deliveredAtOnce: atOnce,
        unknownEvents,
        malformedEvents,
        histograms: encode ? Object.fromEntries(STREAM_TIMING_NAMES.map((n) => [streamTimingKey(n), encodeHistogram(h[n])])) : {},
      };
    },

    histogram: (name) => h[name],
  };
}
