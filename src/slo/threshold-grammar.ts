/**
 * The threshold grammar, k6 style: a metric key (`run.latency.p99`), optionally scoped to one
 * scenario of several (`pro:availability`), and an expression (`< 2s`). The one place a key is
 * read: everything else carries the parsed value. A small hand-written scanner: thresholds come
 * from scenario files, so nothing here ever evaluates code.
 */
import { OPS, isHttpOp, isOpName } from '../core/ops.js';
import type { OpKey } from '../core/ops.js';
import { STREAM_TIMING_NAMES, isStreamTimingName, streamTimingOf, type StreamTimingName } from '../core/stream-timings.js';
import { durationPartMs } from '../core/units.js';

/** Statistics of a percentile summary, in the order reports show them. */
export const PCT_STATS = ['p50', 'p90', 'p95', 'p99', 'p999', 'max', 'mean', 'count'] as const;

/** One statistic of a percentile summary. */
export type PctStat = (typeof PCT_STATS)[number];

/** Rate-limit counters a threshold can name (`ratelimit.<name>`). */
export const RATELIMIT_METRICS = ['premature429', 'expected429', 'responses429'] as const;

/** A rate-limit counter by its threshold name. */
export type RateLimitMetric = (typeof RATELIMIT_METRICS)[number];

/** Comparison operators, two-character ones first so the scanner matches them greedily. */
export const COMPARATORS = ['<=', '>=', '==', '!=', '<', '>'] as const;

/** A comparison operator. */
export type Comparator = (typeof COMPARATORS)[number];

/**
 * What a metric's numbers mean: `ms` durations, `ratio` 0–1, `count` events, `perS` a rate
 * (tokens per second). Threshold values and observations are both in this unit.
 */
export type ThresholdUnit = 'ms' | 'ratio' | 'count' | 'perS';

/**
 * Request counters of one row of `ops` (an operation, or `http:<name>`): `count` requests sent,
 * `errors` requests that failed (every sample with an error code: an error status, a timeout, a
 * reset), `errorsRate` the share of them, as k6's `http_req_failed`.
 */
export const OP_COUNTERS = { count: 'count', errors: 'errors', errorsRate: 'errors.rate' } as const;

/** One of `OP_COUNTERS`. */
export type OpCounter = keyof typeof OP_COUNTERS;

/** A metric key, parsed. */
export type MetricKey =
  /** Latency of one row of `ops`: an operation (`run`) or a journey's own request (`http:<name>`). */
  | { readonly kind: 'latency'; readonly op: OpKey; readonly stat: PctStat }
  | { readonly kind: 'requests'; readonly op: OpKey; readonly counter: OpCounter }
  | { readonly kind: 'stream'; readonly metric: StreamTimingName; readonly stat: PctStat }
  | { readonly kind: 'availability' }
  | { readonly kind: 'errorsRate' }
  | { readonly kind: 'ratelimit'; readonly metric: RateLimitMetric }
  /** Latency of the 429 answers (`ratelimit.latency.<stat>`), which `<op>.latency` leaves out. */
  | { readonly kind: 'ratelimitLatency'; readonly stat: PctStat }
  | { readonly kind: 'dropped' }
  | { readonly kind: 'contractViolations' }
  | { readonly kind: 'iterationsFailed' }
  | { readonly kind: 'iterationDuration'; readonly stat: PctStat }
  /** Pass ratio of every check (`name` undefined) or of one named check. */
  | { readonly kind: 'checks'; readonly name: string | undefined };

/** What keys are allowed, for error messages. */
export const METRIC_KEY_HELP =
  `<op>.latency.<stat>, <op>.count, <op>.errors, <op>.errors.rate (op: ${OPS.join('|')}, or http:<name> for a journey's vu.http requests; stat: ${PCT_STATS.join('|')}), ` +
  `stream.<${STREAM_TIMING_NAMES.join('|')}>.<stat>, availability, errors.rate, ` +
  `ratelimit.<${RATELIMIT_METRICS.join('|')}>, ratelimit.latency.<stat>, dropped, contract.violations, ` +
  `iterations.failed, iteration.duration.<stat>, checks, checks.<name>`;

const includes = <T extends string>(list: readonly T[], s: string | undefined): s is T =>
  s !== undefined && (list as readonly string[]).includes(s);

/** True when `s` names a row of `ops`: an operation, or `http:<name>`. */
export function isOpKey(s: string | undefined): s is OpKey {
  return isOpName(s) || isHttpOp(s);
}

/**
 * A key that names a row of `ops` (`run.latency.p99`, `http:auth.login.errors.rate`): the row
 * is what comes before the suffix, read from the end, since an `http:` name may hold dots.
 */
