/**
 * `stream`: counts add; every timing is re-read from its merged histogram (`stream.<timing>`),
 * the prompt lengths and TTFT by prompt length from theirs.
 */
import { streamTimingKey, type StreamTimingName } from '../../core/stream-timings.js';
import { promptLengthFrom, promptsFrom, type PromptLengthReport } from '../../collect/prompt-length.js';
import { bySection, custom, fail, fields, sum, type Rule } from './merge-kit.js';
import { fromHistograms, histogram } from './merge-histograms.js';
import type { FullSection, ScopeState } from './project-kit.js';
import type { StreamReport } from './stream-schema.js';
import { streamViews } from './stream-views.js';

const timing = (name: StreamTimingName) => histogram(streamTimingKey(name), { noun: 'values' });

// Added later than the others: a report written before their histograms keeps only the summary.
const laterTiming = (name: StreamTimingName) => histogram(streamTimingKey(name), { orWorst: true });

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
  prompts: promptsMerge(),
});

/** `stream`: the stream collector's snapshot without its histograms (they are under `histograms`). */
export const streamSection: FullSection<StreamReport, object, ScopeState> = {
  ...bySection(streamMerge),
  project(s) {
    const { histograms: _histograms, ...stream } = s.snapshot.stream;
    return stream;
  },
  views: streamViews,
};

/**
 * `stream.prompts`: each unit's bands are a setting (shards of one run share them); every figure
 * is re-read from the merged histograms (`stream.prompt.<unit>.…`), so the merge is exact.
 */
function promptsMerge(): Rule<Readonly<Record<string, PromptLengthReport>>> {
  return custom('histogram', (parts, ctx) => {
    const bands: Record<string, readonly number[]> = {};
    for (const p of parts) {
      for (const [unit, r] of Object.entries(p.value)) {
        const seen = bands[unit];
        if (seen !== undefined && JSON.stringify(seen) !== JSON.stringify(r.bands)) {
          fail(`cannot merge: ${ctx.path}.${unit}.bands differs (${JSON.stringify(seen)}, ${p.source.name}: ${JSON.stringify(r.bands)}); shards of one run share them`);
        }
        bands[unit] = r.bands;
      }
    }
    return promptsFrom(ctx.scope.histograms, bands);
  });
}
