/**
 * How a capacity sweep reads as text: a table of the steps, a one-line verdict and an ASCII chart
 * of good throughput by concurrency. A stream sweep's steps add what an LLM benchmark reports per
 * step: TTFT, TPOT and ITL percentiles and output tokens per second. Pure: returns strings.
 */
import type { CapacityResult, CapacityStep, CapacityTargets } from './sweep.js';

/** What the sweep was judged against, for the captions. */
export interface CapacityObjectives extends CapacityTargets {
  readonly op: string;
  /** `X-RateLimit-Limit` the target advertised, when it did. */
  readonly advertisedLimit?: number | undefined;
}

/** A share as a percentage, more decimals for tiny ones. */
const pct = (r: number): string => `${(r * 100).toFixed(r > 0 && r < 0.001 ? 3 : 1)}%`;
/** A number with `d` decimals. */
export const num = (v: number, d = 0): string => v.toFixed(d);
/** A percentile in ms, or a dash when nothing was measured. */
const ms = (x: { readonly count: number } & Record<'p50' | 'p95', number>, k: 'p50' | 'p95'): string => (x.count === 0 ? '—' : num(x[k], 1));

/** The steps in order of concurrency (the order charts draw them). */
export function byConcurrency(result: CapacityResult): CapacityStep[] {
  return [...result.steps].sort((a, b) => a.concurrency - b.concurrency);
}

/** Whether the sweep measured streams (its steps carry TTFT, TPOT, ITL and tokens per second). */
export const hasStreamFigures = (result: CapacityResult): boolean => result.steps.some((s) => s.stream !== undefined);

/** The objectives in words: `p99 ≤ 500 ms, TTFT p95 ≤ 300 ms, errors ≤ 1.0%`. */
function objectivesText(o: CapacityTargets): string {
  const parts: string[] = [];
  if (o.p99Ms !== undefined) parts.push(`p99 ≤ ${o.p99Ms} ms`);
  if (o.ttftP95Ms !== undefined) parts.push(`TTFT p95 ≤ ${o.ttftP95Ms} ms`);
  if (o.tpotP95Ms !== undefined) parts.push(`TPOT p95 ≤ ${o.tpotP95Ms} ms`);
  parts.push(`errors ≤ ${pct(o.maxErrorRatio)}`);
  return parts.join(', ');
}

/** A step's verdict cell: `ok`, or what it failed. */
export const verdictCell = (s: CapacityStep): string => (s.meets ? 'ok' : `fails: ${s.limit ?? ''}`);

/** The columns of the steps table, head and cells (numbers as text). */
export function capacityColumns(result: CapacityResult): { readonly head: string[]; readonly rows: string[][] } {
  const llm = hasStreamFigures(result);
  const head = ['conc', 'phase', 'req/s', 'good/s', 'p50 ms', 'p99 ms', ...(llm ? ['ttft p50', 'ttft p95', 'tpot p50', 'tpot p95', 'itl p95', 'out tok/s'] : []), 'errors', '429s', 'verdict'];
  const rows = result.steps.map((s) => {
    const st = s.stream;
    const stream = !llm
      ? []
      : st === undefined
        ? ['—', '—', '—', '—', '—', '—']
        : [ms(st.ttftMs, 'p50'), ms(st.ttftMs, 'p95'), ms(st.tpotMs, 'p50'), ms(st.tpotMs, 'p95'), ms(st.itlMs, 'p95'), num(st.outputTokensPerS)];
    return [String(s.concurrency), s.phase, num(s.requestsPerS), num(s.goodPerS), num(s.p50Ms, 1), num(s.p99Ms, 1), ...stream, pct(s.errorRatio), pct(s.ratio429), verdictCell(s)];
  });
  return { head, rows };
}

/** The steps as an aligned text table, in the order they were measured. */
export function renderCapacityTable(result: CapacityResult): string {
  const { head, rows } = capacityColumns(result);
  const last = head.length - 1;
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (i < 2 || i === last ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ').trimEnd();
  return [line(head), ...rows.map(line)].join('\n') + '\n';
}

/** A step's latency figures in words: `p99 12.0 ms, TTFT p95 80.0 ms, TPOT p95 20.0 ms, 410 output tokens/s`. */
export function stepFigures(s: CapacityStep): string {
  const st = s.stream;
  const llm = st === undefined ? '' : `, TTFT p95 ${ms(st.ttftMs, 'p95')} ms, TPOT p95 ${ms(st.tpotMs, 'p95')} ms, ${num(st.outputTokensPerS)} output tokens/s`;
  return `p99 ${num(s.p99Ms, 1)} ms${llm}`;
}

/** One sentence: the capacity found and what stopped the sweep. */
export function describeCapacity(result: CapacityResult, o: CapacityObjectives): string {
  const objectives = objectivesText(o);
  const best = result.best;
  const head =
    best === undefined
      ? `no concurrency met the objectives (${objectives})`
      : `capacity of ${o.op}: ${num(best.goodPerS)} good requests/s at concurrency ${best.concurrency} (${stepFigures(best)}, errors ${pct(best.errorRatio)}; objectives ${objectives})`;
  const bad = result.firstBad;
  if (result.interrupted === true) {
    const n = result.steps.length;
    const seen = bad === undefined ? 'no step had broken an objective yet' : `concurrency ${bad.concurrency} had broken ${bad.limit ?? 'an objective'}`;
    return `${head}; INTERRUPTED after ${n} whole step${n === 1 ? '' : 's'} (${seen}): the sweep did not finish, so this is not the capacity`;
  }
  if (bad === undefined) return `${head}; every step up to the maximum concurrency met the objectives, so the ceiling lies higher`;
  const at = `at concurrency ${bad.concurrency}`;
  const why =
    bad.limit === 'rate-limit'
      ? `rate limiting: 429s were ${pct(bad.ratio429)} of requests ${at} (the service's limit${o.advertisedLimit === undefined ? '' : `, ${o.advertisedLimit} requests per window`}, not its capacity; throughput above the limit holds only until the window's quota is spent)`
      : bad.limit === 'errors'
        ? `service capacity: errors reached ${pct(bad.errorRatio)} ${at}`
        : bad.limit === 'ttft'
          ? `service capacity: TTFT p95 reached ${bad.stream === undefined ? '—' : ms(bad.stream.ttftMs, 'p95')} ms ${at}`
          : bad.limit === 'tpot'
            ? `service capacity: TPOT p95 reached ${bad.stream === undefined ? '—' : ms(bad.stream.tpotMs, 'p95')} ms ${at}`
            : `service capacity: p99 reached ${num(bad.p99Ms, 1)} ms ${at}`;
  return `${head}; stopped by ${why}`;
}

/** A bar per concurrency: good throughput as a bar, the latency figures and the verdict after it. */
export function renderCapacityAscii(result: CapacityResult, width = 40): string {
  const steps = byConcurrency(result);
  const max = Math.max(1, ...steps.map((s) => s.goodPerS));
  const label = Math.max(4, ...steps.map((s) => String(s.concurrency).length));
  const lines = steps.map((s) => {
    const bar = (s.meets ? '█' : '░').repeat(Math.max(s.goodPerS > 0 ? 1 : 0, Math.round((s.goodPerS / max) * width)));
    return `${String(s.concurrency).padStart(label)} │${bar.padEnd(width)} ${num(s.goodPerS)}/s  ${stepFigures(s)}${s.meets ? '' : `  ✗ ${s.limit ?? ''}`}`;
  });
  return [`${'conc'.padStart(label)} │ good requests/s (█ meets objectives, ░ fails)`, ...lines].join('\n') + '\n';
}