function opRowMetric(key: string): MetricKey | undefined {
  const last = key.lastIndexOf('.');
  if (last <= 0) return undefined;
  const tail = key.slice(last + 1);
  const head = key.slice(0, last);
  if (tail === 'count' && isOpKey(head)) return { kind: 'requests', op: head, counter: 'count' };
  if (tail === 'errors' && isOpKey(head)) return { kind: 'requests', op: head, counter: 'errors' };
  const before = head.lastIndexOf('.');
  if (before <= 0) return undefined;
  const row = head.slice(0, before);
  const middle = head.slice(before + 1);
  if (!isOpKey(row)) return undefined;
  if (middle === 'latency' && includes(PCT_STATS, tail)) return { kind: 'latency', op: row, stat: tail };
  if (middle === 'errors' && tail === 'rate') return { kind: 'requests', op: row, counter: 'errorsRate' };
  return undefined;
}

/** Parses a metric key; `undefined` when it is not one of `METRIC_KEY_HELP`. */
export function parseMetricKey(key: string): MetricKey | undefined {
  const trimmed = key.trim();
  // A check's name may hold dots and spaces: everything after `checks.` is the name.
  if (trimmed === 'checks') return { kind: 'checks', name: undefined };
  if (trimmed.startsWith('checks.') && trimmed.length > 7) return { kind: 'checks', name: trimmed.slice(7) };
  if (trimmed === 'iterations.failed') return { kind: 'iterationsFailed' };
  if (trimmed.startsWith('http:')) return opRowMetric(trimmed);
  const parts = trimmed.split('.');
  const [a, b, c] = parts;
  if (parts.length === 1) {
    if (a === 'availability') return { kind: 'availability' };
    if (a === 'dropped') return { kind: 'dropped' };
    return undefined;
  }
  if (parts.length === 2) {
    if (a === 'errors' && b === 'rate') return { kind: 'errorsRate' };
    if (a === 'contract' && b === 'violations') return { kind: 'contractViolations' };
    if (a === 'ratelimit' && includes(RATELIMIT_METRICS, b)) return { kind: 'ratelimit', metric: b };
    return opRowMetric(trimmed);
  }
  if (parts.length === 3 && includes(PCT_STATS, c)) {
    // `stream.latency.p99` is the stream operation's latency; `stream.ttft.p99` a stream timing.
    if (a === 'stream' && isStreamTimingName(b)) return { kind: 'stream', metric: b, stat: c };
    if (a === 'iteration' && b === 'duration') return { kind: 'iterationDuration', stat: c };
    if (a === 'ratelimit' && b === 'latency') return { kind: 'ratelimitLatency', stat: c };
  }
  return parts.length === 3 ? opRowMetric(trimmed) : undefined;
}

/**
 * A threshold key split into its scope and its metric key, as written: `pro:availability` is
 * scoped to the scenario `pro` and judged on its figures alone; `availability` judges the run.
 * A scope is the text before the first colon, when it holds no dot (scenario names never do),
 * so a check named with a colon (`checks.status: 200`) stays a metric key.
 */
export interface ThresholdKeyParts {
  /** The scenario the key is scoped to, trimmed; undefined for the whole run. */
  readonly scope: string | undefined;
  /** The metric key without its scope, trimmed (`availability`). */
  readonly metricKey: string;
}

/**
 * Splits a threshold key's `<scenario>:` scope from its metric key. Never fails. `http:` is the
 * prefix of a journey's own request (`http:auth.latency.p95`, `http:auth.latncy.p95` mistyped),
 * and the scope of a scenario named `http` only before a metric key that reads as one when the
 * whole does not (`http:availability`, `http:http:auth.latency.p95`).
 */
export function splitThresholdKey(key: string): ThresholdKeyParts {
  const colon = key.indexOf(':');
  const head = colon > 0 ? key.slice(0, colon).trim() : '';
  if (head === '' || head.includes('.')) return { scope: undefined, metricKey: key.trim() };
  const rest = key.slice(colon + 1).trim();
  if (head === 'http' && !scopesHttp(key, rest)) return { scope: undefined, metricKey: key.trim() };
  return { scope: head, metricKey: rest };
}

/** True when `http` before `rest` is a scenario's name: `rest` reads as a (scoped) metric key, and `key` as a whole does not. */
function scopesHttp(key: string, rest: string): boolean {
  if (parseMetricKey(key) !== undefined) return false;
  return parseMetricKey(rest) !== undefined || splitThresholdKey(rest).scope !== undefined;
}

/** A threshold key, parsed: its scope (if any) and its metric. */
export interface ThresholdKey extends ThresholdKeyParts {
  readonly metric: MetricKey;
}

/** Parses `[<scenario>:]<metric>`; `undefined` when the metric is not one of `METRIC_KEY_HELP`. */
export function parseThresholdKey(key: string): ThresholdKey | undefined {
  const parts = splitThresholdKey(key);
  const metric = parseMetricKey(parts.metricKey);
  return metric === undefined ? undefined : { ...parts, metric };
}

