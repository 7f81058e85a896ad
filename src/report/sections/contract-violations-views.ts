/** The views of `contractViolations`: what the service sent that the interface does not allow. */
import { code, p, section, table } from '../html-parts.js';
import { mdCell as cell, mdPlain as plain, mdTable } from '../markdown-kit.js';
import type { Report } from '../model.js';
import type { SectionViews } from './view-kit.js';

function markdownViolations(r: Report): string[] {
  const t = r.contractViolationTotals;
  if (t.total === 0) return ['## Contract violations', '', 'None.'];
  const out = [
    '## Contract violations',
    '',
    mdTable(
      ['op', 'path', 'expected', 'got', 'count'],
      r.contractViolations.map((v) => [`\`${v.op}\``, `\`${cell(v.path)}\``, plain(v.expected), plain(v.got), String(v.count)]),
      [4],
    ),
  ];
  if (t.droppedDistinct > 0) out.push('', `${t.droppedDistinct} more distinct violations (${t.droppedCount} occurrences) were not listed.`);
  return out;
}

function htmlViolations(r: Report): string {
  const totals = r.contractViolationTotals ?? { total: r.contractViolations.reduce((n, v) => n + v.count, 0), droppedDistinct: 0, droppedCount: 0 };
  if (totals.total === 0) return section('contract', 'Contract violations', [p('None: every response matched the interface.', 'empty')]);
  const body = [table(['op', 'path', 'expected', 'got', 'count'], r.contractViolations.map((v) => [code(v.op), code(v.path), v.expected, code(v.got), String(v.count)]), [4])];
  if (totals.droppedDistinct > 0) body.push(p(`${totals.droppedDistinct} more distinct violations (${totals.droppedCount} occurrences) were not listed.`));
  return section('contract', 'Contract violations', body);
}

/** The views of `contractViolations` (with their totals). */
export const violationsViews: SectionViews = {
  summary: { contract: (r) => (r.contractViolationTotals.total > 0 ? [`contract violations: ${r.contractViolationTotals.total}`] : []) },
  markdown: { contract: markdownViolations },
  html: { contract: htmlViolations },
};
