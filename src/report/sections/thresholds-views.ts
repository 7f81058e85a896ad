/**
 * The views of `thresholds` (each threshold, its limit and what was observed) and of `verdict`
 * (the headline every document opens with: PASS, FAIL, INTERRUPTED, ABORTED or PARTIAL).
 */
import { clientLagNote } from '../client-lag.js';
import { fmtAvailability, fmtRatio, fmtShare, fmtThresholdValue } from '../format.js';
import { headlineOf } from '../headline.js';
import { badge, code, p, section, table } from '../html-parts.js';
import { mdCell as cell, mdTable } from '../markdown-kit.js';
import type { Report } from '../model.js';
import { grid } from '../summary-kit.js';
import type { SectionViews, SummaryContext } from './view-kit.js';

function summaryThresholds(r: Report, { paint }: SummaryContext): string[] {
  if (r.thresholds.length === 0) return [];
  const defaults = r.thresholds.every((t) => t.implicit === true);
  const rows = r.thresholds.map((t) => [
    `${t.passed ? paint('green', '✓') : paint('red', '✗')} ${t.metric}`,
    `${t.op} ${fmtThresholdValue(t.metric, t.value)}`,
    fmtThresholdValue(t.metric, t.observed),
  ]);
  return [paint('dim', defaults ? 'thresholds (the defaults: the scenario sets none; thresholds: {} turns them off)' : 'thresholds'), ...grid(rows).map((l, i) => `  ${l}${clientLagNote(r.thresholds[i] ?? {})}`)];
}

function markdownThresholds(r: Report): string[] {
  if (r.thresholds.length === 0) return ['No thresholds were set.'];
  return [
    `${r.thresholds.filter((t) => t.passed).length} of ${r.thresholds.length} thresholds passed.`,
    '',
    mdTable(
      ['threshold', 'limit', 'observed', 'result'],
      r.thresholds.map((t) => [`\`${cell(t.metric)}\``, `${t.op} ${fmtThresholdValue(t.metric, t.value)}`, fmtThresholdValue(t.metric, t.observed) + clientLagNote(t), t.passed ? '✅ pass' : '❌ fail']),
    ),
  ];
}

function htmlThresholds(r: Report): string {
  if (r.thresholds.length === 0) return section('thresholds', 'Thresholds', [p('No thresholds were set for this run.', 'empty')]);
  return section('thresholds', 'Thresholds', [
    table(
      ['threshold', 'limit', 'observed', 'result'],
      r.thresholds.map((t) => [code(t.metric), `${t.op} ${fmtThresholdValue(t.metric, t.value)}`, fmtThresholdValue(t.metric, t.observed) + clientLagNote(t), badge(t.passed)]),
      [1, 2],
    ),
  ]);
}

/** The views of `thresholds`. */
export const thresholdsViews: SectionViews = {
  summary: { thresholds: summaryThresholds },
  markdown: { thresholds: markdownThresholds },
  html: { thresholds: htmlThresholds },
};

function markdownHeadline(r: Report): string[] {
  const headline = headlineOf(r);
  const icon = { PASS: '✅', FAIL: '❌', INTERRUPTED: '⏹️', ABORTED: '🛑', PARTIAL: '🧩' }[headline.word];
  return [`## ${icon} ${headline.word}`, ...headline.notes.flatMap((n) => ['', `> ${cell(n)}`])];
}

/** Verdict, thresholds passed, availability against the objective. */
function htmlVerdict(r: Report): string {
  const passedN = r.thresholds.filter((t) => t.passed).length;
  const s = r.slo;
  const { text, met } = fmtAvailability(s);
  const lines = [
    r.thresholds.length === 0 ? 'No thresholds were set.' : `${passedN} of ${r.thresholds.length} thresholds passed.`,
    `Availability ${text} against the ${fmtRatio(s.objective)} objective: ` +
      `${s.availability === null ? 'nothing to judge' : met ? 'met' : 'missed'}; ` +
      `error budget consumed ${fmtShare(s.errorBudgetConsumed)}.`,
  ];
  const headline = headlineOf(r);
  const notes = headline.notes.map((n) => p(n, 'note'));
  return [
    `<div class="verdict ${headline.word === 'PASS' ? 'pass' : 'fail'}" id="verdict">`,
    `<div class="word">${headline.word}</div>`,
    `<div>${lines.map((l) => p(l)).join('')}</div>`,
    '</div>',
    ...notes,
  ].join('\n');
}

/** The views of `verdict`: the headline (the console's is on the run's first line). */
export const verdictViews: SectionViews = {
  markdown: { headline: markdownHeadline },
  html: { verdict: htmlVerdict },
};
