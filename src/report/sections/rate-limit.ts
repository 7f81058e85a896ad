/**
 * `rateLimit`: what the rate-limit analyser found. Counts add; the 429s' latency comes from its
 * merged histogram. What the analyser keeps only as a finding is combined conservatively: the
 * first 429 is the earliest in wall time (its index within its own shard), the recovery the
 * slowest shard's, the advertised limit the highest.
 */
import type { RateLimitWindow } from '../../collect/rate-limit-analyser.js';
import type { RateLimitEvidence } from '../../collect/rate-limit-evidence.js';
import { mergeEvidence } from '../../collect/rate-limit-evidence-codec.js';
import type { ThrottleCounts } from '../../collect/rate-limit-settle.js';
import { anyOf, bySection, custom, each, fields, max, recompute, round3, setting, sum, sumCounts, type Part, type Rule } from './merge-kit.js';
import { histogram } from './merge-histograms.js';
import type { FullSection, ScopeState } from './project-kit.js';
import type { RateLimitReport } from './rate-limit-schema.js';

/** Windows kept in the merged report, newest last (as the analyser keeps them). */
const MAX_WINDOWS = 1000;

const minOf = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.min(a, b));

/** The reset semantics the parts agree on, ignoring those that could not tell; `unknown` otherwise. */
function semanticsOf(values: readonly RateLimitReport['resetSemantics'][]): RateLimitReport['resetSemantics'] {
  const known = new Set(values.filter((v) => v !== 'unknown'));
  return known.size === 1 ? ([...known][0] as RateLimitReport['resetSemantics']) : 'unknown';
}

/**
 * Every part's windows; with epoch Reset values (which name the same server window in every
 * shard) a window seen by several shards is one: its counts add, its lowest Remaining is kept.
 */
function combinedWindows(parents: readonly Part<RateLimitReport>[]): RateLimitWindow[] {
  const windows = parents.flatMap((p) => p.value.windows.map((w) => ({ ...w })));
  if (semanticsOf(parents.map((p) => p.value.resetSemantics)) !== 'epoch-seconds' || parents.length === 1) return windows;
  const byReset = new Map<string, RateLimitWindow>();
  const rest: RateLimitWindow[] = [];
  for (const w of windows) {
    const prev = w.reset === null ? undefined : byReset.get(w.reset);
    if (w.reset === null) rest.push(w);
    else if (prev === undefined) byReset.set(w.reset, w);
    else {
      byReset.set(w.reset, {
        reset: w.reset,
        accepted: prev.accepted + w.accepted,
        rejected: prev.rejected + w.rejected,
        limit: prev.limit ?? w.limit ?? null,
        minRemaining: minOf(prev.minRemaining ?? null, w.minRemaining ?? null),
      });
    }
  }
  return [...[...byReset.values()].sort((a, b) => Number(a.reset) - Number(b.reset)), ...rest];
}

/** How `rateLimit` merges (a scenario's as the top level's). */
export const rateLimitMerge: Rule<RateLimitReport> = fields<RateLimitReport>({
  // The most common Limit of each shard; shards of one token see the same, else the highest.
  advertisedLimit: max<number | null>(),
  resetSemantics: setting({ disagree: semanticsOf }),
  responses: sum,
  responses429: sum,
  expected429: sum,
  premature429: sum,
  headerless429: sum,
  uncertain429: sum,
  gateway429: sum,
  // The parts' own verdicts added; the report's merge settles them again on the merged evidence.
  byOp: each(() => fields<ThrottleCounts>({ expected: sum, premature: sum, uncertain: sum })),
  rolling: anyOf,
  latencyMs: histogram('ratelimit.latency', { noun: 'answers' }),
  headerViolations: sumCounts,
  // Union of the windows (one per epoch Reset), the newest MAX_WINDOWS kept.
  windows: recompute((_m, parents) => {
    const all = combinedWindows(parents);
    return all.slice(Math.max(0, all.length - MAX_WINDOWS));
  }),
  // The parts' dropped windows, and those the merged list could not keep.
  windowsDropped: recompute((_m, parents) => parents.reduce((n, p) => n + (p.value.windowsDropped ?? 0), 0) + Math.max(0, combinedWindows(parents).length - MAX_WINDOWS)),
  // The earliest in wall time, placed on the merged run's clock; its index is within its own shard.
  first429: custom('min', (parts, ctx) => {
    const first = parts
      .flatMap((p) => (p.value === null ? [] : [{ at: p.source.startMs + p.value.atMs, index: p.value.index }]))
      .sort((a, b) => a.at - b.at)[0];
    return first === undefined ? null : { index: first.index, atMs: round3(first.at - ctx.scope.startMs) };
  }),
  // The slowest shard's recovery.
  recoveryMs: max<number | null>(),
  // The union, on the merged run's clock (each part's times are from its own start).
  evidence: custom<RateLimitEvidence>('union', (parts, ctx) =>
    parts.length === 1 && parts[0]?.source.startMs === ctx.scope.startMs
      ? parts[0].value
      : mergeEvidence(parts.map((p) => ({ evidence: p.value, shiftUs: Math.round((p.source.startMs - ctx.scope.startMs) * 1000) }))),
  ),
});

/**
 * `rateLimit`: the analyser's findings with the latency of the 429 answers (from the
 * `ratelimit.latency` histogram, which `ops.*.latencyMs` leaves out).
 */
export const rateLimitSection: FullSection<RateLimitReport, object, ScopeState> = {
  ...bySection(rateLimitMerge),
  project: (s) => ({ ...s.snapshot.rateLimit, latencyMs: s.snapshot.rateLimitLatencyMs }),
};
