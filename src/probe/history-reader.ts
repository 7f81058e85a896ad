/**
 * Reading the probe history back, in bounded memory whatever its size. `foldHistory` hands
 * each record of a range to a visitor as its line is read and keeps none: the SLO status and
 * a restarted probe fold what they need (aggregates, the tail of each series) as they go.
 * `readHistory` collects records, but only the latest `limit` of them.
 *
 * A torn last line (a record cut by a crash, without its newline) is ignored and counted; so
 * is any other line that is not a record, and a line too long to be one is skipped unread.
 */
import { createReadStream } from 'node:fs';
import { FlowgaugeError } from '../core/errors.js';
import { filesInRange, listHistoryFiles } from './history-files.js';
import { parseProbeLine, parseProbeRecord, recordTimeMs, type ProbeRecord } from './record.js';

/** A time range [fromMs, toMs) of record times; either end open when absent. */
export interface HistoryRange {
  readonly fromMs?: number;
  readonly toMs?: number;
}

/** What a fold of the history found besides the records. */
export interface HistoryScan {
  /** Files read. */
  readonly files: readonly string[];
  /** Files that ended in a torn record (ignored). */
  readonly tornTails: number;
  /** Complete lines that were not records (ignored). */
  readonly badLines: number;
  /** Records in the range, handed to the visitor. */
  readonly inRange: number;
}

/** What `readHistory` found. */
export interface HistoryRead {
  /** The latest records of the range (at most the limit), in time order. */
  readonly records: ProbeRecord[];
  /** Records of the range left out by the limit (the earliest). */
  readonly omitted: number;
  readonly files: readonly string[];
  readonly tornTails: number;
  readonly badLines: number;
}

/** Parses the text of one file (text already in memory: tests and small inputs). */
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

/** Longest line taken for a record (a record is under 1 kB); longer ones are skipped unread. */
export const MAX_HISTORY_LINE = 64 * 1024;

const NEWLINE = 0x0a;

/**
 * Reads one day file chunk by chunk, handing each line to `onLine`. Never builds a string of
 * more than one line, nor keeps more than `MAX_HISTORY_LINE` bytes of one: a file of any size
 * and a line of any length read in bounded memory. A last line without its newline is torn.
 */
async function readLines(path: string, onLine: (line: string | undefined) => void): Promise<{ torn: boolean }> {
  let partial: Buffer[] = [];
  let partialBytes = 0;
  // Inside a line already known to be too long: drop bytes until its newline.
  let skipping = false;
  const end = (piece: Buffer): void => {
    if (skipping || partialBytes + piece.length > MAX_HISTORY_LINE) onLine(undefined);
    else {
      const bytes = partial.length === 0 ? piece : Buffer.concat([...partial, piece]);
      let text = bytes.toString('utf8');
      if (text.endsWith('\r')) text = text.slice(0, -1);
      onLine(text);
    }
    partial = [];
    partialBytes = 0;
    skipping = false;
  };
  for await (const chunk of createReadStream(path, { highWaterMark: 256 * 1024 })) {
    const buf = chunk as Buffer;
    let start = 0;
    for (let nl = buf.indexOf(NEWLINE, start); nl !== -1; nl = buf.indexOf(NEWLINE, start)) {
      end(buf.subarray(start, nl));
      start = nl + 1;
    }
    if (start < buf.length && !skipping) {
      const rest = buf.subarray(start);
      if (partialBytes + rest.length > MAX_HISTORY_LINE) {
        partial = [];
        partialBytes = 0;
        skipping = true;
      } else {
        // A copy: the stream may reuse the chunk's memory.
        partial.push(Buffer.from(rest));
        partialBytes += rest.length;
      }
    }
  }
  return { torn: skipping || partialBytes > 0 };
}

/**
 * Hands every record of `dir` with a time in `range` to `visit` (with its time in ms), file by file (oldest day
 * first) in the order the lines were appended; holds none of them. A missing directory reads
 * as empty. Throws `FG_HISTORY_UNREADABLE` for a file that cannot be read.
 */
export async function foldHistory(dir: string, range: HistoryRange, visit: (r: ProbeRecord, timeMs: number) => void): Promise<HistoryScan> {
  const fromMs = range.fromMs ?? -Infinity;
  const toMs = range.toMs ?? Infinity;
  const files = filesInRange(await listHistoryFiles(dir), fromMs, toMs);
  let tornTails = 0;
  let badLines = 0;
  let inRange = 0;
  const onLine = (line: string | undefined): void => {
    if (line === '') return;
    const parsed = line === undefined ? undefined : parseProbeLine(line);
    if (parsed === undefined) {
      badLines++;
      return;
    }
    const t = parsed.timeMs;
    if (t < fromMs || t >= toMs) return;
    inRange++;
    visit(parsed.record, t);
  };
  for (const f of files) {
    let torn: boolean;
    try {
      ({ torn } = await readLines(f.path, onLine));
    } catch (err) {
      // Retention may delete a file between listing and reading it.
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue;
      throw new FlowgaugeError('FG_HISTORY_UNREADABLE', `probe history ${f.path} cannot be read (${code ?? (err as Error).message})`);
    }
    if (torn) tornTails++;
  }
  return { files: files.map((f) => f.name), tornTails, badLines, inRange };
}

/** Records `readHistory` returns by default. */
export const DEFAULT_READ_LIMIT = 10_000;

/**
 * The latest `limit` records of `dir` with a time in `range`, in time order; the earlier ones
 * are counted in `omitted`. For whole-history figures fold instead (`foldHistory`).
 */
export async function readHistory(dir: string, range: HistoryRange = {}, limit = DEFAULT_READ_LIMIT): Promise<HistoryRead> {
  // A ring of the latest records in append order.
  const ring: ProbeRecord[] = [];
  let next = 0;
  const scan = await foldHistory(dir, range, (r) => {
    if (ring.length < limit) ring.push(r);
    else if (limit > 0) {
      ring[next] = r;
      next = (next + 1) % limit;
    }
  });
  const records = [...ring.slice(next), ...ring.slice(0, next)];
  // Files are in day order and lines in append order; a stable sort only fixes clock steps.
  records.sort((a, b) => recordTimeMs(a) - recordTimeMs(b));
  return { records, omitted: scan.inRange - records.length, files: scan.files, tornTails: scan.tornTails, badLines: scan.badLines };
}
