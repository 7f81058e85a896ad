/**
 * How a capacity sweep is shown: a text table, a one-line verdict, an ASCII chart of good
 * throughput and p99 by concurrency, and a small self-contained HTML page with the same chart
 * as inline SVG (no script, no external file). Pure: returns strings.
 */
import type { CapacityResult, CapacityStep } from './sweep.js';
import { escapeHtml } from '../core/html-escape.js';

/** What the sweep was judged against, for the captions. */
export interface CapacityObjectives {
  readonly op: string;
  readonly p99Ms: number;
  readonly maxErrorRatio: number;
  /** `X-RateLimit-Limit` the target advertised, when it did. */
  readonly advertisedLimit?: number | undefined;
}

const pct = (r: number): string => `${(r * 100).toFixed(r > 0 && r < 0.001 ? 3 : 1)}%`;
const num = (v: number, d = 0): string => v.toFixed(d);

function byConcurrency(result: CapacityResult): CapacityStep[] {
  return [...result.steps].sort((a, b) => a.concurrency - b.concurrency);
}

/** The steps as an aligned text table, in the order they were measured. */
export function renderCapacityTable(result: CapacityResult): string {
  const head = ['conc', 'phase', 'req/s', 'good/s', 'p50 ms', 'p99 ms', 'errors', '429s', 'verdict'];
  const rows = result.steps.map((s) => [
    String(s.concurrency),
    s.phase,
    num(s.requestsPerS),
    num(s.goodPerS),
    num(s.p50Ms, 1),
    num(s.p99Ms, 1),
    pct(s.errorRatio),
    pct(s.ratio429),
    s.meets ? 'ok' : `fails: ${s.limit ?? ''}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i < 2 || i === 8 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ').trimEnd();
  return [line(head), ...rows.map(line)].join('\n') + '\n';
}

/** One sentence: the capacity found and what stopped the sweep. */
export function describeCapacity(result: CapacityResult, o: CapacityObjectives): string {
  const objectives = `p99 ≤ ${o.p99Ms} ms, errors ≤ ${pct(o.maxErrorRatio)}`;
  const best = result.best;
  const head =
    best === undefined
      ? `no concurrency met the objectives (${objectives})`
      : `capacity of ${o.op}: ${num(best.goodPerS)} good requests/s at concurrency ${best.concurrency} (p99 ${num(best.p99Ms, 1)} ms, errors ${pct(best.errorRatio)}; objectives ${objectives})`;
  const bad = result.firstBad;
  if (bad === undefined) return `${head}; every step up to the maximum concurrency met the objectives, so the ceiling lies higher`;
  const why =
    bad.limit === 'rate-limit'
      ? `rate limiting: 429s were ${pct(bad.ratio429)} of requests at concurrency ${bad.concurrency} (the service's limit${o.advertisedLimit === undefined ? '' : `, ${o.advertisedLimit} requests per window`}, not its capacity; throughput above the limit holds only until the window's quota is spent)`
      : bad.limit === 'errors'
        ? `service capacity: errors reached ${pct(bad.errorRatio)} at concurrency ${bad.concurrency}`
        : `service capacity: p99 reached ${num(bad.p99Ms, 1)} ms at concurrency ${bad.concurrency}`;
  return `${head}; stopped by ${why}`;
}

/** A bar per concurrency: good throughput as a bar, p99 and the verdict after it. */
export function renderCapacityAscii(result: CapacityResult, width = 40): string {
  const steps = byConcurrency(result);
  const max = Math.max(1, ...steps.map((s) => s.goodPerS));
  const label = Math.max(4, ...steps.map((s) => String(s.concurrency).length));
  const lines = steps.map((s) => {
    const bar = (s.meets ? '█' : '░').repeat(Math.max(s.goodPerS > 0 ? 1 : 0, Math.round((s.goodPerS / max) * width)));
    return `${String(s.concurrency).padStart(label)} │${bar.padEnd(width)} ${num(s.goodPerS)}/s  p99 ${num(s.p99Ms, 1)} ms${s.meets ? '' : `  ✗ ${s.limit ?? ''}`}`;
  });
  return [`${'conc'.padStart(label)} │ good requests/s (█ meets objectives, ░ fails)`, ...lines].join('\n') + '\n';
}


/** A self-contained HTML page: the verdict, an SVG chart (throughput bars, p99 line) and the table. */
export function renderCapacityHtml(result: CapacityResult, o: CapacityObjectives, subtitle: string): string {
  const steps = byConcurrency(result);
  const W = 720;
  const H = 320;
  const pad = { l: 60, r: 60, t: 20, b: 40 };
  const iw = W - pad.l - pad.r;
  const ih = H - pad.t - pad.b;
  const maxRate = Math.max(1, ...steps.map((s) => s.goodPerS));
  const maxP99 = Math.max(o.p99Ms * 1.2, ...steps.map((s) => s.p99Ms));
  const bw = steps.length > 0 ? iw / steps.length : iw;
  const bars = steps
    .map((s, i) => {
      const h = (s.goodPerS / maxRate) * ih;
      const x = pad.l + i * bw + bw * 0.15;
      return `<rect x="${x.toFixed(1)}" y="${(pad.t + ih - h).toFixed(1)}" width="${(bw * 0.7).toFixed(1)}" height="${h.toFixed(1)}" fill="${s.meets ? '#2f7ed8' : '#c8c8c8'}"><title>concurrency ${s.concurrency}: ${num(s.goodPerS)} good req/s, p99 ${num(s.p99Ms, 1)} ms${s.meets ? '' : ` (fails: ${s.limit ?? ''})`}</title></rect>` +
        `<text x="${(pad.l + i * bw + bw / 2).toFixed(1)}" y="${H - pad.b + 16}" text-anchor="middle" font-size="11">${s.concurrency}</text>`;
    })
    .join('');
  const y99 = (v: number): number => pad.t + ih - (v / maxP99) * ih;
  const points = steps.map((s, i) => `${(pad.l + i * bw + bw / 2).toFixed(1)},${y99(s.p99Ms).toFixed(1)}`).join(' ');
  const objY = y99(o.p99Ms).toFixed(1);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif">` +
    `<line x1="${pad.l}" y1="${pad.t + ih}" x2="${W - pad.r}" y2="${pad.t + ih}" stroke="#333"/>` +
    bars +
    `<polyline points="${points}" fill="none" stroke="#d83f2f" stroke-width="2"/>` +
    `<line x1="${pad.l}" y1="${objY}" x2="${W - pad.r}" y2="${objY}" stroke="#d83f2f" stroke-dasharray="4 4"/>` +
    `<text x="${W - pad.r + 4}" y="${objY}" font-size="11" fill="#d83f2f">p99 ${o.p99Ms} ms</text>` +
    `<text x="${pad.l - 8}" y="${pad.t + 10}" text-anchor="end" font-size="11">${num(maxRate)}/s</text>` +
    `<text x="${pad.l - 8}" y="${pad.t + ih}" text-anchor="end" font-size="11">0</text>` +
    `<text x="${pad.l + iw / 2}" y="${H - 4}" text-anchor="middle" font-size="12">concurrency (bars: good requests/s; line: p99)</text>` +
    '</svg>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>flowgauge capacity: ${escapeHtml(o.op)}</title>
<style>body{font-family:sans-serif;margin:2em;color:#222}pre{background:#f6f6f6;padding:1em;overflow:auto}</style></head>
<body><h1>Capacity of ${escapeHtml(o.op)}</h1><p>${escapeHtml(subtitle)}</p><p><strong>${escapeHtml(describeCapacity(result, o))}</strong></p>
${svg}
<pre>${escapeHtml(renderCapacityTable(result))}</pre></body></html>
`;
}
