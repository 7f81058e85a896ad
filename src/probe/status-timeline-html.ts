/**
 * The timeline of the status page as HTML: one bar per series, a cell per time bucket coloured
 * by outcome (up, partly down, down, not observed), cells of an incident marked, and the error
 * budget burned over the window as an inline SVG line on a labelled axis. No scripts: every cell carries its
 * figures in a `title`, so hovering tells what it stands for.
 */
import type { Timeline, TimelineCell } from './timeline.js';

/** CSS of the timeline (added to the page's). */
export const TIMELINE_CSS = `
.tl{margin:.25rem 0 1rem}.tl-row{display:flex;align-items:center;gap:.75rem;margin:.3rem 0}
.tl-name{width:7rem;flex:none;font-weight:600}.tl-bar{display:flex;gap:1px;flex:1;height:1.6rem}
.cell{flex:1;border-radius:2px;min-width:2px}.cell.up{background:#34a853}.cell.partial{background:#fbbc04}
.cell.down{background:#ea4335}.cell.none{background:#dadce0}.cell.incident{box-shadow:inset 0 -4px 0 #5f0000}
.tl-axis{display:flex;justify-content:space-between;margin-left:7.75rem;color:#5f6368;font-size:.8em}
.legend span{display:inline-block;margin-right:1rem}.legend i{display:inline-block;width:.8rem;height:.8rem;border-radius:2px;margin-right:.3rem;vertical-align:-1px}
.budget-chart{display:flex;align-items:stretch;gap:.5rem}.budget-y{position:relative;width:7.25rem;flex:none;height:120px}
.budget-tick{position:absolute;right:0;transform:translateY(-50%);font-size:.75em;color:#5f6368;white-space:nowrap}
.budget{flex:1;min-width:0;height:120px;display:block}.budget-axis{margin-left:7.75rem}`;

const MINUTE_MS = 60_000;

function cellTitle(c: TimelineCell, fromMs: number, toMs: number, esc: (s: string) => string): string {
  const span = `${new Date(fromMs).toISOString()} → ${new Date(toMs).toISOString()}`;
  const unobserved = Math.max(0, toMs - fromMs - c.upMs - c.downMs);
  const figures =
    c.outcome === 'none'
      ? 'not observed'
      : `${(c.upMs / MINUTE_MS).toFixed(2)} min up, ${(c.downMs / MINUTE_MS).toFixed(2)} min down` +
        (unobserved >= SHOWN_GAP * (toMs - fromMs) ? `, ${(unobserved / MINUTE_MS).toFixed(2)} min not observed` : '');
  return esc(`${span}: ${figures}${c.incident ? ' (incident)' : ''}`);
}

/** Share of a cell left unobserved from which the cell shows it (a rounding's worth is not). */
const SHOWN_GAP = 0.005;

const COLOUR = { up: '#34a853', down: '#ea4335', none: '#dadce0' } as const;

/**
 * A cell observed only in part is drawn in proportion: its up, down and unobserved time side by
 * side, so a probe that ran once in a 15-minute cell (or stopped within it) is not a green cell
 * of 15 minutes. Undefined for a cell observed whole or not at all (its class colours it).
 */
function partialStyle(c: TimelineCell, cellMs: number): string | undefined {
  const seen = c.upMs + c.downMs;
  if (c.outcome === 'none' || cellMs <= 0 || cellMs - seen < SHOWN_GAP * cellMs) return undefined;
  const pct = (ms: number): string => `${Math.min(100, (ms / cellMs) * 100).toFixed(2)}%`;
  const up = pct(c.upMs);
  const down = pct(c.upMs + c.downMs);
  return `background:linear-gradient(to right,${COLOUR.up} 0 ${up},${COLOUR.down} ${up} ${down},${COLOUR.none} ${down} 100%)`;
}

/** A round step near `x`: 1, 2 or 5 times a power of ten. */
function niceStep(x: number): number {
  const p = 10 ** Math.floor(Math.log10(x));
  return ([1, 2, 5, 10].find((m) => m * p >= x) ?? 10) * p;
}

/**
 * Y-axis ticks (shares of the budget) from 0 to `top`, always with 100 %, leaving out those
 * whose labels would overlap one kept (0 % gives way to 100 % when the budget is far overspent).
 */
function budgetTicks(top: number, y: (v: number) => number): number[] {
  const step = niceStep(top / 4);
  const kept = [1];
  for (let k = Math.floor((top * (1 + 1e-9)) / step); k >= 0; k--) {
    const v = Math.round(k * step * 1e9) / 1e9;
    if (kept.every((w) => Math.abs(y(v) - y(w)) >= MIN_TICK_GAP)) kept.push(v);
  }
  return kept.sort((a, b) => a - b);
}

/** Least distance between two y labels, in viewBox units (of 120: about a line of small text). */
const MIN_TICK_GAP = 12;

function percent(share: number): string {
  const p = share * 100;
  return `${Number.isInteger(Math.round(p * 10) / 10) ? p.toFixed(0) : p.toFixed(1)} %`;
}

const CHART_H = 120;

