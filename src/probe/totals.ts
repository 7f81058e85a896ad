/**
 * The probe's cumulative counts (probes by result, the duration histogram) read back from the
 * durable history, so the exported counters continue across processes: a CronJob's
 * `probe --once` pushes totals that grow run after run, and `increase()` over the Pushgateway's
 * series works; a restarted daemon goes on from where the history stands.
 *
 * Read as a fold (`foldHistory`), in bounded memory whatever the history's size. Retention
 * deletes old day files, which would make the totals drop (a counter reset to Prometheus, and a
 * false increase of the whole remainder), so the counts of settled days are kept in a
 * checkpoint file, `probe-totals.json`, beside the day files: the totals are the checkpoint plus
 * the days after it, and each read only folds those days (a CronJob reads one day a run, not
 * the whole retention).
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { addToProbeTotals, emptyProbeTotals, mergeProbeTotals, sameBounds, type ProbeTotals } from '../export/index.js';
import { foldHistory, type HistoryScan } from './history-reader.js';
import { utcDay } from './history-files.js';
import { probeResultOf } from './probe-result.js';
import { targetOf } from './record.js';

/** File name of the checkpoint in the history directory. */
export const TOTALS_CHECKPOINT = 'probe-totals.json';

/** A day is settled (no record of it can still be written) this long after it ended. */
export const SETTLE_MS = 3_600_000;

const DAY_MS = 86_400_000;

/**
 * The checkpoint: the totals of every day through `through`, per target (`''` for records
 * written before targets were kept). Version 1 held one set of totals, from a time when no
 * record named its target: it is read as the `''` target's.
 */
interface Checkpoint {
  readonly v: 2;
  /** The last UTC day whose records the totals include; every earlier day is included too. */
  readonly through: string;
  readonly targets: Record<string, ProbeTotals>;
}

/** What `readProbeTotals` found. */
export interface TotalsRead {
  /** Every record of the history (checkpoint included) of the target asked for, as metrics counts. */
  readonly totals: ProbeTotals;
  /** Records folded by this read (after the checkpoint), of every target. */
  readonly folded: number;
  /** The checkpoint's last day, after this read (absent when there is none). */
  readonly through: string | undefined;
  /** Why the checkpoint could not be written, when it could not (the totals are right anyway). */
  readonly checkpointError?: string;
  readonly scan: HistoryScan;
}

function isTotals(v: unknown): v is ProbeTotals {
  if (typeof v !== 'object' || v === null) return false;
  const t = v as Record<string, unknown>;
  return Array.isArray(t.bounds) && t.bounds.every((b) => typeof b === 'number') && typeof t.checks === 'object' && t.checks !== null;
}

async function readCheckpoint(path: string, bounds: readonly number[]): Promise<Checkpoint | undefined> {
  let v: unknown;
  try {
    v = JSON.parse(await readFile(path, 'utf8'));
  } catch {
    // Absent, or torn by a crash mid-write (it is renamed into place, so rarely): refold.
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const c = v as Record<string, unknown>;
  if (typeof c.through !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(c.through)) return undefined;
  let targets: Record<string, unknown>;
  if (c.v === 1 && isTotals(c.totals)) targets = { '': c.totals };
  else if (c.v === 2 && typeof c.targets === 'object' && c.targets !== null) targets = c.targets as Record<string, unknown>;
  else return undefined;
  // Counts made with other buckets cannot be added: refold from the day files.
  const all = Object.values(targets);
  if (!all.every((t) => isTotals(t) && sameBounds(t.bounds, bounds))) return undefined;
  return { v: 2, through: c.through, targets: targets as Record<string, ProbeTotals> };
}

/** Totals per target key, made on first use. */
function perTarget(into: Map<string, ProbeTotals>, key: string): ProbeTotals {
  let t = into.get(key);
  if (t === undefined) into.set(key, (t = emptyProbeTotals()));
  return t;
}

/**
 * Folds the history of `dir` into cumulative totals as of `nowMs`, starting from its
 * checkpoint, and moves the checkpoint up to the last settled day. The totals returned are
 * those of `target`'s records and of the records that name no target (written before targets
 * were kept, so by this prober); without `target`, of every record. Never throws for the
 * checkpoint (a read-only history still reads); `FG_HISTORY_UNREADABLE` for a day file.
 */
export async function readProbeTotals(dir: string, nowMs: number, target?: string): Promise<TotalsRead> {
  const path = join(dir, TOTALS_CHECKPOINT);
  const bounds = emptyProbeTotals().bounds;
  const cp = await readCheckpoint(path, bounds);
  const fromMs = cp === undefined ? undefined : Date.parse(`${cp.through}T00:00:00Z`) + DAY_MS;
  const all = new Map<string, ProbeTotals>();
  const settled = new Map<string, ProbeTotals>();
  for (const [key, t] of Object.entries(cp?.targets ?? {})) {
    mergeProbeTotals(perTarget(all, key), t);
    mergeProbeTotals(perTarget(settled, key), t);
  }
  // Days before this one are settled: the last of them ended over SETTLE_MS ago.
  const settledBeforeMs = Date.parse(`${utcDay(nowMs - SETTLE_MS)}T00:00:00Z`);
  let folded = 0;
  let lastSettledMs = -Infinity;
  const scan = await foldHistory(dir, fromMs === undefined ? {} : { fromMs }, (r, t) => {
    folded++;
    const key = targetOf(r);
    const result = probeResultOf(r, t);
    addToProbeTotals(perTarget(all, key), r.check, result);
    if (t < settledBeforeMs) {
      addToProbeTotals(perTarget(settled, key), r.check, result);
      lastSettledMs = Math.max(lastSettledMs, t);
    }
  });
  let through = cp?.through;
  let checkpointError: string | undefined;
  // Move the checkpoint only when a day it lacks has settled (and has records to add).
  if (Number.isFinite(lastSettledMs)) {
    const day = utcDay(settledBeforeMs - 1);
    try {
      const tmp = `${path}.tmp`;
      await writeFile(tmp, `${JSON.stringify({ v: 2, through: day, targets: Object.fromEntries(settled) } satisfies Checkpoint)}\n`);
      await rename(tmp, path);
      through = day;
    } catch (err) {
      checkpointError = (err as NodeJS.ErrnoException).code ?? 'write failed';
    }
  }
  const totals = emptyProbeTotals();
  for (const [key, t] of all) if (target === undefined || key === '' || key === target) mergeProbeTotals(totals, t);
  return { totals, folded, through, ...(checkpointError !== undefined ? { checkpointError } : {}), scan };
}
