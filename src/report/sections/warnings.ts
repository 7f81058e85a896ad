/**
 * `warnings`: where the generator itself limited the load. The union of the shards' (a warning
 * said by several in the same words is said once), and `SHARDS_NOT_TOGETHER` when the shards'
 * starts spread over more than a second.
 */
import type { Report } from '../model.js';
import { union, type Part, type Source } from './merge-kit.js';
import type { FullSection, RunState } from './project-kit.js';
import type { RunWarning } from './warnings-schema.js';

/** Shards whose starts lie further apart than this did not run side by side (`flowgauge run --start-at` allows as much). */
const SHARDS_TOGETHER_MS = 1000;

/** `SHARDS_NOT_TOGETHER` when the shards' starts spread over more than a second (`sources` sorted by start). */
function notTogether(sources: readonly Source[], parts: readonly Part<Pick<Report, 'startedAt'>>[]): RunWarning[] {
  const first = sources[0] as Source;
  const last = sources[sources.length - 1] as Source;
  const spreadMs = last.startMs - first.startMs;
  if (spreadMs <= SHARDS_TOGETHER_MS) return [];
  const at = (s: Source): string => parts.find((p) => p.source === s)?.value.startedAt ?? new Date(s.startMs).toISOString();
  return [
    {
      code: 'SHARDS_NOT_TOGETHER',
      message:
        `the ${sources.length} shards started ${(spreadMs / 1000).toFixed(1)} s apart (${first.name} at ${at(first)}, ${last.name} at ${at(last)}): ` +
        `they did not run side by side, so the target never got the scenario's rate for the whole run; the achieved rate is over the time at least one shard ran. ` +
        `Start every shard at one instant with --start-at (or FLOWGAUGE_START_AT)`,
    },
  ];
}

const distinct = union<RunWarning>((w) => `${w.code}\u0000${w.message}`);

/** `warnings`, kind `union` (plus the merge's own). */
export const warningsSection: FullSection<readonly RunWarning[], Pick<Report, 'startedAt' | 'warnings'>, RunState> = {
  project: (s) => (s.input.warnings !== undefined && s.input.warnings.length > 0 ? s.input.warnings : undefined),
  merge(parts, scope) {
    const lists = parts.flatMap((p) => (p.value.warnings === undefined ? [] : [{ value: p.value.warnings, source: p.source }]));
    const own = notTogether(scope.sources, parts);
    if (own.length > 0) lists.push({ value: own, source: scope.sources[0] as Source });
    if (lists.length === 0) return undefined;
    const all = distinct.merge(lists, { scope, path: 'warnings', key: 'warnings', parents: parts.length }) ?? [];
    return all.length === 0 ? undefined : all;
  },
};
