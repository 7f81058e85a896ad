/**
 * Did-you-mean for threshold keys: `run.latncy.p99` → `run.latency.p99`, `availabilty` →
 * `availability`. The nearest key of the grammar within a small edit distance, or nothing (a
 * wrong guess is worse than none). Pure.
 */
import { OPS } from '../core/ops.js';
import { PCT_STATS, RATELIMIT_METRICS, STREAM_METRICS } from './threshold-grammar.js';

/** Every key of the grammar but `checks.<name>` (names are the user's own). */
function allKeys(): string[] {
  const keys = ['availability', 'errors.rate', 'dropped', 'contract.violations', 'iterations.failed', 'checks'];
  for (const op of OPS) for (const s of PCT_STATS) keys.push(`${op}.latency.${s}`);
  for (const m of STREAM_METRICS) for (const s of PCT_STATS) keys.push(`stream.${m}.${s}`);
  for (const m of RATELIMIT_METRICS) keys.push(`ratelimit.${m}`);
  for (const s of PCT_STATS) keys.push(`iteration.duration.${s}`);
  return keys;
}

let cached: string[] | undefined;

function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0] as number;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j] as number;
      prev[j] = Math.min(up + 1, (prev[j - 1] as number) + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length] as number;
}

/** The grammar's key nearest to `key` (case ignored), when at most 2 edits away and unambiguous. */
export function suggestMetricKey(key: string): string | undefined {
  const typed = key.trim().toLowerCase();
  if (typed === '') return undefined;
  cached ??= allKeys();
  let best: string | undefined;
  let bestD = 3;
  let ties = 0;
  for (const k of cached) {
    const d = distance(typed, k.toLowerCase());
    if (d < bestD) [best, bestD, ties] = [k, d, 0];
    else if (d === bestD) ties++;
  }
  return ties === 0 ? best : undefined;
}
