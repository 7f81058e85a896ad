/**
 * `stream`: counts add; every timing is re-read from its merged histogram (`stream.<timing>`),
 * the prompt lengths and TTFT by prompt length from theirs.
 */
import { z } from 'zod';
import { promptLengthFrom } from '../../collect/prompt-length.js';
import type { StreamHistogramName } from '../../collect/stream-collector.js';
import { bySection, fields, fromHistograms, histogram, sum, type Rule } from './merge-kit.js';
import type { FullSection, ScopeState } from './project-kit.js';
import { count, obj, pct, written, type DeepReadonly } from './schema-kit.js';

/** report@1 `stream`. */
export const streamSchema = obj(
  {
    /** Streams opened: samples of a stream that got a 2xx response. */
    count,
    /** Streams that ended with `end` and no error. */
    completed: count,
    /** count − completed: no `end`, or an error event. */
    incomplete: count,
    timeToStartMs: pct,
    ttftMs: pct,
    /** Every gap between consecutive token arrivals. */
    itlMs: pct,
    /** (last token − first token) / (tokens − 1), per stream with at least two tokens. */
    tpotMs: pct,
    /** tokens / (end − first token), per completed stream; in tokens per second, not ms. */
    tokensPerS: pct,
    /** Token events received in all streams. */
    tokens: count,
    /** Streams whose token events differ from `usage.completion_tokens` (when the end event had it). */
    tokenCountMismatches: count,
  },
  {
    ttfbMs: written(pct),
    timeToEndMs: written(pct),
    /**
     * Streams of two or more tokens whose tokens all arrived at one instant (one read): the answer
     * was not streamed to the client, so their ITL and TPOT say nothing of generation. Optional for
     * reports written before it was counted.
     */
    deliveredAtOnce: count,
    unknownEvents: written(count),
    malformedEvents: written(count),
    /** Prompt lengths of the streams sent, in words (the `Pct` fields are words, not ms). */
    inputWords: pct,
    /** TTFT (ms, from the intended start) by prompt-length band, for streams that got a token. */
    ttftByInputWords: z.record(z.string(), pct),
  },
);
/** `stream`: stream timings (the serialised histograms are under `histograms`). */
export type StreamReport = DeepReadonly<z.output<typeof streamSchema>>;

const timing = (name: StreamHistogramName) => histogram(`stream.${name}`, { noun: 'values' });
// Added later than the others: a report written before their histograms keeps only the summary.
const laterTiming = (name: StreamHistogramName) => histogram(`stream.${name}`, { orWorst: true });

/** How `stream` merges. */
export const streamMerge: Rule<StreamReport> = fields<StreamReport>({
  count: sum,
  completed: sum,
  incomplete: sum,
  ttfbMs: laterTiming('ttfb'),
  timeToStartMs: timing('timeToStart'),
  ttftMs: timing('ttft'),
  itlMs: timing('itl'),
  tpotMs: timing('tpot'),
  timeToEndMs: laterTiming('timeToEnd'),
  // Recorded in milli-tokens per second: its Pct reads back in tokens per second.
  tokensPerS: timing('tokensPerS'),
  tokens: sum,
  tokenCountMismatches: sum,
  deliveredAtOnce: sum,
  unknownEvents: sum,
  malformedEvents: sum,
  inputWords: fromHistograms((h) => promptLengthFrom(h).inputWords),
  ttftByInputWords: fromHistograms((h) => promptLengthFrom(h).ttftByInputWords),
});

/** `stream`: the stream collector's snapshot without its histograms (they are under `histograms`). */
export const streamSection: FullSection<StreamReport, object, ScopeState> = {
  ...bySection(streamMerge),
  project(s) {
    const { histograms: _histograms, ...stream } = s.snapshot.stream;
    return stream;
  },
};
