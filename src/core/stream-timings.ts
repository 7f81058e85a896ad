/**
 * The stream timings, named once: the collector's histograms, report.json's `stream` fields and
 * `histograms` keys, the threshold grammar's `stream.<name>.<stat>` keys and the reports' rows
 * all read their list from this table, so a timing added here reaches every one of them (and a
 * timing added elsewhere without a row here fails `test/core/stream-timings.test.ts`).
 */

import type { StreamTiming as StreamTimingSample } from './types.js';

/** One stream timing. */
export interface StreamTimingRow {
  /**
   * The collector's histogram name and the threshold grammar's metric name; its serialised
   * histogram (report.json `histograms`) and its threshold key are both `stream.<name>`.
   */
  readonly name: string;
  /** Its field in report.json `stream` (`Ms` for a duration, none for a rate). */
  readonly field: string;
  /** `ms` a duration, `perS` a rate per second (the threshold grammar's units of the same names). */
  readonly unit: 'ms' | 'perS';
  /**
   * What reports call it. An SSE event's name is in backticks (a Markdown code span), which
   * plain-text renderings drop (`plainStreamLabel`).
   */
  readonly label: string;
}

/** Every stream timing, in the order reports show them: a stream's life in time order, then its rate. */
export const STREAM_TIMINGS = [
  { name: 'ttfb', field: 'ttfbMs', unit: 'ms', label: 'time to first byte' },
  { name: 'timeToStart', field: 'timeToStartMs', unit: 'ms', label: 'time to `start`' },
  { name: 'ttft', field: 'ttftMs', unit: 'ms', label: 'time to first token (TTFT)' },
  { name: 'itl', field: 'itlMs', unit: 'ms', label: 'inter-token latency (ITL)' },
  { name: 'tpot', field: 'tpotMs', unit: 'ms', label: 'time per output token (TPOT)' },
  { name: 'timeToEnd', field: 'timeToEndMs', unit: 'ms', label: 'time to `end`' },
  // Recorded in milli-tokens per second, so its summary reads back in tokens per second.
  { name: 'tokensPerS', field: 'tokensPerS', unit: 'perS', label: 'tokens per second' },
] as const satisfies readonly StreamTimingRow[];

/** A row of `STREAM_TIMINGS`. */
export type StreamTiming = (typeof STREAM_TIMINGS)[number];

/** A stream timing by its histogram and threshold name (`ttft`). */
export type StreamTimingName = StreamTiming['name'];

/** A stream timing by its report.json `stream` field (`ttftMs`). */
export type StreamTimingField = StreamTiming['field'];

/** The names of `STREAM_TIMINGS`, in its order. */
export const STREAM_TIMING_NAMES: readonly StreamTimingName[] = STREAM_TIMINGS.map((t) => t.name);

/** The key of a timing's serialised histogram in report.json `histograms`, and of its thresholds. */
export const streamTimingKey = (name: StreamTimingName): `stream.${StreamTimingName}` => `stream.${name}`;

const BY_NAME = new Map<string, StreamTiming>(STREAM_TIMINGS.map((t) => [t.name, t]));

/** The row of a timing. */
export function streamTimingOf(name: StreamTimingName): StreamTiming {
  return BY_NAME.get(name) as StreamTiming;
}

/** Whether `s` names a stream timing. */
export const isStreamTimingName = (s: string | undefined): s is StreamTimingName => s !== undefined && BY_NAME.has(s);

/** A label without its Markdown code spans, for plain text and HTML. */
export const plainStreamLabel = (t: StreamTiming): string => t.label.replaceAll('`', '');

/** The parts of a stream's timing that its per-stream rates are computed from. */
type StreamRateInput = Pick<StreamTimingSample, 'tokens' | 'firstTokenNs' | 'lastTokenNs' | 'endEventNs' | 'complete'>;

/**
 * Whether a stream was delivered in one burst: two or more tokens, all read at one instant (one
 * read, or reads of one event-loop pass, which share a stamp). Such an answer was not streamed to
 * the client (a buffering proxy, a service that sends it whole), so its gaps, time per output token
 * and tokens per second say nothing of generation: one of them read 16,662 tokens/s and moved the
 * mean of a run's tokens per second from 130 to 214. It is counted apart
 * (`stream.deliveredAtOnce`) and left out of those three figures, in report.json and the metrics
 * alike; its TTFT and time to `end` still count.
 */
export const deliveredAtOnce = (s: StreamRateInput): boolean =>
  s.tokens >= 2 && s.firstTokenNs !== undefined && s.lastTokenNs === s.firstTokenNs;

/**
 * Time per output token in ns: (end − first token) / (tokens − 1), the definition LLM benchmarks
 * share (request latency less TTFT, over the tokens after the first); a stream that never ended
 * uses its last token. `tokens` is the count to divide by (default the token events; the prompt
 * bands pass the output's length in their unit). Undefined with fewer than two tokens, or for a
 * stream delivered at once.
 */
export function tpotNs(s: StreamRateInput, tokens: number = s.tokens): number | undefined {
  const endNs = s.endEventNs ?? s.lastTokenNs;
  if (tokens < 2 || s.firstTokenNs === undefined || endNs === undefined || deliveredAtOnce(s)) return undefined;
  return (endNs - s.firstTokenNs) / (tokens - 1);
}

/**
 * Output tokens per second of one completed stream: tokens / (end − first token). Undefined for a
 * stream that did not complete, got no token, ended at its first token, or was delivered at once.
 */
export function tokensPerSecond(s: StreamRateInput, tokens: number = s.tokens): number | undefined {
  if (!s.complete || tokens <= 0 || s.firstTokenNs === undefined || s.endEventNs === undefined || !(s.endEventNs > s.firstTokenNs) || deliveredAtOnce(s)) return undefined;
  return tokens / ((s.endEventNs - s.firstTokenNs) / 1e9);
}
