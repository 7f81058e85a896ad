/**
 * The merge rules that read HDR histograms: `histogram` re-reads a `Pct` from the merged
 * histogram (exact), `worst` combines summaries kept without one (never better than the truth),
 * and the merge of the histograms themselves, key by key. Pure.
 */
import { createLatencyHistogram, decodeHistogram, emptyPct, encodeHistogram, mergeInto, toPct } from '../../collect/histogram.js';
import type { LatencyHistogram, Pct } from '../../collect/histogram.js';
import { fail, type Rule, type Source } from './merge-kit.js';

/** Each statistic's worst part, the mean weighted by count (exact only with one part). */
export function worstPct(parts: readonly Pct[]): Pct {
  const withData = parts.filter((p) => p.count > 0);
  if (withData.length === 0) return emptyPct();
  if (withData.length === 1) return withData[0] as Pct;
  const count = withData.reduce((n, p) => n + p.count, 0);
  const worst = (k: 'p50' | 'p90' | 'p95' | 'p99' | 'p999' | 'max'): number => Math.max(...withData.map((p) => p[k]));
  return { p50: worst('p50'), p90: worst('p90'), p95: worst('p95'), p99: worst('p99'), p999: worst('p999'), max: worst('max'), mean: withData.reduce((n, p) => n + p.mean * p.count, 0) / count, count };
}

/**
 * `worst`: a summary the report keeps without its histogram cannot be merged exactly (a p99 of
 * the whole is not a function of the parts' p99s): each statistic takes its worst part, so the
 * merged figure is never better than the truth; `count` adds up, the mean is weighted by it.
 */
export const worst: Rule<Pct> = { kind: 'worst', merge: (parts) => worstPct(parts.map((p) => p.value)) };

/** The summary of a merged histogram; all zero when no part had it. */
export const pctOf = (histograms: Readonly<Record<string, string>>, key: string): Pct => {
  const enc = histograms[key];
  return enc === undefined ? emptyPct() : toPct(decodeHistogram(enc));
};

/** Options of `histogram`. */
export interface HistogramRuleOptions {
  /** What a value counts, for messages (`requests`, `answers`); default `values`. */
  readonly noun?: string;
  /**
   * When a part with values lacks the histogram (a report written before the histogram was):
   * true takes each statistic's worst part instead (`worst`); default false, an error.
   */
  readonly orWorst?: boolean;
}

/**
 * `histogram`: the `Pct` re-read from `histograms[key]` merged across the parts, so merged
 * percentiles equal those of one histogram that saw every value (HDR, 3 significant digits).
 */
export function histogram(key: string, options: HistogramRuleOptions = {}): Rule<Pct> {
  return {
    kind: 'histogram',
    merge(parts, ctx) {
      const lacking = parts.find((p) => p.value.count > 0 && p.source.histograms[key] === undefined);
      if (lacking !== undefined) {
        if (options.orWorst === true) return worstPct(parts.map((p) => p.value));
        return fail(`${lacking.source.name}: ${ctx.path} has ${lacking.value.count} ${options.noun ?? 'values'} but no histograms["${key}"]; percentiles cannot be merged exactly`);
      }
      return pctOf(ctx.scope.histograms, key);
    },
  };
}

/** `histogram`, for a section read from several histograms at once (`stream.ttftByInputWords`). */
export function fromHistograms<V>(read: (histograms: Readonly<Record<string, string>>) => V | undefined): Rule<V> {
  return { kind: 'histogram', merge: (_parts, ctx) => read(ctx.scope.histograms) };
}

/** Merges serialised histograms exactly; throws naming the part whose histogram is unreadable. */
export function mergeEncoded(parts: readonly { readonly enc: string; readonly name: string; readonly what: string }[]): LatencyHistogram {
  const target = createLatencyHistogram();
  for (const { enc, name, what } of parts) {
    let h: LatencyHistogram;
    try {
      h = decodeHistogram(enc);
    } catch (err) {
      return fail(`${name}: ${what} is not a readable HDR histogram${err instanceof Error && err.message !== '' ? `: ${err.message}` : ''}`);
    }
    mergeInto(target, h);
  }
  return target;
}

/** Every histogram of the sources, merged key by key (keys sorted). */
export function mergeHistogramMaps(sources: readonly Source[]): Record<string, string> {
  const keys = [...new Set(sources.flatMap((s) => Object.keys(s.histograms)))].sort();
  const out: Record<string, string> = {};
  for (const key of keys) {
    const parts = sources.flatMap((s) => {
      const enc = s.histograms[key];
      return enc === undefined ? [] : [{ enc, name: s.name, what: `histograms["${key}"]` }];
    });
    // Every part is read (an unreadable one is named); one part is given back as written.
    const merged = mergeEncoded(parts);
    out[key] = parts.length === 1 ? (parts[0] as { enc: string }).enc : encodeHistogram(merged);
  }
  return out;
}
