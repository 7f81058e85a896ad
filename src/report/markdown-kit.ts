/**
 * The Markdown building blocks every `.md` flowgauge writes shares (report.md, conformance.md):
 * one escape for text inside a table cell's code span, one for text a target or a file chose,
 * one table writer, and the row of a table of percentiles.
 */
import type { Pct } from '../collect/histogram.js';
import { fmtDuration } from './format.js';

/** Escapes text for a Markdown table cell inside a code span (user data: paths, names). */
export function mdCell(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ').replace(/`/g, "'");
}

/**
 * Escapes text that came from the target or a report file for plain Markdown: no HTML (a
 * hostile target must not forge a heading in a pull-request comment), no emphasis, links or
 * headings, no table breaks.
 */
export function mdPlain(s: string): string {
  return mdCell(s)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[*_[\]#!~]/g, (c) => `\\${c}`);
}

/** A Markdown table; columns listed in `right` are right-aligned. Cells must be escaped already. */
export function mdTable(head: readonly string[], rows: readonly (readonly string[])[], right: readonly number[] = []): string {
  const align = head.map((_, i) => (right.includes(i) ? '---:' : '---'));
  return [head, align, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

/** A row of a percentiles table: name, count, p50, p90, p95, p99, p99.9, max, mean. */
export function mdPctRow(name: string, p: Pct, fmt: (n: number) => string = fmtDuration): string[] {
  return [name, String(p.count), fmt(p.p50), fmt(p.p90), fmt(p.p95), fmt(p.p99), fmt(p.p999), fmt(p.max), fmt(p.mean)];
}
