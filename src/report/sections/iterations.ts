/**
 * `iterations` (journeys): outcomes add; the duration is re-read from its merged histogram; the
 * failure messages are one list across the shards (counts added, most frequent first, as many as
 * the writer keeps), the rest counted in `otherErrors`.
 */
import { MAX_ITERATION_ERRORS } from '../../collect/iteration-stats.js';
import { bySection, custom, fields, recompute, sum, type Part, type Rule } from './merge-kit.js';
import { histogram } from './merge-histograms.js';
import type { FullSection, ScopeState } from './project-kit.js';
import type { IterationsReport } from './iterations-schema.js';
import { iterationsViews } from './iterations-views.js';

type ErrorRow = IterationsReport['errors'][number];

/** Every part's messages, counts added, most frequent first. */
function messages(parts: readonly Part<readonly ErrorRow[]>[]): ErrorRow[] {
  const byMessage = new Map<string, number>();
  for (const p of parts) for (const e of p.value) byMessage.set(e.message, (byMessage.get(e.message) ?? 0) + e.count);
  return [...byMessage].map(([message, n]) => ({ message, count: n })).sort((a, b) => b.count - a.count);
}

/** How `iterations` merges (a scenario's as the top level's). */
export const iterationsMerge: Rule<IterationsReport> = fields<IterationsReport>({
  started: sum,
  completed: sum,
  failed: sum,
  interrupted: sum,
  dropped: sum,
  // Exact from `iteration.duration`; a writer that kept no histogram leaves only its summary (worst).
  durationMs: histogram('iteration.duration', { orWorst: true }),
  errors: custom('union', (parts) => (parts.length === 1 ? parts[0]?.value : messages(parts).slice(0, MAX_ITERATION_ERRORS))),
  // The parts' own, and the failures of the messages the merged list could not keep.
  otherErrors: recompute((_m, parents) => {
    const own = parents.reduce((n, p) => n + (p.value.otherErrors ?? 0), 0);
    if (parents.length === 1) return own;
    return own + messages(parents.map((p) => ({ value: p.value.errors, source: p.source }))).slice(MAX_ITERATION_ERRORS).reduce((n, e) => n + e.count, 0);
  }),
});

/** `iterations`: the journeys' accounting, present only when journeys ran. */
export const iterationsSection: FullSection<IterationsReport, object, ScopeState> = { ...bySection(iterationsMerge), project: (s) => s.iterations?.iterations, views: iterationsViews };
