/**
 * The SLO status of a history that may hold several targets (two probers appending to one
 * directory, or histories gathered in one place): one status per target, never one blend of
 * them (two services' outages summed into one uptime are neither service's). Records that name
 * no target (written before targets were kept) are the sole named target's, when there is one;
 * else they are a section of their own.
 *
 * With one target the status is that target's (with `target` set). With several, `targets`
 * lists each, and the top-level figures are those of the target furthest from its objective:
 * the one that decides the verdict, so `withinObjective` (and the exit code) is true only when
 * every target meets it.
 */
import { foldHistory, type HistoryRange, type HistoryScan } from './history-reader.js';
import { targetOf, type ProbeRecord } from './record.js';
import { createSloStatusFold, type SloStatus, type SloStatusFold, type SloStatusOptions } from './status.js';

/** Most targets a status lists; records of further targets are counted and left out. */
export const MAX_STATUS_TARGETS = 20;

/** A status of several targets, built record by record. */
export interface TargetedStatusFold {
  add(record: ProbeRecord, timeMs?: number): void;
  /** Target names met, in order of first record ('' for records that name none). */
  targets(): readonly string[];
  finish(history?: { readonly files: number; readonly tornTails: number; readonly badLines: number }): SloStatus;
}

/**
 * Creates the fold. `unnamedAs` is the target records without one count as (default: a section
 * of their own).
 */
export function createTargetedStatusFold(options: SloStatusOptions, unnamedAs?: string): TargetedStatusFold {
  const folds = new Map<string, SloStatusFold>();
  let leftOut = 0;
  return {
    add(record, timeMs) {
      const key = record.target ?? unnamedAs ?? targetOf(record);
      let fold = folds.get(key);
      if (fold === undefined) {
        if (folds.size >= MAX_STATUS_TARGETS) {
          leftOut++;
          return;
        }
        folds.set(key, (fold = createSloStatusFold(options)));
      }
      fold.add(record, timeMs);
    },
    targets: () => [...folds.keys()],
    finish(history) {
      const sections = [...folds].map(([key, fold]) => withTarget(fold.finish(history), key));
      if (sections.length === 0) return createSloStatusFold(options).finish(history);
      const extra =
        leftOut === 0
          ? []
          : [`the history holds more than ${MAX_STATUS_TARGETS} targets: ${leftOut} records of the others are left out; read each target's history apart`];
      if (sections.length === 1) {
        const only = sections[0] as SloStatus;
        return extra.length === 0 ? only : { ...only, warnings: [...only.warnings, ...extra] };
      }
      const worst = [...sections].sort(worseFirst)[0] as SloStatus;
      return { ...worst, warnings: [...worst.warnings, ...extra], withinObjective: sections.every((s) => s.withinObjective), targets: sections };
    },
  };
}

function withTarget(s: SloStatus, key: string): SloStatus {
  return key === '' ? s : { ...s, target: key };
}

/** Breaches first (the lowest uptime first), then no data, then those within (lowest first). */
function worseFirst(a: SloStatus, b: SloStatus): number {
  const rank = (s: SloStatus): number => (s.overall.withinObjective === false ? 0 : s.overall.withinObjective === null ? 1 : 2);
  return rank(a) - rank(b) || (a.overall.timeUptime ?? 1) - (b.overall.timeUptime ?? 1);
}

/**
 * Reads the status of `dir` over `range`, per target. Records that name no target join the
 * sole named one; that takes a second read of the range, only for a history that holds both
 * (one written across the upgrade that added targets).
 */
export async function readSloStatus(dir: string, range: HistoryRange, options: SloStatusOptions): Promise<{ readonly status: SloStatus; readonly scan: HistoryScan }> {
  const read = async (unnamedAs?: string): Promise<{ fold: TargetedStatusFold; scan: HistoryScan }> => {
    const fold = createTargetedStatusFold(options, unnamedAs);
    const scan = await foldHistory(dir, range, (r, t) => fold.add(r, t));
    return { fold, scan };
  };
  let { fold, scan } = await read();
  const named = fold.targets().filter((t) => t !== '');
  if (named.length === 1 && fold.targets().includes('')) ({ fold, scan } = await read(named[0]));
  const status = fold.finish({ files: scan.files.length, tornTails: scan.tornTails, badLines: scan.badLines });
  return { status, scan };
}
