/**
 * `ops`: per operation, counts add and the latency (and the phases) are re-read from the merged
 * histograms, so a merged report reads as one run's.
 */
import type { z } from 'zod';
import { PHASES, type PhaseName, type PhasesSnapshot } from '../../collect/request-phases.js';
import { OPS, type OpName } from '../../core/ops.js';
import { bySection, each, fields, histogram, sum, sumCounts, type Rule } from './merge-kit.js';
import type { FullSection, ScopeState } from './project-kit.js';
import { byOp, count, countMap, keyed, obj, pct, type DeepReadonly } from './schema-kit.js';

const phasesSchema = obj(keyed(PHASES.map((p) => `${p}Ms` as const), pct));
/** report@1 `ops.<op>`. */
export const opSchema = obj(
  {
    count,
    good: count,
    bad: count,
    excluded: count,
    /** Responses by HTTP status code (requests with no response are only in `errors`). */
    statuses: countMap,
    /** Samples by `ErrorCode`. */
    errors: countMap,
    /** Latency of the served answers: every sample but a 429 (its `count` is `count` less the 429s). */
    latencyMs: pct,
  },
  {
    /** Where the time went, for requests that reached a connection (absent when none did). */
    phases: phasesSchema,
  },
);
/** `ops.<op>`: counts, statuses, errors and latency from the intended start. */
export type OpReport = DeepReadonly<z.output<typeof opSchema>>;
/** report@1 `ops`. */
export const opsSchema = byOp(opSchema);

function phasesMerge(op: string): Rule<PhasesSnapshot> {
  const phase = (p: PhaseName) => histogram(`${op}.phase.${p}`, { noun: 'requests' });
  return fields<PhasesSnapshot>({ blockedMs: phase('blocked'), connectMs: phase('connect'), tlsMs: phase('tls'), waitMs: phase('wait'), receiveMs: phase('receive') });
}

function opMerge(op: string): Rule<OpReport> {
  return fields<OpReport>({
    count: sum,
    good: sum,
    bad: sum,
    excluded: sum,
    statuses: sumCounts,
    errors: sumCounts,
    latencyMs: histogram(`${op}.latency`, { noun: 'requests' }),
    phases: phasesMerge(op),
  });
}

/** How `ops` merges: each operation by the rules above, in the order of `OPS`. */
export const opsMerge = each(opMerge, { order: OPS }) as Rule<Partial<Record<OpName, OpReport>>>;

/** `ops`: the collectors' operations as they are, merged by the rules above. */
export const opsSection: FullSection<Partial<Record<OpName, OpReport>>, object, ScopeState> = { ...bySection(opsMerge), project: (s) => s.snapshot.ops };
