/**
 * Reading the probe history back. A torn last line (a record cut by a crash, without its
 * newline) is ignored and counted; so is any other line that is not a record.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { FlowgaugeError } from '../core/errors.js';
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

/** Longest line taken for a record; longer ones are counted bad without being parsed. */
const MAX_LINE = 64 * 1024;

/**
 * Reads one day file line by line (a file of any size: never one string of it), handing each
 * record to `onRecord`. A last line without its newline is a torn tail.
 */
async function readHistoryFile(path: string, onRecord: (r: ProbeRecord) => void): Promise<{ torn: boolean; badLines: number }> {
  const stream = createReadStream(path, { encoding: 'utf8' });
  let endsWithNewline = true;
  stream.on('data', (chunk) => {
    if (chunk.length > 0) endsWithNewline = (chunk as string).endsWith('\n');
  });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let badLines = 0;
  let last: string | undefined;
  for await (const line of lines) {
    if (last !== undefined) take(last);
    last = line;
  }
  // The last line counts only when the file ended with its newline; otherwise it is torn.
  if (last !== undefined && endsWithNewline) take(last);
  return { torn: last !== undefined && last !== '' && !endsWithNewline, badLines };

  function take(line: string): void {
    if (line === '') return;
    const r = line.length > MAX_LINE ? undefined : parseProbeRecord(line);
    if (r === undefined) badLines++;
    else onRecord(r);
  }
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
    let parsed: Awaited<ReturnType<typeof readHistoryFile>>;
    try {
      parsed = await readHistoryFile(f.path, (r) => {
        const t = recordTimeMs(r);
        if (t >= fromMs && t < toMs) records.push(r);
      });
    } catch (err) {
      // Retention may delete a file between listing and reading it.
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue;
      throw new FlowgaugeError('FG_HISTORY_UNREADABLE', `probe history ${f.path} cannot be read (${code ?? (err as Error).message})`);
    }
    if (parsed.torn) tornTails++;
    badLines += parsed.badLines;
  }
  // Files are in day order and lines in append order; a stable sort only fixes clock steps.
  records.sort((a, b) => recordTimeMs(a) - recordTimeMs(b));
  return { records, files: files.map((f) => f.name), tornTails, badLines };
}
