/**
 * Where reports go: `--out DIR`, or `reports/<scenario>-<timestamp>/` under the working
 * directory with `reports/latest` pointing at the newest. Writes are atomic (temp + rename)
 * so a reader never sees half a report.
 */
import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';

/** The directory a run's report goes to. */
export function reportDir(cwd: string, scenario: string, startedAtMs: number, out: string | undefined): string {
  if (out !== undefined) return resolve(cwd, out);
  const stamp = new Date(startedAtMs).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return resolve(cwd, 'reports', `${scenario}-${stamp}`);
}

/** Writes `files` (name → content) into `dir` atomically. */
export async function writeReportFiles(dir: string, files: Readonly<Record<string, string>>): Promise<string[]> {
  await mkdir(dir, { recursive: true });
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
