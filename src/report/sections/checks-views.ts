/** The views of `checks`: each check's passes and failures, and what a failed one expected and saw. */
import { fmtNumber } from '../format.js';
import { esc, section, table } from '../html-parts.js';
import { mdPlain as plain, mdTable } from '../markdown-kit.js';
import type { Report } from '../model.js';
import type { SectionViews } from './view-kit.js';

/** Example text on one line with no control characters (it may have come from the server). */
const oneLine = (s: string): string => s.replace(/\r?\n/g, '⏎').replace(/[\u0000-\u001f\u007f-\u009f]/g, '�');

/** Rows of failed checks' examples: [check, expected, actual]. */
const exampleRows = (r: Report): string[][] =>
  Object.entries(r.checks ?? {}).flatMap(([name, c]) => (c.examples ?? []).map((e) => [name, oneLine(e.expected), oneLine(e.actual)]));

const checkShare = (c: { passes: number; fails: number }): string => {
  const all = c.passes + c.fails;
  return all === 0 ? '–' : `${fmtNumber(Math.round((c.passes / all) * 1000) / 10)} %`;
};

function summaryChecks(r: Report): string[] {
  return Object.entries(r.checks ?? {}).flatMap(([name, c]) => [
    `${c.fails === 0 ? '✓' : '✗'} check ${name}: ${c.passes} passed, ${c.fails} failed (${checkShare(c)})`,
    ...(c.examples ?? []).map((e) => `    expected: ${oneLine(e.expected)} · actual: ${oneLine(e.actual)}`),
  ]);
}

function markdownChecks(r: Report): string[] {
  const checks = Object.entries(r.checks ?? {});
  if (checks.length === 0) return [];
  const examples = exampleRows(r);
  return [
    '## Checks',
    '',
    mdTable(['check', 'passed', 'failed', 'pass rate'], checks.map(([n, c]) => [plain(n), String(c.passes), String(c.fails), checkShare(c)]), [1, 2, 3]),
    ...(examples.length > 0 ? ['', 'Failed checks, what was expected and what was seen:', '', mdTable(['check', 'expected', 'actual'], examples.map((row) => row.map(plain)))] : []),
  ];
}

function htmlChecks(r: Report): string {
  const checks = Object.entries(r.checks ?? {});
  if (checks.length === 0) return '';
  const examples = exampleRows(r);
  return section('checks', 'Checks', [
    table(['check', 'passed', 'failed', 'pass rate'], checks.map(([n, c]) => [n, String(c.passes), String(c.fails), checkShare(c)]), [1, 2, 3]),
    ...(examples.length > 0 ? [`<p>${esc('Failed checks, what was expected and what was seen:')}</p>`, table(['check', 'expected', 'actual'], examples)] : []),
  ]);
}

/** The views of `checks`. */
export const checksViews: SectionViews = {
  summary: { checks: summaryChecks },
  markdown: { checks: markdownChecks },
  html: { checks: htmlChecks },
};
