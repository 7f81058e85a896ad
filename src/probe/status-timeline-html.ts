/**
 * The timeline of the status page as HTML: one bar per series, a cell per time bucket coloured
 * by outcome (up, partly down, down, not observed), cells of an incident marked, and the error
 * budget burned over the window as an inline SVG line. No scripts: every cell carries its
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
.budget{width:100%;height:120px;display:block}`;

const MINUTE_MS = 60_000;

function cellTitle(c: TimelineCell, fromMs: number, toMs: number, esc: (s: string) => string): string {
  const span = `${new Date(fromMs).toISOString()} → ${new Date(toMs).toISOString()}`;
  const figures = c.outcome === 'none' ? 'not observed' : `${(c.upMs / MINUTE_MS).toFixed(2)} min up, ${(c.downMs / MINUTE_MS).toFixed(2)} min down`;
  return esc(`${span}: ${figures}${c.incident ? ' (incident)' : ''}`);
}

/** The budget burned over the window: a line from 0 up to its share at each bucket's end, 100 % marked. */
function budgetSvg(t: Timeline): string {
  const n = t.budgetBurned.length;
  if (n === 0) return '';
  const top = Math.max(1, ...t.budgetBurned);
  const y = (v: number): number => 110 - (v / top) * 100;
  const pts = [`0,${y(0).toFixed(1)}`, ...t.budgetBurned.map((v, i) => `${(((i + 1) / n) * 1000).toFixed(1)},${y(v).toFixed(1)}`)].join(' ');
  const last = t.budgetBurned[n - 1] as number;
  return (
    `<svg class="budget" viewBox="0 0 1000 120" preserveAspectRatio="none" role="img" aria-label="error budget burned: ${(last * 100).toFixed(1)} % by the end of the window">` +
    `<line class="budget-limit" x1="0" x2="1000" y1="${y(1).toFixed(1)}" y2="${y(1).toFixed(1)}" stroke="#a50e0e" stroke-dasharray="6 4" vector-effect="non-scaling-stroke"/>` +
    `<polyline class="budget-line" points="${pts}" fill="none" stroke="#1a73e8" stroke-width="2" vector-effect="non-scaling-stroke"/></svg>`
  );
}

/** The timeline section. */
export function renderTimelineHtml(t: Timeline, esc: (s: string) => string): string {
  const rows = t.rows.map((r) => {
    const cells = r.cells.map((c, b) => {
      const from = t.startMs + b * t.bucketMs;
      return `<span class="cell ${c.outcome}${c.incident ? ' incident' : ''}" title="${cellTitle(c, from, from + t.bucketMs, esc)}"></span>`;
    });
    return `<div class="tl-row" data-series="${esc(r.name)}"><span class="tl-name">${esc(r.name)}</span><div class="tl-bar">${cells.join('')}</div></div>`;
  });
  const end = t.startMs + t.bucketMs * (t.rows[0]?.cells.length ?? 0);
  const burned = t.budgetBurned.at(-1) ?? 0;
  return [
    '<h2>Timeline</h2>',
    `<p class="muted legend"><span><i style="background:#34a853"></i>up</span><span><i style="background:#fbbc04"></i>partly down</span>` +
      `<span><i style="background:#ea4335"></i>down</span><span><i style="background:#dadce0"></i>not observed</span>` +
      `<span><i style="background:#fff;box-shadow:inset 0 -4px 0 #5f0000"></i>incident</span> Each cell is ${esc((t.bucketMs / MINUTE_MS).toFixed(1))} min.</p>`,
    `<div class="tl">${rows.join('')}</div>`,
    `<div class="tl-axis"><span>${esc(new Date(t.startMs).toISOString())}</span><span>${esc(new Date(end).toISOString())}</span></div>`,
    `<h2>Error budget burned</h2><p class="muted">Overall downtime so far against the window's allowed downtime (dashed: all of it). ` +
      `${esc((burned * 100).toFixed(1))} % burned by the end of the window.</p>`,
    budgetSvg(t),
  ].join('\n');
}
