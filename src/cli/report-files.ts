/**
 * Where reports go: `--out DIR`, or `reports/<scenario>-<timestamp>/` under the working
 * directory with `reports/latest` pointing at the newest. Writes are atomic (temp + rename)
 * so a reader never sees half a report.
 */
import { constants } from 'node:fs';
import { access, mkdir, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { UsageError } from './context.js';

/** Why a directory cannot be made or written, in words. */
function reasonOf(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  if (code === 'EEXIST' || code === 'ENOTDIR') return 'a file is in the way';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EROFS') return 'a read-only file system';
  if (code === 'ENOENT') return 'its parent does not take new directories';
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'no space left';
  return String(code ?? err);
}

/**
 * Makes `dir` and its missing parents, one level at a time, and checks it can be written.
 * Not \`mkdir(dir, { recursive: true })\`: on Node 20 that loops forever at 100 % CPU on a path
 * such as /proc/1/x (its parent exists but refuses new entries with ENOENT). Throws a
 * `UsageError` (exit 2) naming the directory, the reason and `shown` (what to do instead).
 */
export async function makeDirectory(dir: string, shown: string, what = 'reports'): Promise<void> {
  const missing: string[] = [];
  let at = dir;
  for (;;) {
    const info = await stat(at).catch((err: NodeJS.ErrnoException) => err);
    if (!(info instanceof Error)) {
      if (!info.isDirectory()) throw new UsageError(`cannot write ${what} to ${dir} (a file is in the way${at === dir ? '' : `: ${at}`}); ${shown}`);
      break;
    }
    // ENOTDIR: a file further up is in the way; the walk up finds it and says so.
    if (info.code !== 'ENOENT' && info.code !== 'ENOTDIR') throw new UsageError(`cannot write ${what} to ${dir} (${reasonOf(info)}: ${at}); ${shown}`);
    const parent = dirname(at);
    if (parent === at) break;
    missing.push(at);
    at = parent;
  }
  for (const d of missing.reverse()) {
    try {
      await mkdir(d);
    } catch (err) {
      if ((err as { code?: unknown }).code === 'EEXIST' && (await stat(d).catch(() => undefined))?.isDirectory() === true) continue;
      throw new UsageError(`cannot write ${what} to ${dir} (${reasonOf(err)}: ${d}); ${shown}`);
    }
  }
  try {
    await access(dir, constants.W_OK);
  } catch (err) {
    throw new UsageError(`cannot write ${what} to ${dir} (${reasonOf(err)}); ${shown}`);
  }
}

/** The directory a run's report goes to. */
export function reportDir(cwd: string, scenario: string, startedAtMs: number, out: string | undefined): string {
  if (out !== undefined) return resolve(cwd, out);
  const stamp = new Date(startedAtMs).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return resolve(cwd, 'reports', `${scenario}-${stamp}`);
}

/** Writes `files` (name → content) into `dir` atomically. */
export async function writeReportFiles(dir: string, files: Readonly<Record<string, string>>): Promise<string[]> {
  await makeDirectory(dir, 'give a writable directory with --out');
  const written: string[] = [];
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir, name);
    const tmp = `${path}.tmp-${process.pid}`;
    await writeFile(tmp, content);
    await rename(tmp, path);
    written.push(path);
  }
  return written;
}

/** Points `reports/latest` at `dir` when `dir` lies under `<cwd>/reports`. Best effort. */
export async function updateLatest(cwd: string, dir: string): Promise<void> {
  const reports = resolve(cwd, 'reports');
  const rel = relative(reports, dir);
  if (rel.startsWith('..') || rel === '') return;
  const link = join(reports, 'latest');
  const tmp = `${link}.tmp-${process.pid}`;
  try {
    await rm(tmp, { force: true });
    await symlink(rel, tmp);
    await rename(tmp, link);
  } catch {
    // A filesystem without symlinks still has the report itself; nothing is lost.
  }
}
