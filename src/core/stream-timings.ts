/**
 * The stream timings, named once: the collector's histograms, report.json's `stream` fields and
 * `histograms` keys, the threshold grammar's `stream.<name>.<stat>` keys and the reports' rows
 * all read their list from this table, so a timing added here reaches every one of them (and a
 * timing added elsewhere without a row here fails `test/core/stream-timings.test.ts`).
 */

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
