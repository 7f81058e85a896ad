/**
 * `ops`: per operation, counts add and the latency (and the phases) are re-read from the merged
 * histograms, so a merged report reads as one run's.
 */
import { PHASES, type PhaseName, type PhasesSnapshot } from '../../collect/request-phases.js';
import { OPS, type ByOp } from '../../core/ops.js';
import type { OpReport } from '../model.js';
import { each, fields, histogram, sum, sumCounts, type Rule } from './merge-kit.js';
import { byOpOrHttp, count, countMap, keyed, obj, pct } from './schema-kit.js';

const phasesSchema = obj(keyed(PHASES.map((p) => `${p}Ms` as const), pct));
/** report@1 `ops.<op>`. */
export const opSchema = obj({ count, good: count, bad: count, excluded: count, statuses: countMap, errors: countMap, latencyMs: pct }, { phases: phasesSchema });
/** report@1 `ops`. */
export const opsSchema = byOpOrHttp(opSchema);

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