/**
 * The budget burned over the timeline: a line from 0 up to its share at each cell's end, 100 %
 * dashed, with a labelled y axis (HTML beside the SVG, as the SVG is stretched to the width
 * and text inside it would be too) and the times of its ends below.
 */
function budgetChart(t: Timeline, esc: (s: string) => string): string {
  const n = t.budgetBurned.length;
  if (n === 0) return '';
  const top = Math.max(1, ...t.budgetBurned);
  const y = (v: number): number => 110 - (v / top) * 100;
  const pts = [`0,${y(0).toFixed(1)}`, ...t.budgetBurned.map((v, i) => `${(((i + 1) / n) * 1000).toFixed(1)},${y(v).toFixed(1)}`)].join(' ');
  const last = t.budgetBurned[n - 1] as number;
  const ticks = budgetTicks(top, y);
  const grid = ticks
    .filter((v) => v !== 1)
    .map((v) => `<line class="budget-grid" x1="0" x2="1000" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#e0e0e0" vector-effect="non-scaling-stroke"/>`);
  const labels = ticks.map((v) => `<span class="budget-tick" data-share="${v}" style="top:${((y(v) / CHART_H) * 100).toFixed(3)}%">${esc(percent(v))}</span>`);
  const end = t.startMs + t.bucketMs * n;
  return (
    `<div class="budget-chart"><div class="budget-y" title="share of the window's error budget burned">${labels.join('')}</div>` +
    `<svg class="budget" viewBox="0 0 1000 ${CHART_H}" preserveAspectRatio="none" role="img" aria-label="error budget burned: ${(last * 100).toFixed(1)} % by the end of the window">` +
    grid.join('') +
    `<line class="budget-limit" x1="0" x2="1000" y1="${y(1).toFixed(1)}" y2="${y(1).toFixed(1)}" stroke="#a50e0e" stroke-dasharray="6 4" vector-effect="non-scaling-stroke"/>` +
    `<polyline class="budget-line" points="${pts}" fill="none" stroke="#1a73e8" stroke-width="2" vector-effect="non-scaling-stroke"/></svg></div>` +
    `<div class="tl-axis budget-axis"><span>${esc(new Date(t.startMs).toISOString())}</span><span>time (UTC)</span><span>${esc(new Date(end).toISOString())}</span></div>`
  );
}

/** The timeline section, its headings at level `h`. */
export function renderTimelineHtml(t: Timeline, esc: (s: string) => string, h: 'h2' | 'h3' = 'h2'): string {
  const rows = t.rows.map((r) => {
    const cells = r.cells.map((c, b) => {
      const from = t.startMs + b * t.bucketMs;
      const style = partialStyle(c, t.bucketMs);
      const observed = style === undefined ? '' : ` data-observed="${((c.upMs + c.downMs) / t.bucketMs).toFixed(4)}" style="${style}"`;
      return `<span class="cell ${c.outcome}${c.incident ? ' incident' : ''}"${observed} title="${cellTitle(c, from, from + t.bucketMs, esc)}"></span>`;
    });
    return `<div class="tl-row" data-series="${esc(r.name)}"><span class="tl-name">${esc(r.name)}</span><div class="tl-bar">${cells.join('')}</div></div>`;
  });
  const end = t.startMs + t.bucketMs * (t.rows[0]?.cells.length ?? 0);
  const burned = t.budgetBurned.at(-1) ?? 0;
  const minutes = t.bucketMs / MINUTE_MS;
  const cell = minutes >= 120 ? `${(minutes / 60).toFixed(1)} h` : `${minutes.toFixed(1)} min`;
  // Cells sized to the data: say where it starts when that is after the window's start, naming
  // the first record's time (the first cell may begin a little before it).
  const first = t.firstRecordMs ?? t.startMs;
  const span =
    t.startMs > t.windowStartMs
      ? ` No records before ${esc(new Date(first).toISOString())}, the first in the window: the timeline starts at ${esc(new Date(t.startMs).toISOString())} (the window began ${esc(new Date(t.windowStartMs).toISOString())}).`
      : '';
  return [
    `<${h}>Timeline</${h}>`,
    `<p class="muted legend"><span><i style="background:#34a853"></i>up</span><span><i style="background:#fbbc04"></i>partly down</span>` +
      `<span><i style="background:#ea4335"></i>down</span><span><i style="background:#dadce0"></i>not observed</span>` +
      `<span><i style="background:#fff;box-shadow:inset 0 -4px 0 #5f0000"></i>incident</span> Each cell is ${esc(cell)}.${span}</p>`,
    `<div class="tl">${rows.join('')}</div>`,
    `<div class="tl-axis"><span>${esc(new Date(t.startMs).toISOString())}</span><span>${esc(new Date(end).toISOString())}</span></div>`,
    `<${h}>Error budget burned</${h}><p class="muted">Overall downtime so far against the window's allowed downtime (y axis: share of the budget; dashed: all of it). ` +
      `${esc((burned * 100).toFixed(1))} % burned by the end of the window.</p>`,
    budgetChart(t, esc),
  ].join('\n');
}
