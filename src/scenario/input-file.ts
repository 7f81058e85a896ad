/**
 * Reading a file a user named (a scenario, a data file, a report, a token file) without letting
 * it hang or exhaust the process: `stat` first, so a FIFO, a device or a directory is refused
 * before it is opened (a FIFO would block the read until a writer comes, forever); the size is
 * checked before reading; and the file is opened non-blocking and checked again, so one swapped
 * in between is refused too.
 */
import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { ConfigError, FlowgaugeError } from '../core/errors.js';
import { sizeProblem } from '../core/input-limits.js';

/** What a path is, when it is not a regular file. */
function kindOf(s: { isDirectory(): boolean; isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean }): string {
  if (s.isDirectory()) return 'a directory';
  if (s.isFIFO()) return 'a FIFO (named pipe)';
  if (s.isCharacterDevice() || s.isBlockDevice()) return 'a device';
  if (s.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** Options of `readInputFile`. */
export interface InputFileOptions {
  /** What the file is, for messages: "scenario file", "report", "token file". */
  readonly what: string;
  /** Largest size read. */
  readonly maxBytes: number;
  /** How the path is shown in messages (default: the path). */
  readonly shownAs?: string;
}

function refuser(path: string, o: InputFileOptions): (message: string) => ConfigError {
  return (message) => new ConfigError([{ path: o.shownAs ?? path, message }], o.what);
}

/**
 * Checks, without opening it, that `path` is a regular file of at most `maxBytes` (for readers
 * that stream the file themselves); throws as `readInputFile` does. Returns its size.
 */
export async function checkInputFile(path: string, o: InputFileOptions): Promise<number> {
  const refuse = refuser(path, o);
  const info = await stat(path).catch((err: NodeJS.ErrnoException) => err);
  if (info instanceof Error) {
    if (info.code === 'ENOENT' || info.code === 'ENOTDIR') throw new FlowgaugeError('FG_FILE_NOT_FOUND', `${o.what} not found: ${o.shownAs ?? path}`);
    throw refuse(`cannot be read (${info.code ?? info.message})`);
  }
  // A directory keeps the code of a path that names no file (callers branch on it).
  if (info.isDirectory()) throw new FlowgaugeError('FG_FILE_NOT_FOUND', `${o.what} ${o.shownAs ?? path} is a directory; give a regular file`);
  if (!info.isFile()) throw refuse(`is ${kindOf(info)}; give a regular file`);
  const tooBig = sizeProblem(o.what, info.size, o.maxBytes);
  if (tooBig !== undefined) throw refuse(tooBig);
  return info.size;
}

/**
 * Reads a regular file of at most `maxBytes` as UTF-8. Throws `FlowgaugeError`
 * `FG_FILE_NOT_FOUND` for a missing path and `ConfigError` (both exit 2) for a directory, FIFO,
 * device or socket, a file over the limit, or one that cannot be read, naming the path.
 */
export async function readInputFile(path: string, o: InputFileOptions): Promise<string> {
  await checkInputFile(path, o);
  const refuse = refuser(path, o);
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch((err: NodeJS.ErrnoException) => err);
  if (handle instanceof Error) throw refuse(`cannot be read (${handle.code ?? handle.message})`);
  try {
    const again = await handle.stat();
    if (!again.isFile()) throw refuse(`is ${kindOf(again)}; give a regular file`);
    // One byte more than the limit tells a file that grew past it since the stat.
    let buf = Buffer.allocUnsafe(Math.min(again.size, o.maxBytes) + 1);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buf, filled, buf.length - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled > o.maxBytes) throw refuse(sizeProblem(o.what, filled, o.maxBytes) as string);
      if (filled === buf.length) {
        const grown = Buffer.allocUnsafe(Math.min(buf.length * 2, o.maxBytes + 1));
        buf.copy(grown, 0, 0, filled);
        buf = grown;
      }
    }
    return buf.toString('utf8', 0, filled);
  } finally {
    await handle.close();
  }
}
