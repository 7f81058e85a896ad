/**
 * Prompt length and time to first token by it. TTFT grows with the prompt (the service reads
 * it before it answers), so a TTFT percentile over prompts of mixed length hides what a user
 * with a long prompt waits. Words are the unit: the interface has no tokenizer. Pure; HDR
 * histograms, so shards and scenarios merge exactly.
 */
import { createLatencyHistogram, decodeHistogram, encodeHistogram, recordNs, recordScaled, toPct } from './histogram.js';
import type { LatencyHistogram, Pct } from './histogram.js';

/** Upper bounds (inclusive) of the prompt-length bands, in words; the last band is open. */
export const INPUT_WORD_BANDS: readonly number[] = [16, 64, 256, 1024];

/** The band label of a prompt length: `"1-16"`, `"17-64"`, …, `"1025+"` (`"0"` for no words). */
export function inputWordBand(words: number): string {
  if (words <= 0) return '0';
  let low = 1;
  for (const high of INPUT_WORD_BANDS) {
    if (words <= high) return `${low}-${high}`;
    low = high + 1;
  }
  return `${low}+`;
}

export { countWords } from '../core/words.js';

/** report.json `stream.inputWords` and `stream.ttftByInputWords`; absent when no stream had an input. */
export interface PromptLengthSection {
  /** Prompt lengths of the streams sent, in words (the `Pct` fields are words, not ms). */
  readonly inputWords?: Pct;
  /** TTFT (ms, from the intended start) by prompt-length band, for streams that got a token. */
  readonly ttftByInputWords?: Readonly<Record<string, Pct>>;
}

/** Histogram keys in report.json `histograms`. */
export const INPUT_WORDS_KEY = 'stream.inputWords';
const TTFT_BAND_PREFIX = 'stream.ttft.words.';

/** Accumulates the prompt lengths of streams and their TTFT by band. */
export interface PromptLengthStats {
  /** Records one stream's prompt length and, when it got a first token, its TTFT. */
  observe(words: number, ttftNs: number | undefined): void;
  section(): PromptLengthSection;
  /** Serialised histograms (empty when nothing was observed). */
  histograms(): Record<string, string>;
}

/** Creates the prompt-length accounting of one collector set. */
export function createPromptLengthStats(): PromptLengthStats {
  let words: LatencyHistogram | undefined;
  const bands = new Map<string, LatencyHistogram>();
  return {
    observe(n, ttftNs) {
      words ??= createLatencyHistogram();
      // ×1000, so toPct's ÷1000 gives words back.
      recordScaled(words, n * 1000);
      if (ttftNs === undefined) return;
      const band = inputWordBand(n);
      let h = bands.get(band);
      if (h === undefined) bands.set(band, (h = createLatencyHistogram()));
      recordNs(h, ttftNs);
    },
    section() {
      if (words === undefined) return {};
      return { inputWords: wordsPct(words), ttftByInputWords: Object.fromEntries(sortedBands(bands).map(([b, h]) => [b, toPct(h)])) };
    },
    histograms() {
      if (words === undefined) return {};
      const out: Record<string, string> = { [INPUT_WORDS_KEY]: encodeHistogram(words) };
      for (const [b, h] of sortedBands(bands)) out[`${TTFT_BAND_PREFIX}${b}`] = encodeHistogram(h);
      return out;
    },
  };
}

/** A words histogram as whole words (the ×1000 scale leaves HDR's rounding on each stat). */
function wordsPct(h: LatencyHistogram): Pct {
  const p = toPct(h);
  return Object.fromEntries(Object.entries(p).map(([k, v]) => [k, k === 'mean' ? Math.round(v * 10) / 10 : Math.round(v)])) as Pct;
}

const bandStart = (b: string): number => Number.parseInt(b, 10);
const sortedBands = <T>(m: Map<string, T>): [string, T][] => [...m].sort((a, b) => bandStart(a[0]) - bandStart(b[0]));

/** The section rebuilt from report.json `histograms` (for merged reports). */
export function promptLengthFrom(histograms: Readonly<Record<string, string>>): PromptLengthSection {
  const enc = histograms[INPUT_WORDS_KEY];
  if (enc === undefined) return {};
  const bands = new Map<string, string>();
  for (const [k, v] of Object.entries(histograms)) if (k.startsWith(TTFT_BAND_PREFIX)) bands.set(k.slice(TTFT_BAND_PREFIX.length), v);
  return {
    inputWords: wordsPct(decodeHistogram(enc)),
    ttftByInputWords: Object.fromEntries(sortedBands(bands).map(([b, v]) => [b, toPct(decodeHistogram(v))])),
  };
}
