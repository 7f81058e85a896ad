/**
 * The end-of-run terminal summary: one screen with the figures a release engineer looks at.
 * Each section writes its own lines (`sections/<name>-views.ts`); this puts them in the order of
 * `SUMMARY_LAYOUT` and colours them. Returns a string; printing it is the CLI's job.
 */
import type { Report } from './model.js';
import { viewsAt } from './sections/section-list.js';
import { SUMMARY_LAYOUT, type Paint, type SummaryContext } from './sections/view-kit.js';

/** Options of `renderSummary`. */
export interface SummaryOptions {
  /** ANSI colours (green/red verdicts, dim headers). Default false. */
  readonly color?: boolean;
  /** This process ran one shard (1-based index) of several: the figures are its share only. */
  readonly shard?: { readonly index: number; readonly count: number };
}

const ANSI = { green: '\x1b[32m', red: '\x1b[31m', dim: '\x1b[2m', bold: '\x1b[1m', reset: '\x1b[0m' } as const;

/** Renders the summary. */
export function renderSummary(report: Report, options: SummaryOptions = {}): string {
  const paint: Paint = (code, s) => (options.color === true ? `${ANSI[code]}${s}${ANSI.reset}` : s);
  const context: SummaryContext = { paint, shard: options.shard };
  const lines: string[] = [];
  for (const group of SUMMARY_LAYOUT) {
    const own = group.places.flatMap((place) => viewsAt('summary', place).flatMap((view) => view(report, context)));
    if (own.length === 0) continue;
    const apart = 'apart' in group ? group.apart : undefined;
    if (apart === 'before' && lines[lines.length - 1] !== '') lines.push('');
    lines.push(...own);
    if (apart === 'after' && own[own.length - 1] !== '') lines.push('');
  }
  return `${lines.join('\n')}\n`;
}
