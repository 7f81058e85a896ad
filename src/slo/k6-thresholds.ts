/**
 * k6's thresholds read for what they mean, and answered with the exact flowgauge thresholds to
 * write: `http_req_duration: ["p(95)<500"]` → `{ "listFlows.latency.p95": "<500" }`. flowgauge
 * keeps one grammar (statistic in the key, one expression per key), so a k6 form is refused with
 * text that validates when pasted, never guessed into something else. Pure.
 */
import { OPS, type OpName } from '../core/ops.js';
import { parseMetricKey, PCT_STATS, type PctStat } from './threshold-grammar.js';

/** What a k6 metric becomes: a key per statistic, or one key judged on a rate or a count. */
type K6Metric =
  | { readonly kind: 'stat'; readonly keys: (stat: PctStat, rows: readonly string[] | undefined) => string[]; readonly note?: string }
  | { readonly kind: 'rate' | 'count'; readonly key: string; readonly note?: string };

const opList = OPS.join('|');

/** k6's built-in metrics that flowgauge measures, by their k6 name. */
const K6_METRICS: Readonly<Record<string, K6Metric>> = {
  http_req_duration: {
    kind: 'stat',
    keys: (stat, rows) => (rows === undefined || rows.length === 0 ? [`<op>.latency.${stat}`] : rows.map((row) => `${row}.latency.${stat}`)),
    note: 'flowgauge judges latency per operation, one key for each operation sent',
  },
  iteration_duration: { kind: 'stat', keys: (stat) => [`iteration.duration.${stat}`] },
  http_req_failed: { kind: 'rate', key: 'errors.rate', note: 'the share of requests that failed' },
  checks: { kind: 'rate', key: 'checks', note: 'the share of checks that passed' },
  dropped_iterations: { kind: 'count', key: 'dropped', note: 'starts dropped at maxInFlight' },
};

/** k6 metrics with no flowgauge figure, and what comes closest. */
const K6_ELSEWHERE: Readonly<Record<string, string>> = {
  http_reqs: 'flowgauge has no threshold on the request count or rate of the whole run: the load is set by the scenario (load.rate); <op>.count counts one operation',
  iterations: 'flowgauge has no threshold on the iteration count; iterations.failed counts the failed ones',
  vus: 'flowgauge has no threshold on workers: the concurrency is set by the scenario',
  vus_max: 'flowgauge has no threshold on workers: the concurrency is set by the scenario',
  group_duration: 'flowgauge has no threshold on a step\'s duration; report.json times each step (steps.<name>)',
  http_req_waiting: 'flowgauge keeps time to first byte for streams: stream.ttfb.<stat>',
  http_req_blocked: 'flowgauge reports request phases in report.json; thresholds take <op>.latency.<stat>',
  http_req_connecting: 'flowgauge reports request phases in report.json; thresholds take <op>.latency.<stat>',
  http_req_sending: 'flowgauge reports request phases in report.json; thresholds take <op>.latency.<stat>',
  http_req_receiving: 'flowgauge reports request phases in report.json; thresholds take <op>.latency.<stat>',
  http_req_tls_handshaking: 'flowgauge reports request phases in report.json; thresholds take <op>.latency.<stat>',
};

/** k6's aggregations: `p(95)`, `avg`, `med`, `min`, `max`, `rate`, `count`, and the comparison after. */
const K6_EXPR = /^\s*(p\(\s*(\d+(?:\.\d+)?)\s*\)|avg|med|min|max|rate|count|value)\s*(===|==|!=|<=|>=|<|>)\s*(.*?)\s*$/;

/** k6's percentile as flowgauge's statistic (`95` → `p95`, `99.9` → `p999`), or undefined. */
function percentileStat(n: string): PctStat | undefined {
  const stat = `p${n.replace('.', '')}`;
  return (PCT_STATS as readonly string[]).includes(stat) && stat !== 'p' ? (stat as PctStat) : undefined;
}

