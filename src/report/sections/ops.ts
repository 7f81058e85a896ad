/**
 * `ops`: per operation, counts add and the latency (and the phases) are re-read from the merged
 * histograms, so a merged report reads as one run's.
 */
import type { PhaseName, PhasesSnapshot } from '../../collect/request-phases.js';
import { OPS, type ByOp } from '../../core/ops.js';
import { bySection, each, fields, sum, sumCounts, type Rule } from './merge-kit.js';
import { histogram } from './merge-histograms.js';
import type { FullSection, ScopeState } from './project-kit.js';
import type { OpReport } from './ops-schema.js';
import { opsViews } from './ops-views.js';

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
export const opsMerge = each(opMerge, { order: OPS }) as Rule<ByOp<OpReport>>;

/** `ops`: the collectors' operations as they are, merged by the rules above. */
export const opsSection: FullSection<ByOp<OpReport>, object, ScopeState> = { ...bySection(opsMerge), project: (s) => s.snapshot.ops, views: opsViews };
