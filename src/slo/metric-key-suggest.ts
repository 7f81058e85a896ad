/**
 * Did-you-mean for threshold keys: `run.latncy.p99` → `run.latency.p99`, `availabilty` →
 * `availability`, `http:auth.latncy.p95` → `http:auth.latency.p95`, and `auth.latency.p95` (a
 * journey's own request written without its prefix) → `http:auth.latency.p95`. The nearest key
 * within 2 edits that the caller accepts, or nothing (a wrong guess is worse than none). The
 * grammar's keys are indexed by length and compared with a banded edit distance, so 100,000
 * typed keys take well under a second, not minutes. Pure.
 */
import { editDistanceWithin } from '../core/edit-distance.js';
import { HTTP_OP_NAME, OPS } from '../core/ops.js';
import { STREAM_TIMING_NAMES, streamTimingKey } from '../core/stream-timings.js';
import { OP_COUNTERS, PCT_STATS, RATELIMIT_METRICS, isOpKey, parseMetricKey, type MetricKey } from './threshold-grammar.js';

/** Most edits between a typed key and the one offered. */
const MAX_EDITS = 2;

/** What follows a row of `ops` in a key: `latency.<stat>`, `count`, `errors`, `errors.rate`. */
const OP_SUFFIXES: readonly string[] = [...PCT_STATS.map((s) => `latency.${s}`), ...Object.values(OP_COUNTERS)];

/** Every key of the grammar but `checks.<name>` and `http:<name>…` (names are the user's own). */
function allKeys(): string[] {
  const keys = ['availability', 'errors.rate', 'dropped', 'contract.violations', 'iterations.failed', 'checks'];
  for (const op of OPS) for (const s of OP_SUFFIXES) keys.push(`${op}.${s}`);
  for (const m of STREAM_TIMING_NAMES) for (const s of PCT_STATS) keys.push(`${streamTimingKey(m)}.${s}`);
  for (const m of RATELIMIT_METRICS) keys.push(`ratelimit.${m}`);
  for (const s of PCT_STATS) keys.push(`ratelimit.latency.${s}`);
  for (const s of PCT_STATS) keys.push(`iteration.duration.${s}`);
  return keys;
}

interface Candidate {
  readonly key: string;
  readonly lower: string;
  readonly metric: MetricKey;
}

let byLength: Map<number, Candidate[]> | undefined;
/** First words of the grammar's own keys (`availability`, `ratelimit`, …): never taken for an `http:` name. */
let grammarWords: ReadonlySet<string> | undefined;

/** The grammar's keys by length: a key more than 2 characters longer or shorter is more than 2 edits away. */
function index(): Map<number, Candidate[]> {
  const out = new Map<number, Candidate[]>();
  for (const key of allKeys()) {
    const metric = parseMetricKey(key);
    if (metric === undefined) continue;
    const list = out.get(key.length) ?? [];
    list.push({ key, lower: key.toLowerCase(), metric });
    out.set(key.length, list);
  }
  return out;
}

/** The nearest of the offered keys; undefined when none is near or two are equally near. */
function createNearest(): { offer(key: string, d: number): void; best(): string | undefined } {
  let best: string | undefined;
  let bestD = MAX_EDITS + 1;
  let tied = false;
  return {
    offer(key, d) {
      if (d < bestD) [best, bestD, tied] = [key, d, false];
      else if (d === bestD && key !== best) tied = true;
    },
    best: () => (tied ? undefined : best),
  };
}

/**
 * Keys of an `http:<name>` row near `typed`, with their distance: the name is kept as written and
 * only the rest is corrected; `http.` for `http:` is one edit, and a name written without the
 * prefix (`auth.latency.p95`, the name not an operation) is offered it as one edit.
 */
function httpCandidates(typed: string): { key: string; d: number }[] {
  const lower = typed.toLowerCase();
  const out: { key: string; d: number }[] = [];
  let body: string;
  let base: number;
  if (lower.startsWith('http:')) [body, base] = [typed.slice(5), 0];
  else if (lower.startsWith('http.')) [body, base] = [typed.slice(5), 1];
  else {
    grammarWords ??= new Set(allKeys().map((k) => (k.split('.')[0] as string).toLowerCase()));
    for (const suffix of OP_SUFFIXES) {
      const name = typed.endsWith(`.${suffix}`) ? typed.slice(0, -suffix.length - 1) : '';
      if (HTTP_OP_NAME.test(name) && !isOpKey(name) && !grammarWords.has((name.split('.')[0] as string).toLowerCase())) out.push({ key: `http:${name}.${suffix}`, d: 1 });
    }
    return out;
  }
  // The name may hold dots: try each dot as the end of the name.
  for (let dot = body.indexOf('.'); dot > 0; dot = body.indexOf('.', dot + 1)) {
    const name = body.slice(0, dot);
    if (!HTTP_OP_NAME.test(name)) break;
    const tail = body.slice(dot + 1).toLowerCase();
    for (const suffix of OP_SUFFIXES) {
      const d = editDistanceWithin(tail, suffix.toLowerCase(), MAX_EDITS - base);
      if (d + base <= MAX_EDITS) out.push({ key: `http:${name}.${suffix}`, d: d + base });
    }
  }
  return out;
}

/**
 * The key of the grammar nearest to `key` (case ignored) that `accepts` takes, when at most 2
 * edits away and unambiguous. `accepts` sees the parsed candidate: a mix offers only what it sends.
 */
export function suggestMetricKey(key: string, accepts: (metric: MetricKey) => boolean = () => true): string | undefined {
  const typed = key.trim();
  if (typed === '') return undefined;
  const lower = typed.toLowerCase();
  byLength ??= index();
  const nearest = createNearest();
  for (let len = lower.length - MAX_EDITS; len <= lower.length + MAX_EDITS; len++) {
    for (const c of byLength.get(len) ?? []) {
      if (!accepts(c.metric)) continue;
      const d = editDistanceWithin(lower, c.lower, MAX_EDITS);
      if (d <= MAX_EDITS) nearest.offer(c.key, d);
    }
  }
  for (const c of httpCandidates(typed)) {
    const metric = parseMetricKey(c.key);
    if (metric !== undefined && c.key !== typed && accepts(metric)) nearest.offer(c.key, c.d);
  }
  return nearest.best();
}
