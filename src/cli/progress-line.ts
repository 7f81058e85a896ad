/**
 * The live progress line of `flowgauge run`: redrawn in place on a terminal, printed as a
 * plain line every few seconds otherwise (CI logs).
 */
import { formatMs } from '../core/units.js';
import type { RunProgress } from '../run/index.js';

/** One line of live figures. */
export function formatProgress(p: RunProgress): string {
  const pct = p.totalS > 0 ? Math.min(100, (100 * p.elapsedS) / p.totalS) : 0;
  return [
    `${p.elapsedS.toFixed(0).padStart(4)}s/${p.totalS.toFixed(0)}s ${pct.toFixed(0).padStart(3)}%`,
    `rate ${p.ratePerS.toFixed(1)}/s`,
    `in flight ${p.inFlight}`,
    `p50 ${formatMs(p.p50Ms)}`,
    `p99 ${formatMs(p.p99Ms)}`,
    `errors ${p.errors}`,
    `429s ${p.responses429}`,
    `dropped ${p.dropped}`,
    // Journeys: a start is an iteration of several requests, so say how they end.
    ...(p.iterations !== undefined ? [`iterations ${p.iterations.ended} (${p.iterations.failed} failed)`] : []),
  ].join('  ');
}
