/**
 * When the generator itself lagged (`EVENT_LOOP_LAG`: its event loop was blocked), every
 * duration it measured includes that delay: a latency threshold's verdict says so, with the
 * lag, in report.json (`thresholds[].clientLagMs`) and on every verdict line that shows it.
 */
import { formatMs } from '../core/units.js';
import type { ParsedThreshold, ThresholdResult } from '../slo/thresholds.js';
import type { RunWarning } from './sections/warnings-schema.js';

/** The warning whose figures it reads. */
const LAG_CODE = 'EVENT_LOOP_LAG';

/** A report written before the warning carried its figures says them in its message. */
const P99_IN_MESSAGE = /delay p99 (\d+(?:\.\d+)?) ms/;

/** The generator's event-loop delay p99 in ms, the worst of the EVENT_LOOP_LAG warnings; undefined when there is none. */
export function clientLagMsOf(warnings: readonly RunWarning[] | undefined): number | undefined {
  let worst: number | undefined;
  for (const w of warnings ?? []) {
    if (w.code !== LAG_CODE) continue;
    const p99 = w.eventLoopDelayMs?.p99 ?? Number(P99_IN_MESSAGE.exec(w.message)?.[1] ?? Number.NaN);
    if (Number.isFinite(p99)) worst = Math.max(worst ?? 0, p99);
  }
  return worst;
}

/**
 * `results` (one per threshold of `parsed`, in order; any beyond are kept as they are) with
 * `clientLagMs` on each observed duration the client measured (a threshold in ms), when the
 * generator lagged.
 */
export function withClientLag(results: readonly ThresholdResult[], parsed: readonly ParsedThreshold[], warnings: readonly RunWarning[] | undefined): ThresholdResult[] {
  const lagMs = clientLagMsOf(warnings);
  if (lagMs === undefined) return [...results];
  return results.map((r, i) => (parsed[i]?.unit === 'ms' && r.observed !== null ? { ...r, clientLagMs: lagMs } : r));
}

/** What a verdict line adds to a threshold's observed figure: nothing, or that it includes the client's lag. */
export function clientLagNote(t: Pick<ThresholdResult, 'clientLagMs'>): string {
  return t.clientLagMs === undefined ? '' : ` (includes client lag: event-loop delay p99 ${formatMs(t.clientLagMs)})`;
}
