/**
 * Naming and retention of history files: one JSON Lines file per UTC day,
 * `probe-YYYY-MM-DD.jsonl`, so a day's records can be found, rotated and deleted by name alone.
 */
import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';

const FILE_RE = /^probe-(\d{4}-\d{2}-\d{2})\.jsonl$/;
const DAY_MS = 86_400_000;

/** The UTC day (`YYYY-MM-DD`) of a wall time in ms. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The file name holding the records of `day`. */
export function historyFileName(day: string): string {
  return `probe-${day}.jsonl`;
}

/** A history file found in a directory. */
export interface HistoryFile {
  readonly name: string;
  readonly path: string;
  readonly day: string;
  /** Start of the day, ms since the epoch (UTC). */
  readonly dayStartMs: number;
}

/** The history files of `dir`, oldest first; an absent directory has none. */
export async function listHistoryFiles(dir: string): Promise<HistoryFile[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const out: HistoryFile[] = [];
  for (const name of names) {
    const m = FILE_RE.exec(name);
    const day = m?.[1];
    if (day === undefined) continue;
    const dayStartMs = Date.parse(`${day}T00:00:00Z`);
    if (Number.isFinite(dayStartMs)) out.push({ name, path: join(dir, name), day, dayStartMs });
  }
  return out.sort((a, b) => a.dayStartMs - b.dayStartMs);
}

/** Files that may hold records in [fromMs, toMs) (a day file covers its whole UTC day). */
export function filesInRange(files: readonly HistoryFile[], fromMs: number, toMs: number): HistoryFile[] {
  return files.filter((f) => f.dayStartMs + DAY_MS > fromMs && f.dayStartMs < toMs);
}

/**
 * Deletes the files whose whole day ended more than `retentionMs` before `nowMs`; returns
 * their names. A file of a day still partly inside the retention is kept whole.
 */
export async function pruneHistory(dir: string, retentionMs: number, nowMs: number): Promise<string[]> {
  const removed: string[] = [];
  for (const f of await listHistoryFiles(dir)) {
    if (f.dayStartMs + DAY_MS > nowMs - retentionMs) continue;
    try {
      await unlink(f.path);
      removed.push(f.name);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return removed;
}
