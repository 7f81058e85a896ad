/**
 * `contractViolations` and `contractViolationTotals`: the distinct violations are one table
 * across the shards (the same op, path, expected and got are one row, their counts added, most
 * frequent first, as bounded as the largest part's table); the totals add, and count the rows
 * the merged table could not keep as dropped.
 */
import type { ContractViolationEntry, ContractViolationTotals } from '../../collect/contract-violations.js';
import type { Report } from '../model.js';
import { fields, sum, type Part } from './merge-kit.js';
import type { FullSection, ScopeState } from './project-kit.js';
import { violationsViews } from './contract-violations-views.js';

/** Distinct violations the collector keeps by default. */
const DEFAULT_MAX_DISTINCT = 200;

type WithViolations = Pick<Partial<Report>, 'contractViolations' | 'contractViolationTotals'>;

/** The merged table: every row, most frequent first, and how many it may keep. */
function table(parts: readonly Part<WithViolations>[]): { rows: ContractViolationEntry[]; keep: number } {
  const lists = parts.map((p) => p.value.contractViolations ?? []);
  const byKey = new Map<string, ContractViolationEntry>();
  for (const list of lists) {
    for (const v of list) {
      const key = JSON.stringify([v.op, v.path, v.expected, v.got]);
      const prev = byKey.get(key);
      byKey.set(key, { ...v, count: (prev?.count ?? 0) + v.count });
    }
  }
  return { rows: [...byKey.values()].sort((a, b) => b.count - a.count), keep: Math.max(DEFAULT_MAX_DISTINCT, ...lists.map((l) => l.length)) };
}

/** `contractViolations` (top level only), kind `union`: the tables joined, counts added, bounded. */
export const violationsSection: FullSection<readonly ContractViolationEntry[], WithViolations, ScopeState> = {
  project: (s) => s.snapshot.contractViolations,
  views: violationsViews,
  merge(parts) {
    if (parts.every((p) => p.value.contractViolations === undefined)) return undefined;
    if (parts.length === 1) return parts[0]?.value.contractViolations;
    const { rows, keep } = table(parts);
    return rows.slice(0, keep);
  },
};

const totalsRule = fields<ContractViolationTotals>({ total: sum, droppedDistinct: sum, droppedCount: sum });

/** `contractViolationTotals` (top level and each scenario's), kind `sum`: the totals add, plus the rows the merged table dropped. */
export const violationTotalsSection: FullSection<ContractViolationTotals, WithViolations, ScopeState> = {
  project: (s) => s.snapshot.contractViolationTotals,
  merge(parts, scope) {
    // A report written before the totals: every violation is in its table.
    const totals = parts.map((p) => ({
      value: p.value.contractViolationTotals ?? { total: (p.value.contractViolations ?? []).reduce((n, v) => n + v.count, 0), droppedDistinct: 0, droppedCount: 0 },
      source: p.source,
    }));
    if (parts.every((p) => p.value.contractViolationTotals === undefined && p.value.contractViolations === undefined)) return undefined;
    const merged = totalsRule.merge(totals, { scope, path: 'contractViolationTotals', key: 'contractViolationTotals', parents: parts.length }) as ContractViolationTotals;
    if (parts.length === 1) return merged;
    const { rows, keep } = table(parts);
    const dropped = rows.slice(keep);
    return dropped.length === 0 ? merged : { ...merged, droppedDistinct: merged.droppedDistinct + dropped.length, droppedCount: merged.droppedCount + dropped.reduce((n, v) => n + v.count, 0) };
  },
};
