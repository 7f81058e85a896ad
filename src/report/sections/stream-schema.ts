/**
 * report@1 `stream`: the zod schema, and the types taken from it (`z.output`, readonly at every
 * depth). How the section is projected and merged is in `stream.ts`; the whole report's schema is
 * put together in `../report-schema.ts`.
 */
import { z } from 'zod';
import { count, nonNegative, obj, pct, written, type DeepReadonly } from './schema-kit.js';

const promptBandSchema = obj({ promptTokens: pct, ttftMs: pct, itlMs: pct, tpotMs: pct, tokensPerS: pct, outputTokens: pct });
/** report@1 `stream.prompts.<unit>` (added in @1): prompt lengths and stream timing by band. */
const promptLengthSchema = obj({ bands: z.array(nonNegative), promptTokens: pct, outputTokens: pct, byBand: z.record(z.string(), promptBandSchema) });

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
    /** Every gap between consecutive token arrivals (streams delivered at once left out). */
    itlMs: pct,
    /** (end − first token) / (tokens − 1), per stream with at least two tokens (streams delivered at once left out). */
    tpotMs: pct,
    /** tokens / (end − first token), per completed stream (streams delivered at once left out); in tokens per second, not ms. */
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
     * Streams of two or more tokens whose tokens all arrived at one instant (one read, a burst): the
     * answer was not streamed to the client, so they are left out of `itlMs`, `tpotMs` and
     * `tokensPerS` (and of the prompt bands' same figures). Optional for reports written before it
     * was counted; merges as a sum.
     */
    deliveredAtOnce: count,
    unknownEvents: written(count),
    malformedEvents: written(count),
    /** Prompt lengths of the streams sent, in words (the `Pct` fields are words, not ms). */
    inputWords: pct,
    /** TTFT (ms, from the intended start) by prompt-length band, for streams that got a token. */
    ttftByInputWords: z.record(z.string(), pct),
    /** Prompt lengths and stream timing by band, per unit (`words`, or the tokenizer's name). */
    prompts: z.record(z.string(), promptLengthSchema),
  },
);

/** `stream`: stream timings (the serialised histograms are under `histograms`). */
export type StreamReport = DeepReadonly<z.output<typeof streamSchema>>;
