/**
 * Writing what a command produces so that a write that fails says so: a full disk, a read-only
 * file system or a path that cannot be written ends the command with exit 2, naming the path and
 * the system's reason, and leaves no temp file behind; a set of files is replaced whole or not at
 * all (every temp file is written before any is renamed over its file), so a reader never finds
 * a new report.json beside an old report.html.
 */
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FlowgaugeError } from '../core/errors.js';

/** The system's codes of a failed write, in words. */
const WORDS: Readonly<Record<string, string>> = {
  EEXIST: 'a file is in the way',
  ENOTDIR: 'a file is in the way',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'a read-only file system',
  ENOENT: 'its parent does not take new directories',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large',
  EIO: 'an input/output error',
};

/** Why a path cannot be made or written, in words (`no space left on device`), else the system's code. */
export function reasonWords(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string') return err instanceof Error ? err.message : String(err);
  return WORDS[code] ?? code;
}

/** Why a path cannot be written, in words with the system's code: `no space left on device (ENOSPC)`. */
export function osReason(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && WORDS[code] !== undefined ? `${WORDS[code]} (${code})` : reasonWords(err);
}

/** A write that failed: exit 2 (bad input: the path given cannot take the output), the path and the reason in the message. */
export function outputFailed(path: string, err: unknown): FlowgaugeError {
  return new FlowgaugeError('FG_OUTPUT_FAILED', `could not write ${path}: ${osReason(err)}`, { cause: err });
}

/** The temp file a file is written to before it is renamed over it. */
export function tempPathOf(path: string): string {
  return `${path}.tmp-${process.pid}`;
}

/**
 * Writes `files` (name → content) into the existing directory `dir`: every one to its temp file
 * first, then each renamed over its file. Resolves to the paths written; rejects with
 * `FG_OUTPUT_FAILED` (the path, the reason) once every temp file is removed.
 */
export async function writeFilesAtomically(dir: string, files: Readonly<Record<string, string>>): Promise<string[]> {
  const paths = Object.keys(files).map((name) => join(dir, name));
  const temps: string[] = [];
  let at = dir;
  try {
    for (const [name, content] of Object.entries(files)) {
      at = join(dir, name);
      const tmp = tempPathOf(at);
      temps.push(tmp);
      await writeFile(tmp, content);
    }
    for (const path of paths) {
      at = path;
      await rename(tempPathOf(path), path);
    }
    return paths;
  } catch (err) {
    await Promise.all(temps.map((t) => rm(t, { force: true }).catch(() => undefined)));
    throw outputFailed(at, err);
  }
}