/** One k6 expression read: the statistic it aggregates by and the comparison, or why not. */
function readK6Expr(expr: string): { agg: string; stat: PctStat | undefined; comparison: string } | string | undefined {
  const m = K6_EXPR.exec(expr);
  if (m === null) return undefined;
  const [, agg = '', pct, op = '', value = ''] = m;
  const comparison = `${op === '===' ? '==' : op}${value}`;
  if (pct !== undefined) {
    const stat = percentileStat(pct);
    return stat === undefined ? `flowgauge keeps the percentiles p(50), p(90), p(95), p(99) and p(99.9), not p(${pct})` : { agg: 'p', stat, comparison };
  }
  const named: Readonly<Record<string, PctStat>> = { avg: 'mean', med: 'p50', max: 'max', count: 'count' };
  return { agg, stat: named[agg], comparison };
}

/** A JSON-ish object of thresholds, valid in YAML, JSON and TypeScript alike. */
function objectText(entries: readonly (readonly [string, Threshold])[]): string {
  return `{ ${entries.map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(', ')} }`;
}

/** A k6 `name` tag as the name of a `vu.http` row (`http:<name>`): letters, digits, `.`, `_`, `-`, at most 64. */
export function httpRowName(tag: string): string {
  const name = tag.replace(/^https?:\/\//, '').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/-{2,}/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 64);
  return name === '' ? 'request' : name;
}

/** What is known of the traffic k6 thresholds judged, to name its rows. */
export interface K6ThresholdTarget {
  /** Rows of `ops` the traffic sends (`run`, `http:login`), when known; `<op>` is written otherwise. */
  readonly rows?: readonly string[] | undefined;
  /** k6 `name` tag values (and URLs, k6's default name) → the row their requests are counted in. */
  readonly names?: ReadonlyMap<string, string>;
  /** The scenarios of a run of several: a `{scenario:x}` tag scopes the key to `x:`. */
  readonly scenarios?: readonly string[];
}

/** What a k6 threshold becomes: the flowgauge thresholds to write, or why it has none. */
export type K6ThresholdConversion = { readonly entries: readonly (readonly [string, Threshold])[] } | { readonly reason: string };

/** k6's `metric{tag:value,…}`: the metric and its tags; a tag's value may hold colons (`group:::checkout`). */
function splitTags(key: string): { name: string; tags: [string, string][] } {
  const brace = key.indexOf('{');
  if (brace < 0 || !key.endsWith('}')) return { name: key, tags: [] };
  const tags = key
    .slice(brace + 1, -1)
    .split(',')
    .map((t): [string, string] => {
      const colon = t.indexOf(':');
      return colon < 0 ? [t.trim(), ''] : [t.slice(0, colon).trim(), t.slice(colon + 1).trim()];
    });
  return { name: key.slice(0, brace).trim(), tags };
}

/**
 * A k6 threshold (`http_req_duration{name:login}` and its expressions) as flowgauge thresholds:
 * a key per statistic, the `name` tag as the row of its requests, `scenario` as the key's scope,
 * `check` as one check's key; `undefined` when `key` is no k6 metric.
 */
export function convertK6Threshold(key: string, exprs: readonly unknown[], target: K6ThresholdTarget = {}): K6ThresholdConversion | undefined {
  const { name, tags } = splitTags(key.trim());
  const elsewhere = K6_ELSEWHERE[name];
  const metric = K6_METRICS[name];
  if (metric === undefined) {
    if (name === 'http_reqs' && tags.length > 0) return convertCount(key, name, tags, exprs, target);
    return elsewhere === undefined ? undefined : { reason: `${JSON.stringify(key.trim())} is a k6 metric; ${elsewhere}` };
  }
  let row: string | undefined;
  let scope = '';
  let check: string | undefined;
  for (const [tag, value] of tags) {
    if (tag === 'name' && (name === 'http_req_duration' || name === 'http_req_failed')) row = target.names?.get(value) ?? `http:${httpRowName(value)}`;
    else if (tag === 'scenario' && target.scenarios !== undefined && target.scenarios.length > 1) scope = `${value}:`;
    else if (tag === 'scenario' && target.scenarios !== undefined) scope = '';
    else if (tag === 'check' && name === 'checks') check = value;
    else if (!(tag === 'expected_response' && value === 'true' && name === 'http_req_duration')) {
      return { reason: `k6's tag {${tag}:${value}} on ${name} has no flowgauge key (thresholds take the name tag of a request, the scenario of a run of several and the check of checks)` };
    }
  }
  const entries: [string, Threshold][] = [];
  for (const raw of exprs) {
    const expr = typeof raw === 'string' ? raw : isK6Object(raw) ? raw.threshold : undefined;
    // k6's { threshold, abortOnFail, delayAbortEval } keeps its options in flowgauge's object form.
    const withOptions = (comparison: string): Threshold =>
      isK6Object(raw) && (raw.abortOnFail !== undefined || raw.delayAbortEval !== undefined)
        ? { expr: comparison, ...(raw.abortOnFail !== undefined ? { abortOnFail: raw.abortOnFail } : {}), ...(raw.delayAbortEval !== undefined ? { delayAbortEval: raw.delayAbortEval } : {}) }
        : comparison;
    if (expr === undefined) return { reason: `${JSON.stringify(name)} is k6's metric; write flowgauge's form: each key takes one expression such as "<500"` };
    const read = readK6Expr(expr) ?? (metric.kind === 'stat' ? undefined : { agg: '', stat: undefined, comparison: expr.trim() });
    if (read === undefined) return { reason: `${JSON.stringify(expr)} under k6's ${name} needs its statistic, as in "p(95)<500"` };
    if (typeof read === 'string') return { reason: read };
    if (metric.kind === 'stat') {
      if (read.stat === undefined) return { reason: `k6's ${read.agg} has no flowgauge statistic for ${name}; use p(50), p(90), p(95), p(99), p(99.9), avg, med, max or count` };
      const keys = row !== undefined ? [`${row}.latency.${read.stat}`] : metric.keys(read.stat, target.rows);
      for (const k of keys) entries.push([`${scope}${k}`, withOptions(read.comparison)]);
    } else {
      const fits = metric.kind === 'rate' ? ['rate', 'value', ''] : ['count', 'value', ''];
      if (!fits.includes(read.agg)) return { reason: `k6's ${name} is judged on its ${metric.kind} here, as in "${metric.kind}<1"` };
      const k = row !== undefined ? `${row}.errors.rate` : check !== undefined ? `checks.${check}` : metric.key;
      entries.push([`${scope}${k}`, withOptions(read.comparison)]);
    }
  }
  return { entries };
}

/** `http_reqs{name:x}: ["count<100"]`: the count of one row. */
function convertCount(key: string, name: string, tags: readonly [string, string][], exprs: readonly unknown[], target: K6ThresholdTarget): K6ThresholdConversion {
  const tag = tags.find(([t]) => t === 'name');
  if (tag === undefined || tags.length > 1) return { reason: `${JSON.stringify(key.trim())}: flowgauge counts requests per row (<op>.count); only the name tag of http_reqs converts` };
  const row = target.names?.get(tag[1]) ?? `http:${httpRowName(tag[1])}`;
  const entries: [string, Threshold][] = [];
  for (const raw of exprs) {
    const read = typeof raw === 'string' ? readK6Expr(raw) : undefined;
    if (read === undefined || typeof read === 'string' || read.agg !== 'count') return { reason: `k6's ${name} per name converts only on its count, as in "count<100"` };
    entries.push([`${row}.count`, read.comparison]);
  }
  return { entries };
}

/**
 * The answer to a threshold under a k6 metric name (`http_req_duration`, with or without k6's
 * `{tag:value}` filter) and its k6 expressions: the flowgauge thresholds to write, as text to
 * paste; `undefined` when `key` is not a k6 metric name. `ops` are the operations the scenario
 * sends, when known (a mix), so a latency threshold names each of them.
 */
export function k6ThresholdHint(key: string, exprs: readonly unknown[], ops?: readonly OpName[]): string | undefined {
  const converted = convertK6Threshold(key, exprs, { rows: ops });
  if (converted === undefined) return undefined;
  if ('reason' in converted) return converted.reason;
  const entries = converted.entries;
  const name = splitTags(key.trim()).name;
  const keys = entries.map(([k]) => k);
  if (new Set(keys).size !== keys.length) return `flowgauge takes one expression per key: ${objectText(entries)} names a key twice; keep one of each`;
  const pickOp = keys.some((k) => k.startsWith('<op>.')) ? ` with <op> each operation your journey sends (${opList})` : '';
  const note = K6_METRICS[name]?.note;
  return `k6's ${name}; in flowgauge write thresholds: ${objectText(entries)}${pickOp} (a statistic goes in the key, one expression per key${note === undefined ? '' : `; ${note}`})`;
}

/**
 * k6's array form under any key (`"run.latency": ["p(95)<500", "p(99)<1s"]`, or a k6 metric
 * name): the flowgauge thresholds to write, one key per expression. Always an answer.
 */
export function k6ArrayHint(key: string, items: readonly unknown[], ops?: readonly OpName[]): string {
  const named = k6ThresholdHint(key, items, ops);
  if (named !== undefined) return named;
  const entries: [string, string][] = [];
  const base = key.trim().replace(/\.(p\d+|mean|max|min|count)$/, '');
  for (const item of items) {
    const read = typeof item === 'string' ? readK6Expr(item) : undefined;
    const entry: [string, string] | undefined =
      typeof item !== 'string' ? undefined
      : read === undefined ? [key.trim(), item.trim()]
      : typeof read === 'string' || read.stat === undefined ? undefined
      : [`${base}.${read.stat}`, read.comparison];
    if (entry === undefined || parseMetricKey(entry[0]) === undefined) {
      return 'flowgauge takes one expression per key, not an array (k6\'s form): write each as its own key, e.g. thresholds: { "listFlows.latency.p95": "<500", "listFlows.latency.p99": "<1s" }';
    }
    entries.push(entry);
  }
  const keys = entries.map(([k]) => k);
  if (entries.length === 0 || new Set(keys).size !== keys.length) return 'flowgauge takes one expression per key, not an array: write each statistic as its own key, e.g. { "listFlows.latency.p95": "<500" }';
  return `k6's array form; in flowgauge write thresholds: ${objectText(entries)} (a statistic goes in the key, one expression per key)`;
}

/** A flowgauge threshold as written: the expression, or it with its options. */
type Threshold = string | { readonly expr: string; readonly abortOnFail?: unknown; readonly delayAbortEval?: unknown };

function isK6Object(v: unknown): v is { threshold: string; abortOnFail?: unknown; delayAbortEval?: unknown } {
  return v !== null && typeof v === 'object' && typeof (v as { threshold?: unknown }).threshold === 'string';
}

/**
 * A flowgauge key given a k6 expression (`"run.latency": "p(95)<500"`): the key with the
 * statistic in it, when that key exists in the grammar; `undefined` when `expr` is not k6's.
 */
export function k6ExpressionHint(key: string, expr: string): string | undefined {
  const read = readK6Expr(expr);
  if (read === undefined) return undefined;
  if (typeof read === 'string') return `threshold ${JSON.stringify(key.trim())}: ${read}`;
  const base = key.trim().replace(/\.(p\d+|mean|max|min|count)$/, '');
  const candidate = read.stat === undefined ? undefined : `${base}.${read.stat}`;
  const fits = candidate !== undefined && parseMetricKey(candidate) !== undefined;
  const example = fits ? `${JSON.stringify(candidate)}: ${JSON.stringify(read.comparison)}` : `"<op>.latency.p95": "<500" (op: ${opList})`;
  return `threshold ${JSON.stringify(key.trim())}: ${JSON.stringify(expr)} is k6's form; in flowgauge the statistic goes in the key: ${example}`;
}
