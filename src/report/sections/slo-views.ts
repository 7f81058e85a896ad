/** The views of `slo`: availability against the objective, its events and the error budget. */
import { fmtAvailability, fmtNumber, fmtRatio, fmtShare } from '../format.js';
import { bar, chart, facts, section } from '../html-parts.js';
import type { HtmlChartData } from '../html-data.js';
import type { Report } from '../model.js';
import type { SectionViews, SummaryContext } from './view-kit.js';

function summarySlo(r: Report, { paint }: SummaryContext): string[] {
  const slo = r.slo;
  const availability = fmtAvailability(slo);
  const avail = slo.availability === null ? '—' : paint(availability.met ? 'green' : 'red', availability.text);
  return [`slo     availability ${avail} (objective ${fmtRatio(slo.objective)}), budget consumed ${fmtShare(slo.errorBudgetConsumed)}, burn rate ${fmtNumber(slo.burnRate)}`];
}

function markdownAvailability(r: Report): string[] {
  const s = r.slo;
  const { text, met } = fmtAvailability(s);
  return [
    `**Availability ${text}** against an objective of ${fmtRatio(s.objective)} ` +
      `(${s.availability === null ? 'nothing to judge' : met ? 'met' : 'missed'}); ` +
      `error budget consumed ${fmtShare(s.errorBudgetConsumed)}, burn rate ${fmtNumber(s.burnRate)}. ` +
      `Events: ${s.good} good, ${s.bad} bad, ${s.excluded} excluded (${s.allowedBadEvents} bad allowed).`,
  ];
}

/** Availability, events and the error budget, with the budget spent over time. */
function htmlSlo(r: Report, data: HtmlChartData): string {
  const s = r.slo;
  const consumed = s.errorBudgetConsumed;
  const body = [
    facts([
      ['availability', `${fmtAvailability(s).text} (objective ${fmtRatio(s.objective)})`],
      ['events', `${s.good} good, ${s.bad} bad, ${s.excluded} excluded`],
      ['bad events allowed', `${s.allowedBadEvents} of ${s.good + s.bad} (${fmtRatio(1 - s.objective)})`],
      ['error budget consumed', bar(consumed, `${fmtShare(consumed)}${consumed > 1 ? ' — over budget' : ''}`, consumed > 1 ? 'bad' : 'neutral')],
      ['burn rate', fmtNumber(s.burnRate)],
    ]),
  ];
  if (data.budget !== null) {
    body.push(
      `<div class="charts wide">${chart('chart-budget', 'Error budget consumed over time', 'Bad events so far ÷ the bad events the objective allows over the whole run; the line ends at the budget this run consumed.')}</div>`,
    );
  }
  return section('slo', 'SLO and error budget', body);
}

/** The views of `slo`. */
export const sloViews: SectionViews = {
  summary: { slo: summarySlo },
  markdown: { availability: markdownAvailability },
  html: { slo: htmlSlo },
};
