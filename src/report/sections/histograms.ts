/**
 * `histograms`: every serialised HDR histogram, merged bucket by bucket (what makes the merge of
 * latencies exact). They are merged once per scope before any section (`Scope.histograms`), so
 * the sections that re-read a `Pct` from them read the merged ones.
 */
import type { FullSection, ScopeState } from './project-kit.js';

/** `histograms`: the collectors' and the journeys' serialised histograms; merged, kind `histogram`: the scope's merged histograms. */
export const histogramsSection: FullSection<Readonly<Record<string, string>>, object, ScopeState> = {
  project: (s) => ({ ...s.snapshot.histograms, ...(s.iterations?.histograms ?? {}) }),
  merge: (_parts, scope) => scope.histograms,
};
