/**
 * capacity.html and capacity.md: the verdict, the steps charted by concurrency and the table.
 * The page is self-contained (inline SVG, no script, nothing fetched). A stream sweep adds the
 * LLM charts per step: output tokens per second with TTFT p50/p95, and TPOT p50/p95 with ITL p95,
 * each against its objective when one was set. Pure: returns strings.
 */
import { escapeHtml } from '../core/html-escape.js';
import { byConcurrency, capacityColumns, describeCapacity, hasStreamFigures, num, renderCapacityAscii, stepFigures, verdictCell, type CapacityObjectives } from './chart.js';
import { renderSvgChart, type SvgChartSpec } from './chart-svg.js';
import type { CapacityResult, CapacityStep } from './sweep.js';

const X_LABEL = 'concurrency';
const COLORS = { p99: '#d83f2f', p95: '#d83f2f', p50: '#e8a33d', itl: '#8250df' } as const;

const tip = (s: CapacityStep): string => `concurrency ${s.concurrency}: ${num(s.goodPerS)} good req/s, ${stepFigures(s)}${s.meets ? '' : ` (${verdictCell(s)})`}`;
/** A stream percentile of a step, or null when it measured none. */
const at = (s: CapacityStep, k: 'ttftMs' | 'tpotMs' | 'itlMs', p: 'p50' | 'p95'): number | null => {
  const x = s.stream?.[k];
  return x === undefined || x.count === 0 ? null : x[p];
};

/** The charts of the sweep, as SVG. */
function charts(result: CapacityResult, o: CapacityObjectives): string[] {
  const steps = byConcurrency(result);
  const base = { x: steps.map((s) => String(s.concurrency)), xLabel: X_LABEL };
  const meets = steps.map((s) => s.meets);
  const titles = steps.map(tip);
  const throughput: SvgChartSpec = {
    ...base,
    bars: { label: 'good requests/s', unit: '/s', values: steps.map((s) => s.goodPerS), meets, titles },
    lines: [{ label: 'p99 latency', values: steps.map((s) => s.p99Ms), color: COLORS.p99 }],
    objective: o.p99Ms === undefined ? undefined : { value: o.p99Ms, label: `p99 ${o.p99Ms} ms` },
  };
  const out = [`<h2>Throughput and latency</h2>${renderSvgChart(throughput)}`];
  if (!hasStreamFigures(result)) return out;
  const ttft: SvgChartSpec = {
    ...base,
    bars: { label: 'output tokens/s', unit: ' tok/s', values: steps.map((s) => s.stream?.outputTokensPerS ?? 0), meets, titles },
    lines: [
      { label: 'TTFT p50', values: steps.map((s) => at(s, 'ttftMs', 'p50')), color: COLORS.p50 },
      { label: 'TTFT p95', values: steps.map((s) => at(s, 'ttftMs', 'p95')), color: COLORS.p95 },
    ],
    objective: o.ttftP95Ms === undefined ? undefined : { value: o.ttftP95Ms, label: `TTFT p95 ${o.ttftP95Ms} ms` },
  };
  const tpot: SvgChartSpec = {
    ...base,
    lines: [
      { label: 'TPOT p50', values: steps.map((s) => at(s, 'tpotMs', 'p50')), color: COLORS.p50 },
      { label: 'TPOT p95', values: steps.map((s) => at(s, 'tpotMs', 'p95')), color: COLORS.p95 },
      { label: 'ITL p95', values: steps.map((s) => at(s, 'itlMs', 'p95')), color: COLORS.itl, dash: true },
    ],
    objective: o.tpotP95Ms === undefined ? undefined : { value: o.tpotP95Ms, label: `TPOT p95 ${o.tpotP95Ms} ms` },
  };
  out.push(
    `<h2>Output tokens per second and time to first token</h2>${renderSvgChart(ttft)}`,
    `<h2>Time per output token and inter-token latency</h2>${renderSvgChart(tpot)}`,
    '<p class="note">Streams whose tokens all arrived in one read (bursts) are counted per step in capacity.json (<code>stream.deliveredAtOnce</code>) and left out of ITL, TPOT and tokens per second.</p>',
  );
  return out;
}

/** The HTML table of the steps. */
function htmlTable(result: CapacityResult): string {
  const { head, rows } = capacityColumns(result);
  const cell = (tag: 'th' | 'td', c: string, i: number): string => `<${tag}${i < 2 || i === head.length - 1 ? '' : ' class="num"'}>${escapeHtml(c)}</${tag}>`;
  return `<table><thead><tr>${head.map((h, i) => cell('th', h, i)).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map((c, i) => cell('td', c, i)).join('')}</tr>`).join('')}</tbody></table>`;
}

/** A self-contained HTML page: the verdict, the SVG charts and the table. */
export function renderCapacityHtml(result: CapacityResult, o: CapacityObjectives, subtitle: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>flowgauge capacity: ${escapeHtml(o.op)}</title>
<style>body{font-family:sans-serif;margin:2em;color:#222;max-width:1100px}h2{font-size:16px;margin:1.5em 0 .3em}table{border-collapse:collapse;font-size:13px;margin-top:1em}th,td{padding:3px 8px;border-bottom:1px solid #ddd;text-align:left;white-space:nowrap}.num{text-align:right;font-variant-numeric:tabular-nums}.note{color:#555;font-size:13px}</style></head>
<body><h1>Capacity of ${escapeHtml(o.op)}</h1><p>${escapeHtml(subtitle)}</p><p><strong>${escapeHtml(describeCapacity(result, o))}</strong></p>
${charts(result, o).join('\n')}
<h2>Steps</h2>
${htmlTable(result)}
</body></html>
`;
}

/** capacity.md: the verdict, the steps table (every column of the HTML one) and the ASCII chart. */
export function renderCapacityMarkdown(result: CapacityResult, o: CapacityObjectives, subtitle: string): string {
  const { head, rows } = capacityColumns(result);
  const esc = (c: string): string => c.replace(/\|/g, '\\|');
  const align = head.map((_, i) => (i < 2 || i === head.length - 1 ? '---' : '---:'));
  return [
    `# Capacity of ${o.op}`,
    '',
    subtitle,
    '',
    `**${describeCapacity(result, o)}**`,
    '',
    `| ${head.join(' | ')} |`,
    `| ${align.join(' | ')} |`,
    ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
    '',
    '```',
    renderCapacityAscii(result).trimEnd(),
    '```',
    '',
  ].join('\n');
}