/** A threshold key written back: `<scope>:<metricKey>`, or the metric key alone. */
export function thresholdKeyText(parts: ThresholdKeyParts): string {
  return parts.scope === undefined ? parts.metricKey : `${parts.scope}:${parts.metricKey}`;
}

/** The unit of a metric's values. */
export function unitOf(metric: MetricKey): ThresholdUnit {
  switch (metric.kind) {
    case 'latency':
      return metric.stat === 'count' ? 'count' : 'ms';
    case 'requests':
      return metric.counter === 'errorsRate' ? 'ratio' : 'count';
    case 'stream':
      return metric.stat === 'count' ? 'count' : streamTimingOf(metric.metric).unit;
    case 'iterationDuration':
    case 'ratelimitLatency':
      return metric.stat === 'count' ? 'count' : 'ms';
    case 'availability':
    case 'errorsRate':
    case 'checks':
      return 'ratio';
    default:
      return 'count';
  }
}

/** A parsed expression: comparator and value in the metric's unit. */
export interface ParsedExpression {
  readonly op: Comparator;
  readonly value: number;
}

/** What an expression may look like for each unit, for error messages. */
export const EXPRESSION_HELP: Readonly<Record<ThresholdUnit, string>> = {
  ms: 'a comparator (<, <=, >, >=, ==, !=) and a duration such as "< 2s", "<= 500ms", "< 1.5m", "< 1m30s", "< 250us" (a bare number means ms)',
  ratio: 'a comparator (<, <=, >, >=, ==, !=) and a percentage such as ">= 99.9%" or a ratio from 0 to 1 such as ">= 0.999"',
  count: 'a comparator (<, <=, >, >=, ==, !=) and a plain number such as "== 0" or "< 10"',
  perS: 'a comparator (<, <=, >, >=, ==, !=) and a plain number per second such as "> 20"',
};

const isDigit = (ch: string | undefined): boolean => ch !== undefined && ch >= '0' && ch <= '9';
const isSpace = (ch: string | undefined): boolean => ch === ' ' || ch === '\t';
const isUnitChar = (ch: string | undefined): boolean =>
  ch !== undefined && ((ch >= 'a' && ch <= 'z') || ch === 'µ' || ch === '%');

/**
 * Parses an expression for a metric of `unit`. Returns an error text (without the key) when the
 * input does not fit; never throws.
 */
export function parseExpression(expr: string, unit: ThresholdUnit): ParsedExpression | string {
  let i = 0;
  const skip = (): void => {
    while (isSpace(expr[i])) i++;
  };
  skip();
  const op = COMPARATORS.find((c) => expr.startsWith(c, i));
  if (op === undefined) return 'expected a comparator first';
  i += op.length;
  skip();
  const number = (): string => {
    const start = i;
    while (isDigit(expr[i])) i++;
    if (expr[i] === '.' && isDigit(expr[i + 1])) {
      i++;
      while (isDigit(expr[i])) i++;
    }
    return expr.slice(start, i);
  };
  const text = number();
  if (text === '') return 'expected a non-negative number after the comparator';
  skip();
  const unitStart = i;
  while (isUnitChar(expr[i])) i++;
  const suffix = expr.slice(unitStart, i);
  let value = applyUnit(text, suffix, unit);
  // Durations may go on, as k6 and Go write them: `1m30s`, `1h2m`.
  while (unit === 'ms' && suffix !== '' && typeof value === 'number' && isDigit(expr[i])) {
    const more = number();
    const start = i;
    while (isUnitChar(expr[i])) i++;
    const part = expr.slice(start, i);
    const next = part === '' ? 'a duration part needs its unit, as in "1m30s"' : applyUnit(more, part, unit);
    value = typeof next === 'number' ? value + next : next;
  }
  skip();
  if (typeof value === 'string') return value;
  if (i !== expr.length) return 'unexpected text after the value';
  if (!Number.isFinite(value)) return 'the number is too large';
  return { op, value };
}

function applyUnit(text: string, suffix: string, unit: ThresholdUnit): number | string {
  const n = Number(text);
  switch (unit) {
    case 'ms': {
      const ms = durationPartMs(text, suffix === '' ? 'ms' : suffix);
      return ms === undefined ? `unknown duration unit "${suffix}"` : ms;
    }
    case 'ratio':
      if (suffix === '%') return n <= 100 ? Number(`${text}e-2`) : 'a percentage cannot exceed 100%';
      if (suffix !== '') return `a ratio takes "%" or no unit, not "${suffix}"`;
      return n <= 1 ? n : `a plain ratio must be between 0 and 1 (did you mean ${n}%?)`;
    default:
      return suffix === '' ? n : `this metric takes a plain number, not "${suffix}"`;
  }
}
