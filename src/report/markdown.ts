/**
 * The Markdown report: verdict first (what a reader needs to decide), details after. Each
 * section writes its own blocks (`sections/<name>-views.ts`); this puts them in the order of
 * `MARKDOWN_LAYOUT`. Returns a string; writing it is the CLI's job.
 */
import type { Report } from './model.js';
import { viewsAt } from './sections/section-list.js';
import { MARKDOWN_LAYOUT } from './sections/view-kit.js';

/** Renders the report as Markdown. */
export function renderMarkdown(report: Report): string {
  const blocks = MARKDOWN_LAYOUT.flatMap((place) => viewsAt('markdown', place).map((view) => view(report))).filter((b) => b.length > 0);
  return `${blocks.map((b) => b.join('\n')).join('\n\n')}\n`;
}
