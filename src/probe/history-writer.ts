/**
 * The durable, append-only probe history. Each record is one JSON line written with a single
 * `write` to a file opened with `O_APPEND`, then `fdatasync`ed; only then does `append`
 * resolve, so a record the caller saw acknowledged survives a crash or power loss.
 *
 * A crash can leave at most the record being written torn (a tail without its newline).
 * Readers ignore such a tail; a writer opening the file first cuts it off, so its own first
 * record starts on a fresh line. One writer per directory is assumed (one probe daemon).
 */
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { historyFileName, pruneHistory, utcDay } from './history-files.js';
import type { ProbeRecord } from './record.js';

/** Options of `openHistoryWriter`. */
export interface HistoryWriterOptions {
  readonly dir: string;
  /** Files whose day ended longer ago than this are deleted at each rotation; absent keeps all. */
  readonly retentionMs?: number;
}

/** Outcome of one append; a failed append is reported, never thrown. */
export type AppendResult = { readonly ok: true } | { readonly ok: false; readonly error: string };

/** Appends records to the day files of a directory. */
export interface HistoryWriter {
  readonly dir: string;
  /** Appends one record to its day's file; resolves once it is on disk. Appends run in call order. */
  append(record: ProbeRecord): Promise<AppendResult>;
  /** Waits for pending appends and closes the file. */
  close(): Promise<void>;
}

const NEWLINE = 0x0a;
const TAIL_CHUNK = 64 * 1024;

/**
 * Cuts a torn tail (bytes after the last newline) off an open file; returns the new size.
 * Reads backwards in chunks, so a huge file costs one chunk read in the usual case.
 */
export async function repairTail(fh: FileHandle): Promise<number> {
  const { size } = await fh.stat();
  if (size === 0) return 0;
  let end = size;
  const buf = Buffer.alloc(TAIL_CHUNK);
  while (end > 0) {
    const start = Math.max(0, end - TAIL_CHUNK);
    const { bytesRead } = await fh.read(buf, 0, end - start, start);
    const i = buf.subarray(0, bytesRead).lastIndexOf(NEWLINE);
    if (i >= 0) {
      const keep = start + i + 1;
      if (keep < size) {
        await fh.truncate(keep);
        await fh.datasync();
      }
      return keep;
    }
    end = start;
  }
  // No newline at all: the whole file is one torn record.
  await fh.truncate(0);
  await fh.datasync();
  return 0;
}

async function syncDir(dir: string): Promise<void> {
  // Makes a newly created file's directory entry durable; not every platform allows it.
  try {
    const d = await open(dir, 'r');
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    // Best effort.
  }
}

function errorText(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  return typeof e.code === 'string' ? e.code : typeof e.message === 'string' ? e.message : 'write failed';
}

/** Opens a writer on `dir` (created when missing). Nothing is opened until the first append. */
export async function openHistoryWriter(options: HistoryWriterOptions): Promise<HistoryWriter> {
  const { dir, retentionMs } = options;
  await mkdir(dir, { recursive: true });
  let day: string | undefined;
  let fh: FileHandle | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;

  const rotate = async (nextDay: string, nowMs: number): Promise<FileHandle> => {
    if (fh !== undefined) await fh.close();
    fh = undefined;
    const path = join(dir, historyFileName(nextDay));
    // 'a+' is O_APPEND | O_CREAT | O_RDWR: appends always land at the end, and the tail can be read.
    const handle = await open(path, 'a+');
    const size = await repairTail(handle);
    if (size === 0) await syncDir(dir);
    fh = handle;
    day = nextDay;
    if (retentionMs !== undefined) await pruneHistory(dir, retentionMs, nowMs);
    return handle;
  };

  const write = async (record: ProbeRecord): Promise<AppendResult> => {
    if (closed) return { ok: false, error: 'history writer closed' };
    try {
      const nowMs = Date.parse(record.time);
      const recordDay = utcDay(nowMs);
      const handle = recordDay === day && fh !== undefined ? fh : await rotate(recordDay, nowMs);
      const line = Buffer.from(`${JSON.stringify(record)}\n`, 'utf8');
      const { bytesWritten } = await handle.write(line, 0, line.length);
      if (bytesWritten !== line.length) {
        // A short write (disk full) leaves a torn tail; cut it so the next record starts clean.
        await repairTail(handle);
        return { ok: false, error: `short write (${bytesWritten} of ${line.length} bytes)` };
      }
      await handle.datasync();
      return { ok: true };
    } catch (err) {
      return { ok: false, error: errorText(err) };
    }
  };

  return {
    dir,
    append(record) {
      const p = queue.then(() => write(record));
      queue = p;
      return p;
    },
    async close() {
      await queue;
      closed = true;
      if (fh !== undefined) await fh.close();
      fh = undefined;
    },
  };
}
