/** The views of `asyncRuns`: runs that answered `running`, and triggers, followed to their end by polling. */
import { fmtDuration, fmtNumber } from '../format.js';
import { badge, facts, PCT_HEAD, PCT_NUMERIC, pctRow, section, table, type Cell } from '../html-parts.js';
import { mdPctRow, mdTable } from '../markdown-kit.js';
import type { Report } from '../model.js';
import type { SectionViews } from './view-kit.js';

function summaryAsyncRuns(r: Report): string[] {
  const a = r.asyncRuns;
  if (a === undefined || a.followed.run + a.followed.trigger === 0) return [];
  return [
    `async   ${a.followed.run + a.followed.trigger} followed (${a.followed.run} runs, ${a.followed.trigger} triggers); ` +
      `completion p50 ${fmtDuration(a.timeToCompletionMs.p50)} p99 ${fmtDuration(a.timeToCompletionMs.p99)}, ` +
      `${fmtNumber(a.pollsPerRun.mean)} polls each, bias ~${fmtDuration(a.meanBiasMs)}`,
  ];
}

function markdownAsyncRuns(r: Report): string[] {
  const a = r.asyncRuns;
  if (a === undefined) return [];
  const f = a.final;
  const p = a.progress;
  const range = p.min === null ? 'no progress values seen' : `progress seen from ${fmtNumber(p.min)} to ${fmtNumber(p.max)}`;
  const out = [
    '## Asynchronous runs',
    '',
    `- Followed ${a.followed.run} runs and ${a.followed.trigger} triggers by polling every ${fmtDuration(a.pollIntervalMs)} ` +
      `(completion is seen up to one interval late: mean bias ${fmtDuration(a.meanBiasMs)}); not followed: ${a.notFollowed.cap} over the cap, ${a.notFollowed.stopped} after the stop`,
    `- Ended: ${f.completed} completed, ${f.failed} failed, ${f.timeout} timed out, ${f.abandoned} abandoned, ${f.error} unreadable`,
    `- ${a.polls.total} polls (per finished run: mean ${fmtNumber(a.pollsPerRun.mean)}, max ${a.pollsPerRun.max}); ${range}` +
      `${p.atCompletion.min === null ? '' : ` (at completion ${fmtNumber(p.atCompletion.min)}–${fmtNumber(p.atCompletion.max)})`}; ` +
      `${p.monotonic ? 'progress never went down' : `**progress went down ${p.decreases} times in ${p.runsWithDecrease} runs**`}` +
      `${p.outside0to100 > 0 ? `; ${p.outside0to100} values outside 0–100` : ''}${p.nonInteger > 0 ? `; ${p.nonInteger} not integers` : ''}`,
    `- Triggers: ${a.triggers.completedByPolling} seen finishing by polling, ${a.triggers.completedByNotification} by notification`,
  ];
  const rows: string[][] = [];
  if (a.timeToCompletionMs.count > 0) rows.push(mdPctRow('time to completion (polled)', a.timeToCompletionMs));
  if (a.triggers.timeToCompletionMs.count > 0) rows.push(mdPctRow('trigger to completion', a.triggers.timeToCompletionMs));
  if (rows.length > 0) out.push('', mdTable(['measure', 'count', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'max', 'mean'], rows, [1, 2, 3, 4, 5, 6, 7, 8]));
  return out;
}

function htmlAsyncRuns(r: Report): string {
  const a = r.asyncRuns;
  if (a === undefined) return '';
  const f = a.final;
  const pr = a.progress;
  const progress =
    pr.min === null
      ? 'no progress values seen'
      : `${fmtNumber(pr.min)} to ${fmtNumber(pr.max)}; ${pr.monotonic ? 'never went down' : `went down ${pr.decreases} times in ${pr.runsWithDecrease} runs`}` +
        `${pr.outside0to100 > 0 ? `; ${pr.outside0to100} outside 0–100` : ''}${pr.nonInteger > 0 ? `; ${pr.nonInteger} not integers` : ''}`;
  const body = [
    facts([
      ['followed', `${a.followed.run} runs, ${a.followed.trigger} triggers (not followed: ${a.notFollowed.cap} over the cap, ${a.notFollowed.stopped} after the stop)`],
      ['poll interval', `${fmtDuration(a.pollIntervalMs)} (completion is seen up to one interval late; mean bias ${fmtDuration(a.meanBiasMs)})`],
      ['ended', `${f.completed} completed, ${f.failed} failed, ${f.timeout} timed out, ${f.abandoned} abandoned, ${f.error} unreadable`],
      ['polls', `${a.polls.total} (per finished run: mean ${fmtNumber(a.pollsPerRun.mean)}, max ${a.pollsPerRun.max})`],
      ['progress', pr.monotonic || pr.min === null ? progress : badge(false, progress)],
      ['triggers finished', `${a.triggers.completedByPolling} seen by polling, ${a.triggers.completedByNotification} by notification`],
    ]),
  ];
  const rows: Cell[][] = [];
  if (a.timeToCompletionMs.count > 0) rows.push(pctRow('time to completion (polled)', a.timeToCompletionMs));
  if (a.triggers.timeToCompletionMs.count > 0) rows.push(pctRow('trigger to completion', a.triggers.timeToCompletionMs));
  if (rows.length > 0) body.push(table(PCT_HEAD, rows, PCT_NUMERIC));
  return section('async', 'Asynchronous runs', body);
}

/** The views of `asyncRuns` (a section only runs that followed anything have). */
export const asyncRunsViews: SectionViews = {
  summary: { asyncRuns: summaryAsyncRuns },
  markdown: { asyncRuns: markdownAsyncRuns },
  html: { asyncRuns: htmlAsyncRuns },
};
