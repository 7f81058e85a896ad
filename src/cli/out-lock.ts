/**
 * One command per output directory: two runs given the same `--out` would replace each other's
 * report (a mixed report.json/report.html set is possible), both exiting 0. The first takes a
 * lock, a file created exclusively in the directory that names its process; the second is
 * refused at its start (exit 2, naming the first), never at its end. A lock whose process is
 * gone (killed with SIGKILL, by the OOM killer) is taken over: the pid is checked, and on Linux
 * its start time too, so a pid reused by another process does not hold it.
 *
 * Locks are released when the command ends (`releaseOutLocks`, from `main`) and, failing that,
 * when the process exits.
 */
import { readFileSync, unlinkSync } from 'node:fs';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from './context.js';

/** The lock's name in the directory it guards. */
export const LOCK_FILE = '.flowgauge.lock';

/** What a lock says of its owner. */
interface Owner {
  readonly pid: number;
  /** The process's start time in clock ticks since boot (/proc/<pid>/stat), where known. */
  readonly started: string | undefined;
  readonly command: string;
}

/** Locks this process holds: path → the text it wrote. */
const held = new Map<string, string>();

/** Field 22 of /proc/<pid>/stat: when the process started, which a reused pid does not share. */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from its closing one.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function parseOwner(text: string): Owner | undefined {
  try {
    const o = JSON.parse(text) as Partial<Owner>;
    return typeof o.pid === 'number' && Number.isInteger(o.pid) && o.pid > 0 ? { pid: o.pid, started: typeof o.started === 'string' ? o.started : undefined, command: String(o.command ?? '') } : undefined;
  } catch {
    return undefined;
  }
}

/** True while the lock's owner runs (another user's process too: EPERM means it exists). */
function alive(owner: Owner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const now = startTimeOf(owner.pid);
  return owner.started === undefined || now === undefined || now === owner.started;
}

function releaseAtExit(): void {
  for (const [path, mine] of held) {
    try {
      if (readFileSync(path, 'utf8') === mine) unlinkSync(path);
    } catch {
      // Gone already: nothing to release.
    }
  }
  held.clear();
}

/**
 * Takes the lock of `dir` (an existing directory) for this process, or throws a `UsageError`
 * (exit 2) naming the process that holds it and `flag`.
 */
export async function lockOutDir(dir: string, flag = '--out', command = 'run'): Promise<void> {
  const path = join(dir, LOCK_FILE);
  if (held.has(path)) throw new UsageError(`${flag} ${dir} is in use by another command of this process; give each its own ${flag}`);
  const mine = `${JSON.stringify({ pid: process.pid, started: startTimeOf(process.pid), command } satisfies Owner)}\n`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fh = await open(path, 'wx');
      try {
        await fh.writeFile(mine);
      } finally {
        await fh.close();
      }
      if (held.size === 0) process.once('exit', releaseAtExit);
      held.set(path, mine);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new UsageError(`cannot lock ${flag} ${dir} (${(err as NodeJS.ErrnoException).code ?? String(err)}); give a writable directory with ${flag}`);
    }
    const text = await readFile(path, 'utf8').catch(() => '');
    const owner = parseOwner(text);
    if (owner !== undefined && alive(owner)) {
      throw new UsageError(
        `${flag} ${dir} is in use by another flowgauge ${owner.command} (pid ${owner.pid}${owner.pid === process.pid ? ', this process' : ''}): two commands would replace each other's files; give this one another ${flag}, or wait for it to end`,
      );
    }
    // Stale (its process is gone) or unreadable (half written by a process killed at once):
    // moved aside first, so of two commands taking it over only the one that moved it goes on.
    const aside = `${path}.stale-${process.pid}`;
    try {
      await rename(path, aside);
    } catch {
      continue;
    }
    const moved = await readFile(aside, 'utf8').catch(() => '');
    if (moved !== text) {
      // Another command took it over between the read and the move: its lock goes back.
      await rename(aside, path).catch(() => undefined);
      continue;
    }
    await unlink(aside).catch(() => undefined);
  }
  throw new UsageError(`${flag} ${dir}: could not take its lock (${LOCK_FILE}) after three tries; another command is starting there`);
}

/** Releases every lock this process took (the command is over). */
export async function releaseOutLocks(): Promise<void> {
  for (const [path, mine] of held) {
    // Only a lock still ours is removed: never one another command took over.
    if ((await readFile(path, 'utf8').catch(() => '')) === mine) await unlink(path).catch(() => undefined);
  }
  held.clear();
  process.off('exit', releaseAtExit);
}
