/**
 * Merging the per-operation sections of shard reports: counts add, percentiles (latency and
 * phases) come from the merged histograms, so a merged report reads as one run's.
 */
import { FlowgaugeError } from '../core/errors.js';
import { OPS, type OpName } from '../core/ops.js';
import { decodeHistogram, emptyPct, toPct, type Pct } from '../collect/histogram.js';
import type { PhaseName, PhasesSnapshot } from '../collect/request-phases.js';
import type { OpReport, Report } from './model.js';

/** One shard's report and the name errors call it by. */
export interface NamedReport {
  readonly report: Report;
  readonly name: string;
}

const fail = (message: string): never => {
  throw new FlowgaugeError('FG_REPORT_INVALID', message);
};

const addCounts = (into: Record<string, number>, from: Readonly<Record<string, number>>): void => {
  for (const [k, n] of Object.entries(from)) into[k] = (into[k] ?? 0) + n;
};

/** The summary of a merged histogram; all zero when no shard had it. */
export const pctOf = (histograms: Readonly<Record<string, string>>, key: string): Pct => {
  const enc = histograms[key];
  return enc === undefined ? emptyPct() : toPct(decodeHistogram(enc));
};

/** Merges `ops`; `histograms` are the shards' already merged. Throws naming a shard whose histograms are missing. */
export function mergeOps(shards: readonly NamedReport[], histograms: Readonly<Record<string, string>>): Partial<Record<OpName, OpReport>> {
  const out: Partial<Record<OpName, OpReport>> = {};
  for (const op of OPS) {
    const present = shards.filter((s) => s.report.ops[op] !== undefined);
    if (present.length === 0) continue;
    const acc = { count: 0, good: 0, bad: 0, excluded: 0, statuses: {} as Record<string, number>, errors: {} as Record<string, number> };
    for (const s of present) {
      const o = s.report.ops[op] as OpReport;
      if (o.count > 0 && s.report.histograms[`${op}.latency`] === undefined) {
        fail(`${s.name}: ops.${op} has ${o.count} requests but no histograms["${op}.latency"]; percentiles cannot be merged exactly`);
      }
      if (o.phases !== undefined && s.report.histograms[`${op}.phase.blocked`] === undefined) {
        fail(`${s.name}: ops.${op} has phases but no histograms["${op}.phase.blocked"]; they cannot be merged exactly`);
      }
      acc.count += o.count;
      acc.good += o.good;
      acc.bad += o.bad;
      acc.excluded += o.excluded;
      addCounts(acc.statuses, o.statuses);
      addCounts(acc.errors, o.errors);
    }
    const phased = present.some((s) => s.report.ops[op]?.phases !== undefined);
    out[op] = { ...acc, latencyMs: pctOf(histograms, `${op}.latency`), ...(phased ? { phases: mergePhases(histograms, op) } : {}) };
  }
  return out;
}

function mergePhases(histograms: Readonly<Record<string, string>>, op: OpName): PhasesSnapshot {
  const pct = (p: PhaseName): Pct => pctOf(histograms, `${op}.phase.${p}`);
  return { blockedMs: pct('blocked'), connectMs: pct('connect'), tlsMs: pct('tls'), waitMs: pct('wait'), receiveMs: pct('receive') };
}

