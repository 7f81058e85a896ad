/**
 * Small HTML building blocks of report.html. Every piece of text goes through `esc`: a report
 * carries strings the service chose (error codes, contract-violation values, Reset headers),
 * and the page must show them, never run them.
 */
import type { Pct } from '../collect/histogram.js';
import { escapeHtml } from '../core/html-escape.js';
import { fmtDuration, fmtNumber } from './format.js';
import type { HtmlChartData } from './html-data.js';

/**
 * Escapes text for HTML content and attribute values. `://` is written `&#58;//` as well, so
 * the page holds no URL-looking text (the target's address is shown, never linked or fetched).
 */
export function esc(s: string): string {
  return escapeHtml(s).replace(/:\/\//g, '&#58;//');
}

/**
 * Serialises `value` for a `<script type="application/json">` block: `<`, `>` and `&` as
 * unicode escapes, so no string in it can close the block, and U+2028/2029 escaped too.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** A cell: plain text (escaped) or markup already built from escaped parts. */
export type Cell = string | { readonly html: string };

const cellHtml = (c: Cell): string => (typeof c === 'string' ? esc(c) : c.html);

/** A table; columns listed in `numeric` are right-aligned. */
export function table(head: readonly string[], rows: readonly (readonly Cell[])[], numeric: readonly number[] = []): string {
  const cls = (i: number): string => (numeric.includes(i) ? ' class="num"' : '');
  const th = head.map((h, i) => `<th${cls(i)}>${esc(h)}</th>`).join('');
  const body = rows.map((r) => `<tr>${r.map((c, i) => `<td${cls(i)}>${cellHtml(c)}</td>`).join('')}</tr>`).join('\n');
  return `<table>\n<thead><tr>${th}</tr></thead>\n<tbody>\n${body}\n</tbody>\n</table>`;
}

/** Inline code. */
export function code(s: string): Cell {
  return { html: `<code>${esc(s)}</code>` };
}

/** A pass/fail badge. */
export function badge(passed: boolean, text = passed ? 'pass' : 'fail'): Cell {
  return { html: `<span class="badge ${passed ? 'pass' : 'fail'}">${esc(text)}</span>` };
}

/** A horizontal bar of `share` (0–1; clamped) with a label, for counts in a table. */
export function bar(share: number, label: string, tone: 'bad' | 'neutral' = 'neutral'): Cell {
  const pct = Math.max(0, Math.min(1, Number.isFinite(share) ? share : 0)) * 100;
  return {
    html: `<span class="bar ${tone}"><span style="width:${pct.toFixed(1)}%"></span></span> ${esc(label)}`,
  };
}

/** A section with a heading and an anchor. */
export function section(id: string, title: string, body: readonly string[]): string {
  return `<section id="${esc(id)}">\n<h2>${esc(title)}</h2>\n${body.join('\n')}\n</section>`;
}

/** A paragraph of plain text. */
export function p(text: string, cls?: string): string {
  return `<p${cls === undefined ? '' : ` class="${esc(cls)}"`}>${esc(text)}</p>`;
}

/** A definition list of label → value (both text). */
export function facts(rows: readonly (readonly [string, Cell])[]): string {
  return `<dl class="facts">${rows.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${cellHtml(v)}</dd>`).join('')}</dl>`;
}

/** A placeholder for a chart drawn by the page's script from the embedded data. */
export function chart(id: string, title: string, caption: string): string {
  return (
    `<figure class="chart"><figcaption>${esc(title)}</figcaption>` +
    `<div class="plot" id="${esc(id)}"></div><p class="caption">${esc(caption)}</p></figure>`
  );
}

/**
 * The opening of every page flowgauge writes, up to `<main>`: one place for the charset, the
 * Content-Security-Policy (scripts only by hash, nothing fetched), the viewport and the title.
 * `css` must already be safe to inline.
 */
export function pageHead(o: { readonly csp: string; readonly title: string; readonly css: string }): string[] {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${esc(o.csp)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(o.title)}</title>`,
    `<style>${o.css}</style>`,
    '</head>',
    '<body>',
    '<main>',
  ];
}

/** A row of a percentiles table: label, count, p50, p90, p95, p99, p99.9, max, mean. */
export function pctRow(label: string, x: Pct): Cell[] {
  return [label, String(x.count), ...[x.p50, x.p90, x.p95, x.p99, x.p999, x.max, x.mean].map((v) => fmtDuration(v))];
}

/** The head of a `pctRow` table, and its numeric columns. */
export const PCT_HEAD = ['measure', 'count', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'max', 'mean'];
export const PCT_NUMERIC = [1, 2, 3, 4, 5, 6, 7, 8];

/** What the shaded end of a time chart is, when the schedule ended inside its last step. */
export function partialCaption(data: HtmlChartData, what: 'rate' | 'latency'): string {
  const x = data.partial;
  if (x === null) return '';
  const held = `The last point holds the schedule's final ${fmtNumber(Math.round((x.toS - x.fromS) * 1000) / 1000)} s (shaded)`;
  return what === 'rate' ? ` ${held}: its rates are per second of that part.` : ` ${held}: fewer requests than the others.`;
}
