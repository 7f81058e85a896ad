/**
 * A small file system for the full-disk and read-only tests: a tmpfs of a few hundred KiB
 * mounted on a temp directory (root only), filled to its last pages on demand. Where mounting is
 * not permitted the tests skip, saying so; under CI=true (which runs as root) they fail instead.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Why a tmpfs cannot be mounted here, or undefined when it can (tried once, at import). */
export const cannotMount: string | undefined = (() => {
  const probe = mkdtempSync(join(tmpdir(), 'fg-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'pipe' });
    execFileSync('umount', [probe], { stdio: 'pipe' });
    return undefined;
  } catch (err) {
    return `cannot mount a tmpfs (${String((err as { stderr?: unknown }).stderr ?? err).trim() || 'not permitted'}): run as root to test full and read-only disks`;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
})();

if (cannotMount !== undefined) {
  if (process.env.CI === 'true') throw new Error(`CI runs as root and must test full disks: ${cannotMount}`);
  process.stderr.write(`\n[skipped loudly] ${cannotMount}\n\n`);
}

/** A mounted tmpfs. */
export interface SmallDisk {
  readonly dir: string;
  /** Fills it to all but `pagesLeft` pages of 4 KiB (default 1) with a file of its own. */
  fill(pagesLeft?: number): void;
  /** Remounts it read-only (or writable again). */
  readOnly(on: boolean): Promise<void>;
  unmount(): void;
}

/** Mounts a tmpfs of `sizeKib` on a fresh temp directory. */
export function mountSmallDisk(sizeKib = 256): SmallDisk {
  const dir = mkdtempSync(join(tmpdir(), 'fg-small-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKib}k`, 'tmpfs', dir], { stdio: 'pipe' });
  return {
    dir,
    fill(pagesLeft = 1) {
      const filler = join(dir, '.filler');
      const fd = openSync(filler, 'w');
      const chunk = Buffer.alloc(4096, 0x61);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      }
      ftruncateSync(fd, Math.max(0, statSync(filler).size - pagesLeft * 4096));
      closeSync(fd);
    },
    async readOnly(on) {
      // A file open for writing makes the kernel refuse ("busy"): the command closes its files
      // soon. The wait between tries yields, never blocks: a command running in this very thread
      // (main() in-process) can only close its file while this thread is free. Blocking here held
      // its file open through every try, and the remount failed ("busy") once in a CI run.
      for (let attempt = 0; ; attempt++) {
        try {
          execFileSync('mount', ['-o', `remount,${on ? 'ro' : 'rw'}`, dir], { stdio: 'pipe' });
          return;
        } catch (err) {
          if (attempt >= 50 || !/busy/.test(String((err as { stderr?: unknown }).stderr))) throw err;
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    },
    unmount() {
      try {
        execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
