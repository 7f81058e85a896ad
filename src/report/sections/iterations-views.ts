/**
 * The views of `iterations`: journeys' iterations and how they ended, their duration and each
 * named step's (`steps`, shown here), and why they failed.
 */
import { fmtDuration } from '../format.js';
import { esc, section, table } from '../html-parts.js';
import { mdPlain as plain, mdTable } from '../markdown-kit.js';
import type { Report } from '../model.js';
import type { SectionViews } from './view-kit.js';

function summaryIterations(r: Report): string[] {
  const it = r.iterations;
  if (it === undefined) return [];
  return [
    `iterations  ${it.started} started, ${it.completed} completed, ${it.failed} failed, ${it.interrupted} interrupted, ${it.dropped} dropped; ` +
      `duration p50 ${fmtDuration(it.durationMs.p50)} p95 ${fmtDuration(it.durationMs.p95)} p99 ${fmtDuration(it.durationMs.p99)}`,
    ...it.errors.map((e) => `  failed ×${e.count}: ${e.message}`),
  ];
}

function markdownIterations(r: Report): string[] {
  const it = r.iterations;
  if (it === undefined) return [];
  const durations = [['iteration', it.durationMs] as const, ...Object.entries(r.steps ?? {}).map(([n, p]) => [`step ${plain(n)}`, p] as const)];
  return [
    '## Iterations',
    '',
    `${it.started} started, ${it.completed} completed, ${it.failed} failed, ${it.interrupted} interrupted, ${it.dropped} dropped.`,
    '',
    mdTable(['duration', 'p50', 'p95', 'p99', 'max'], durations.map(([n, p]) => [n, fmtDuration(p.p50), fmtDuration(p.p95), fmtDuration(p.p99), fmtDuration(p.max)]), [1, 2, 3, 4]),
    ...(it.errors.length > 0 ? ['', mdTable(['failure', 'count'], it.errors.map((e) => [plain(e.message), String(e.count)]), [1])] : []),
  ];
}

function htmlIterations(r: Report): string {
  const it = r.iterations;
  if (it === undefined) return '';
  const durations = [['iteration', it.durationMs] as const, ...Object.entries(r.steps ?? {}).map(([n, p]) => [`step ${n}`, p] as const)];
  return section('iterations', 'Iterations', [
    `<p>${esc(`${it.started} started, ${it.completed} completed, ${it.failed} failed, ${it.interrupted} interrupted, ${it.dropped} dropped.`)}</p>`,
    table(['duration', 'p50', 'p95', 'p99', 'max'], durations.map(([n, p]) => [n, fmtDuration(p.p50), fmtDuration(p.p95), fmtDuration(p.p99), fmtDuration(p.max)]), [1, 2, 3, 4]),
    ...(it.errors.length > 0 ? [table(['failure', 'count'], it.errors.map((e) => [e.message, String(e.count)]), [1])] : []),
  ]);
}

/** The views of `iterations` (with `steps`). */
export const iterationsViews: SectionViews = {
  summary: { iterations: summaryIterations },
  markdown: { iterations: markdownIterations },
  html: { iterations: htmlIterations },
};
