/**
 * Waiting for a hostile-suite CLI child within a bound: killed with SIGKILL past `boundMs` (the
 * test then fails on the signal), its peak RSS watched, its wall time measured from `startedMs`.
 */
import type { CliProcess } from '../reliability/cli-process.js';
import { watchPeakRss } from '../reliability/peak-rss.js';

/** How a bounded child ended. */
export interface BoundedExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly seconds: number;
  /** Peak RSS in MB, undefined where /proc cannot be read. */
  readonly peakMb: number | undefined;
}

/** Waits for `cli` to exit, killing it past `boundMs`. */
export async function waitBounded(cli: CliProcess, boundMs: number, startedMs: number): Promise<BoundedExit> {
  const rss = watchPeakRss(cli.child.pid as number);
  const hang = setTimeout(() => cli.child.kill('SIGKILL'), boundMs);
  const { code, signal } = await cli.exited;
  clearTimeout(hang);
  rss.stop();
  return { code, signal, seconds: (performance.now() - startedMs) / 1000, peakMb: rss.peakMb() };
}
