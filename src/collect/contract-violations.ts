/**
 * Aggregation of contract violations by (op, path, expected, got), bounded so that a service
 * returning a different wrong value in every response cannot grow memory without limit.
 */
import type { ContractViolation } from '../core/types.js';
import type { OpName } from '../core/ops.js';

/** One distinct violation and how often it was seen (report.json `contractViolations`). */
export interface ContractViolationEntry {
  readonly op: OpName;
  readonly path: string;
  readonly expected: string;
  readonly got: string;
  readonly count: number;
}

/** Totals, including what the bounded table could not keep. */
export interface ContractViolationTotals {
  /** Every violation seen. */
  readonly total: number;
  /** Distinct violations not kept in the table because it was full. */
  readonly droppedDistinct: number;
  /** Occurrences of those. */
  readonly droppedCount: number;
}

/** The aggregator. */
export interface ContractViolationTable {
  add(violations: readonly ContractViolation[]): void;
  /** Entries, most frequent first. */
  entries(): ContractViolationEntry[];
  totals(): ContractViolationTotals;
}

/** Longest `path`/`expected`/`got` kept; longer text is cut (it is evidence, not data). */
const MAX_TEXT = 120;
/** Distinct dropped keys remembered to count them; beyond this, `droppedDistinct` may overcount. */
const MAX_DROPPED_KEYS = 10_000;

const cut = (s: string): string => (s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT - 1)}…` : s);

/**
 * `flows[3].endpoint` and `flows[7].endpoint` are one defect of the service; grouping them
 * keeps the table to one row per field instead of one per list position.
 */
const groupPath = (path: string): string => path.replace(/\[\d+\]/g, '[]');

/** Creates a table keeping at most `maxDistinct` (default 200) distinct violations. */
export function createContractViolationTable(maxDistinct = 200): ContractViolationTable {
  const table = new Map<string, { op: OpName; path: string; expected: string; got: string; count: number }>();
  const droppedKeys = new Set<string>();
  let droppedDistinct = 0;
  let droppedCount = 0;
  let total = 0;

  return {
    add(violations) {
      for (const v of violations) {
        total++;
        const path = cut(groupPath(v.path));
        const expected = cut(v.expected);
        const got = cut(v.got);
        const key = JSON.stringify([v.op, path, expected, got]);
        const entry = table.get(key);
        if (entry !== undefined) entry.count++;
        else if (table.size < maxDistinct) table.set(key, { op: v.op, path, expected, got, count: 1 });
        else {
          droppedCount++;
          if (!droppedKeys.has(key)) {
            droppedDistinct++;
            if (droppedKeys.size < MAX_DROPPED_KEYS) droppedKeys.add(key);
          }
        }
      }
    },
    entries: () => [...table.values()].map((e) => ({ ...e })).sort((a, b) => b.count - a.count),
    totals: () => ({ total, droppedDistinct, droppedCount }),
  };
}
