/**
 * The peak resident memory of a child process, from the kernel's high-water mark (`VmHWM` in
 * `/proc/<pid>/status`), polled while it runs: the mark only grows, so the last reading before
 * the exit is the peak up to one poll. Linux only; elsewhere it reads as undefined.
 */
import { readFileSync } from 'node:fs';

/** Reads `VmHWM` of `pid` in MB; undefined when the process is gone or there is no /proc. */
export function readPeakRssMb(pid: number): number | undefined {
  try {
    const m = /^VmHWM:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m?.[1] === undefined ? undefined : Number(m[1]) / 1024;
  } catch {
    return undefined;
  }
}

/** A poller of one process's peak RSS. */
export interface PeakRssWatch {
  /** The highest reading so far (MB); undefined if none succeeded. */
  peakMb(): number | undefined;
  stop(): void;
}

/** Polls the peak RSS of `pid` every `everyMs` until stopped (or the process is gone). */
export function watchPeakRss(pid: number, everyMs = 20): PeakRssWatch {
  let peak: number | undefined;
  const read = (): void => {
    const v = readPeakRssMb(pid);
    if (v !== undefined && (peak === undefined || v > peak)) peak = v;
  };
  read();
  const timer = setInterval(read, everyMs);
  return {
    peakMb: () => peak,
    stop: () => clearInterval(timer),
  };
}
