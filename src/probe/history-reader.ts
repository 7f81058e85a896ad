/**
 * Reading the probe history back. A torn last line (a record cut by a crash, without its
 * newline) is ignored and counted; so is any other line that is not a record.
 */
import { readFile } from 'node:fs/promises';
import { filesInRange, listHistoryFiles } from './history-files.js';
import { parseProbeRecord, recordTimeMs, type ProbeRecord } from './record.js';

/** What a read found. */
export interface HistoryRead {
  /** Records in time order. */
  readonly records: ProbeRecord[];
  /** Files read. */
  readonly files: readonly string[];
  /** Files that ended in a torn record (ignored). */
  readonly tornTails: number;
  /** Complete lines that were not records (ignored). */
  readonly badLines: number;
}

/** Parses the text of one file. */
export function parseHistoryText(text: string): { records: ProbeRecord[]; torn: boolean; badLines: number } {
  const records: ProbeRecord[] = [];
  let badLines = 0;
  const lines = text.split('\n');
  // Text ending in a newline splits into a last empty string; anything else there is a torn tail.
  const tail = lines.pop() ?? '';
  for (const line of lines) {
    if (line === '') continue;
    const r = parseProbeRecord(line);
    if (r === undefined) badLines++;
    else records.push(r);
  }
  return { records, torn: tail !== '', badLines };
}

/**
 * Reads the records of `dir` with a time in [fromMs, toMs) (default: all). A missing
 * directory reads as empty.
 */
export async function readHistory(dir: string, range: { fromMs?: number; toMs?: number } = {}): Promise<HistoryRead> {
  const fromMs = range.fromMs ?? -Infinity;
  const toMs = range.toMs ?? Infinity;
  const files = filesInRange(await listHistoryFiles(dir), fromMs, toMs);
  const records: ProbeRecord[] = [];
  let tornTails = 0;
  let badLines = 0;
  for (const f of files) {
    let text: string;
    try {
      text = await readFile(f.path, 'utf8');
    } catch (err) {
      // Retention may delete a file between listing and reading it.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    const parsed = parseHistoryText(text);
    if (parsed.torn) tornTails++;
    badLines += parsed.badLines;
    for (const r of parsed.records) {
      const t = recordTimeMs(r);
      if (t >= fromMs && t < toMs) records.push(r);
    }
  }
  // Files are in day order and lines in append order; a stable sort only fixes clock steps.
  records.sort((a, b) => recordTimeMs(a) - recordTimeMs(b));
  return { records, files: files.map((f) => f.name), tornTails, badLines };
}
