/**
 * Prompt length, and stream timing by it. TTFT grows with the prompt (the service reads it
 * before it answers), so a percentile over prompts of mixed length hides what a user with a long
 * prompt waits. Lengths are counted in the scenario's unit: words (the default, the interface
 * having no tokenizer) or a tokenizer's tokens; the bands are the scenario's (lower bounds).
 * Per band: the prompt lengths, TTFT, ITL, TPOT, output tokens per second and the output tokens
 * observed (the streamed text counted with the same tokenizer). Pure; HDR histograms, so shards
 * and scenarios merge exactly.
 */
import type { RequestSample } from '../core/types.js';
import { deliveredAtOnce, tokensPerSecond, tpotNs } from '../core/stream-timings.js';
import { createLatencyHistogram, decodeHistogram, encodeHistogram, recordNs, recordScaled, toPct } from './histogram.js';
import type { LatencyHistogram, Pct } from './histogram.js';

export { countWords } from '../core/words.js';

/**
 * Default prompt-length bands (lower bounds, in the unit): for words the bands reports had before
 * the unit could be chosen (`0`, `1-16`, `17-64`, `65-256`, `257-1024`, `1025+`); for tokens
 * powers of four from 64.
 */
export function defaultPromptBands(unit: string): readonly number[] {
  return unit === 'words' ? [0, 1, 17, 65, 257, 1025] : [0, 64, 256, 1024, 4096];
}

/** The label of band `i` of `bands` (lower bounds): `"0-127"`, `"2048+"`; a band one wide is its number (`"0"`). */
export function bandLabelAt(bands: readonly number[], i: number): string {
  const lo = bands[i] as number;
  const next = bands[i + 1];
  if (next === undefined) return `${lo}+`;
  return next - 1 === lo ? `${lo}` : `${lo}-${next - 1}`;
}

/** The label of the band of length `n` (`bands` ascending from 0). */
export function bandLabel(bands: readonly number[], n: number): string {
  let i = 0;
  while (i + 1 < bands.length && n >= (bands[i + 1] as number)) i++;
  return bandLabelAt(bands, i);
}

/** One band of `stream.prompts.<unit>.byBand`. Lengths are in the unit, times in ms. */
export interface PromptBandReport {
  /** Prompt lengths of the band's 2xx streams; its `count` is the band's streams. */
  readonly promptTokens: Pct;
  readonly ttftMs: Pct;
  /** Every gap between consecutive token events. */
  readonly itlMs: Pct;
  /** (end − first token) / (output tokens − 1), output counted in the unit. */
  readonly tpotMs: Pct;
  /** Output tokens (in the unit) / (end − first token), per completed stream. */
  readonly tokensPerS: Pct;
  /** Output tokens observed per stream: the streamed text counted in the unit. */
  readonly outputTokens: Pct;
}

/** `stream.prompts.<unit>`: prompt lengths in one unit and stream timing by band. */
export interface PromptLengthReport {
  /** Lower bounds of the bands, in the unit (the scenario's `promptBands`). */
  readonly bands: readonly number[];
  /** Prompt lengths of every stream sent with an input. */
  readonly promptTokens: Pct;
  /** Output tokens observed per 2xx stream that returned its text. */
  readonly outputTokens: Pct;
  /** By band label (`"0-127"`, …, `"2048+"`), bands with streams only, in order. */
  readonly byBand: Readonly<Record<string, PromptBandReport>>;
}

/** The prompt-length fields of report.json `stream`. */
export interface PromptLengthSection {
  /** Reports written before the unit could be chosen: prompt lengths in words. */
  readonly inputWords?: Pct;
  /** Reports written before the unit could be chosen: TTFT by prompt length in words. */
  readonly ttftByInputWords?: Readonly<Record<string, Pct>>;
  /** By unit (`words`, `cl100k_base`, `o200k_base`): absent when no stream had an input. */
  readonly prompts?: Readonly<Record<string, PromptLengthReport>>;
}

/** Histogram keys in report.json `histograms` (older reports: `stream.inputWords`, `stream.ttft.words.<band>`). */
export const INPUT_WORDS_KEY = 'stream.inputWords';
const TTFT_BAND_PREFIX = 'stream.ttft.words.';
const PREFIX = 'stream.prompt.';
const BAND_METRICS = ['input', 'ttft', 'itl', 'tpot', 'tokensPerS', 'output'] as const;
type BandMetric = (typeof BAND_METRICS)[number];

/** Accumulates prompt lengths and stream timing by band. */
export interface PromptLengthStats {
  /** Records a stream sample that carries its prompt length (`inputTokens`); others are ignored. */
  observe(sample: RequestSample): void;
  section(): PromptLengthSection;
  /** Serialised histograms (empty when nothing was observed). */
  histograms(): Record<string, string>;
}

interface UnitStats {
  readonly bands: readonly number[];
  readonly input: LatencyHistogram;
  readonly output: LatencyHistogram;
  readonly byBand: Map<string, Record<BandMetric, LatencyHistogram>>;
}

