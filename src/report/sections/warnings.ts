/**
 * `warnings`: where the generator itself limited the load. Merged, each warning is said once:
 * of unsharded reports, a warning said by several in the same words; of shards' reports, each
 * code (per scenario) once, saying which shards raised it. And the merge's own:
 * `SHARDS_NOT_TOGETHER` when the shards' starts spread over more than a second, with each
 * shard's offset and, for shards that came up late and joined the schedule in phase, what they
 * missed.
 */
import type { Report } from '../model.js';
import { union, type Part, type Source } from './merge-kit.js';
import type { FullSection, RunState } from './project-kit.js';
import { shardLabel } from './shards.js';
import type { RunWarning } from './warnings-schema.js';

/** Shards whose starts lie further apart than this did not run side by side (`flowgauge run --start-at` allows as much). */
const SHARDS_TOGETHER_MS = 1000;
/** Offsets listed one by one; a run of more shards names the latest ones. */
const OFFSETS_LISTED = 12;

type WarningParts = Pick<Report, 'startedAt' | 'warnings' | 'shard' | 'shards'> & { readonly load: Pick<Report['load'], 'missed' | 'joinedAtS'> };

const seconds = (ms: number): string => (ms / 1000).toFixed(1);

/** `SHARDS_NOT_TOGETHER` when the shards' starts spread over more than a second (`sources` sorted by start). */
function notTogether(sources: readonly Source[], parts: readonly Part<WarningParts>[]): RunWarning[] {
  const first = sources[0] as Source;
  const last = sources[sources.length - 1] as Source;
  const spreadMs = last.startMs - first.startMs;
  if (spreadMs <= SHARDS_TOGETHER_MS) return [];
  const partOf = (s: Source): Part<WarningParts> | undefined => parts.find((p) => p.source === s);
  const at = (s: Source): string => partOf(s)?.value.startedAt ?? new Date(s.startMs).toISOString();
  const label = (s: Source): string | undefined => {
    const p = partOf(s);
    return p === undefined ? undefined : shardLabel(p.value);
  };
  const named = (s: Source): string => (label(s) === undefined ? s.name : `${label(s) as string} (${s.name})`);
  let offsets = '';
  if (sources.length > 2 || sources.some((s) => label(s) !== undefined)) {
    const late = [...sources].sort((a, b) => b.startMs - a.startMs).slice(0, OFFSETS_LISTED);
    const listed = sources.filter((s) => late.includes(s)).map((s) => `${label(s) ?? s.name} +${seconds(s.startMs - first.startMs)} s`);
    offsets = `; from the first start: ${listed.join(', ')}${sources.length > listed.length ? ` (the ${listed.length} latest of ${sources.length})` : ''}`;
  }
  const joined = parts.filter((p) => (p.value.load.joinedAtS ?? 0) > 0);
  const missed = joined.reduce((n, p) => n + (p.value.load.missed ?? 0), 0);
  const why =
    joined.length > 0
      ? `${joined.map((p) => shardLabel(p.value) ?? p.source.name).join(', ')} came up after --start-at and joined the schedule in phase, without the ${missed} arrival${missed === 1 ? '' : 's'} already due (load.missed): ` +
        `until then the target got less than the scenario's rate. Start the shards with a wider margin before --start-at`
      : `they did not run side by side, so the target never got the scenario's rate for the whole run; the achieved rate is over the time at least one shard ran. ` +
        `Start every shard at one instant with --start-at (or FLOWGAUGE_START_AT)`;
  return [
    {
      code: 'SHARDS_NOT_TOGETHER',
      message: `the ${sources.length} shards started ${seconds(spreadMs)} s apart (${named(first)} at ${at(first)}, ${named(last)} at ${at(last)}${offsets}): ${why}`,
    },
  ];
}

const distinct = union<RunWarning>((w) => `${w.code}\u0000${w.message}`);

/** A warning's scenario (`scenario "free": …`), so each scenario's stays its own line. */
const scenarioOf = (w: RunWarning): string => /^scenario "[^"]*": /.exec(w.message)?.[0] ?? '';

/**
 * The shards' warnings, each code (per scenario) once, saying which shards raised it. Their
 * figures are each shard's share, so when the words differ the line keeps the first shard's and
 * says which others said the same.
 */
function byShard(parts: readonly Part<WarningParts>[]): RunWarning[] {
  const groups = new Map<string, { code: string; said: { shard: string; message: string }[] }>();
  for (const p of parts) {
    const shard = shardLabel(p.value) ?? p.source.name;
    for (const w of p.value.warnings ?? []) {
      const key = `${w.code}\u0000${scenarioOf(w)}`;
      let g = groups.get(key);
      if (g === undefined) groups.set(key, (g = { code: w.code, said: [] }));
      g.said.push({ shard, message: w.message });
    }
  }
  return [...groups.values()].map((g) => {
    const first = g.said[0] as { shard: string; message: string };
    const shards = [...new Set(g.said.map((x) => x.shard))];
    if (g.said.every((x) => x.message === first.message)) return { code: g.code, message: `${first.message} (${shards.join(', ')})` };
    const others = shards.filter((s) => s !== first.shard);
    return { code: g.code, message: `${first.message} (figures of ${first.shard}; ${others.join(', ')} said the same of ${others.length > 1 ? 'their shares' : 'its share'})` };
  });
}

/** `warnings`, kind `union` (plus the merge's own). */
export const warningsSection: FullSection<readonly RunWarning[], WarningParts, RunState> = {
  project: (s) => (s.input.warnings !== undefined && s.input.warnings.length > 0 ? s.input.warnings : undefined),
  merge(parts, scope) {
    const own = notTogether(scope.sources, parts);
    if (parts.some((p) => shardLabel(p.value) !== undefined)) {
      const all = [...byShard(parts), ...own];
      return all.length === 0 ? undefined : all;
    }
    const lists = parts.flatMap((p) => (p.value.warnings === undefined ? [] : [{ value: p.value.warnings, source: p.source }]));
    if (own.length > 0) lists.push({ value: own, source: scope.sources[0] as Source });
    if (lists.length === 0) return undefined;
    const all = distinct.merge(lists, { scope, path: 'warnings', key: 'warnings', parents: parts.length }) ?? [];
    return all.length === 0 ? undefined : all;
  },
};
