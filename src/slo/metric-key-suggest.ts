/**
 * Did-you-mean for threshold keys: `run.latncy.p99` → `run.latency.p99`, `availabilty` →
 * `availability`. The nearest key of the grammar within a small edit distance, or nothing (a
 * wrong guess is worse than none). Pure.
 */
import { editDistance } from '../core/edit-distance.js';
import { OPS } from '../core/ops.js';
import { STREAM_TIMING_NAMES, streamTimingKey } from '../core/stream-timings.js';
import { PCT_STATS, RATELIMIT_METRICS } from './threshold-grammar.js';

/** Every key of the grammar but `checks.<name>` (names are the user's own). */
function allKeys(): string[] {
  const keys = ['availability', 'errors.rate', 'dropped', 'contract.violations', 'iterations.failed', 'checks'];
  for (const op of OPS) for (const s of PCT_STATS) keys.push(`${op}.latency.${s}`);
  for (const m of STREAM_TIMING_NAMES) for (const s of PCT_STATS) keys.push(`${streamTimingKey(m)}.${s}`);
  for (const m of RATELIMIT_METRICS) keys.push(`ratelimit.${m}`);
  for (const s of PCT_STATS) keys.push(`ratelimit.latency.${s}`);
  for (const s of PCT_STATS) keys.push(`iteration.duration.${s}`);
  return keys;
}

let cached: string[] | undefined;

/** The grammar's key nearest to `key` (case ignored), when at most 2 edits away and unambiguous. */
export function suggestMetricKey(key: string): string | undefined {
  const typed = key.trim().toLowerCase();
  if (typed === '') return undefined;
  cached ??= allKeys();
  let best: string | undefined;
  let bestD = 3;
  let ties = 0;
  for (const k of cached) {
    const d = editDistance(typed, k.toLowerCase());
    if (d < bestD) [best, bestD, ties] = [k, d, 0];
    else if (d === bestD) ties++;
  }
  return ties === 0 ? best : undefined;
}