/** Creates the prompt-length accounting of one collector set; `bandsOf` gives each unit's bands. */
export function createPromptLengthStats(bandsOf: (unit: string) => readonly number[] = defaultPromptBands): PromptLengthStats {
  const units = new Map<string, UnitStats>();
  const unitOf = (unit: string): UnitStats => {
    let u = units.get(unit);
    if (u === undefined) units.set(unit, (u = { bands: bandsOf(unit), input: createLatencyHistogram(), output: createLatencyHistogram(), byBand: new Map() }));
    return u;
  };
  return {
    observe(sample) {
      const n = sample.inputTokens;
      if (n === undefined) return;
      const u = unitOf(sample.tokenUnit ?? 'words');
      // Lengths are recorded as they are (not ×1000): exact below 2048, within 1/2048 above.
      recordScaled(u.input, n);
      const s = sample.stream;
      if (s === undefined || sample.status < 200 || sample.status >= 300) return;
      const label = bandLabel(u.bands, n);
      let b = u.byBand.get(label);
      if (b === undefined) u.byBand.set(label, (b = Object.fromEntries(BAND_METRICS.map((m) => [m, createLatencyHistogram()])) as Record<BandMetric, LatencyHistogram>));
      recordScaled(b.input, n);
      if (s.firstTokenNs !== undefined) recordNs(b.ttft, s.firstTokenNs - sample.intendedNs);
      // A stream delivered at once has no gaps, rate or TPOT to tell (as in `stream`).
      if (!deliveredAtOnce(s)) for (const gap of s.itlNs) recordNs(b.itl, gap);
      const out = sample.outputTokens;
      if (out !== undefined) {
        recordScaled(u.output, out);
        recordScaled(b.output, out);
      }
      // Per token of the unit when the text was counted; per token event when it was not.
      const k = out ?? s.tokens;
      const tpot = tpotNs(s, k);
      if (tpot !== undefined) recordNs(b.tpot, tpot);
      const perS = tokensPerSecond(s, k);
      if (perS !== undefined) recordScaled(b.tokensPerS, perS * 1000);
    },
    section() {
      if (units.size === 0) return {};
      return { prompts: promptsFrom(encodeAll(units), Object.fromEntries([...units].map(([k, u]) => [k, u.bands]))) };
    },
    histograms: () => encodeAll(units),
  };
}

function encodeAll(units: ReadonlyMap<string, UnitStats>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [unit, u] of [...units].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    out[`${PREFIX}${unit}.input`] = encodeHistogram(u.input);
    out[`${PREFIX}${unit}.output`] = encodeHistogram(u.output);
    for (const [label, b] of u.byBand) for (const m of BAND_METRICS) out[`${PREFIX}${unit}.band.${label}.${m}`] = encodeHistogram(b[m]);
  }
  return out;
}

/**
 * A summary of lengths recorded as they are: each percentile the lowest value of its bucket
 * (exact below 2048), the mean to one decimal.
 */
function lengthPct(h: LatencyHistogram): Pct {
  const p = toPct(h);
  if (p.count === 0) return p;
  const at = (v: number): number => h.lowestEquivalentValue(Math.round(v * 1000));
  return { p50: at(p.p50), p90: at(p.p90), p95: at(p.p95), p99: at(p.p99), p999: at(p.p999), max: at(p.max), mean: Math.round(p.mean * 10000) / 10, count: p.count };
}

const bandStart = (b: string): number => Number.parseInt(b, 10);

/**
 * The `prompts` section read from serialised histograms (the collectors' own, or a merged
 * report's): `bandsOf` gives each unit's bands (the report's setting).
 */
export function promptsFrom(histograms: Readonly<Record<string, string>>, bandsOf: Readonly<Record<string, readonly number[]>>): Record<string, PromptLengthReport> | undefined {
  const read = (key: string): LatencyHistogram | undefined => {
    const enc = histograms[key];
    return enc === undefined ? undefined : decodeHistogram(enc);
  };
  const out: Record<string, PromptLengthReport> = {};
  for (const unit of Object.keys(bandsOf).sort()) {
    const input = read(`${PREFIX}${unit}.input`);
    if (input === undefined) continue;
    const bandPrefix = `${PREFIX}${unit}.band.`;
    const labels = [...new Set(Object.keys(histograms).flatMap((k) => (k.startsWith(bandPrefix) ? [k.slice(bandPrefix.length, k.lastIndexOf('.'))] : [])))];
    labels.sort((a, b) => bandStart(a) - bandStart(b));
    const byBand: Record<string, PromptBandReport> = {};
    for (const label of labels) {
      const h = (m: BandMetric): LatencyHistogram => read(`${bandPrefix}${label}.${m}`) ?? createLatencyHistogram();
      byBand[label] = {
        promptTokens: lengthPct(h('input')),
        ttftMs: toPct(h('ttft')),
        itlMs: toPct(h('itl')),
        tpotMs: toPct(h('tpot')),
        tokensPerS: toPct(h('tokensPerS')),
        outputTokens: lengthPct(h('output')),
      };
    }
    const output = read(`${PREFIX}${unit}.output`) ?? createLatencyHistogram();
    out[unit] = { bands: bandsOf[unit] as readonly number[], promptTokens: lengthPct(input), outputTokens: lengthPct(output), byBand };
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** A words histogram of older reports (recorded ×1000) as whole words. */
function wordsPct(h: LatencyHistogram): Pct {
  const p = toPct(h);
  return Object.fromEntries(Object.entries(p).map(([k, v]) => [k, k === 'mean' ? Math.round(v * 10) / 10 : Math.round(v)])) as Pct;
}

/** The fields of older reports rebuilt from their histograms (`stream.inputWords`, `stream.ttft.words.<band>`). */
export function promptLengthFrom(histograms: Readonly<Record<string, string>>): Pick<PromptLengthSection, 'inputWords' | 'ttftByInputWords'> {
  const enc = histograms[INPUT_WORDS_KEY];
  if (enc === undefined) return {};
  const bands: [string, string][] = [];
  for (const [k, v] of Object.entries(histograms)) if (k.startsWith(TTFT_BAND_PREFIX)) bands.push([k.slice(TTFT_BAND_PREFIX.length), v]);
  bands.sort((a, b) => bandStart(a[0]) - bandStart(b[0]));
  return {
    inputWords: wordsPct(decodeHistogram(enc)),
    ttftByInputWords: Object.fromEntries(bands.map(([b, v]) => [b, toPct(decodeHistogram(v))])),
  };
}
