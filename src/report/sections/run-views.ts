/**
 * The run's views: what ran, against what, when, and the load it sent. The console's first line
 * (with the verdict), report.md's title and Run section, report.html's title and the line under it.
 */
import { fmtCut, fmtDuration, fmtJoinedLate, fmtNumber, fmtShards } from '../format.js';
import { headlineOf } from '../headline.js';
import { esc } from '../html-parts.js';
import { mdCell as cell, mdPlain as plain } from '../markdown-kit.js';
import type { Report } from '../model.js';
import type { SectionViews, SummaryContext } from './view-kit.js';

const shardTag = (s: { readonly index: number; readonly count: number } | undefined): string => (s === undefined ? '' : ` (shard ${s.index}/${s.count})`);

/** The console's first line: the verdict and the load, then the headline's notes. */
function summaryHead(r: Report, { paint, shard }: SummaryContext): string[] {
  const head = headlineOf(r);
  const verdict = head.word === 'PASS' ? paint('green', 'PASS') : paint('red', head.word);
  const joined = fmtJoinedLate(r.load, r.shards !== undefined);
  return [
    `${paint('bold', 'flowgauge')} ${r.scenario}${shardTag(shard ?? r.shard)}: ${verdict} ` +
      `in ${fmtNumber(r.durationS)} s, ${r.load.started} started, ${r.load.dropped} dropped, ` +
      `${joined === undefined ? '' : `${joined}, `}` +
      `${(r.load.cancelled ?? 0) > 0 ? `${r.load.cancelled} cancelled by the stop, ` : ''}` +
      `${fmtNumber(r.load.achievedRatePerS)}/s`,
    ...head.notes.map((n) => paint(head.word === 'PASS' ? 'bold' : 'red', n)),
  ];
}

function markdownRun(r: Report): string[] {
  const l = r.load;
  const joined = fmtJoinedLate(l, r.shards !== undefined);
  const shards = fmtShards(r);
  return [
    '## Run',
    '',
    `- Target: ${plain(r.target.baseUrl)}${r.target.embedded ? ' (embedded reference service)' : ''}`,
    `- From ${r.startedAt} to ${r.endedAt} (${fmtNumber(r.durationS)} s)`,
    ...(shards === undefined ? [] : [`- ${plain(shards)}`]),
    `- Executor \`${cell(l.executor)}\`: target ${l.targetRatePerS === null ? '—' : `${fmtNumber(l.targetRatePerS)}/s`}, ` +
      `achieved ${fmtNumber(l.achievedRatePerS)}/s; ${l.started} started, ${l.dropped} dropped` +
      `${joined === undefined ? '' : `, ${joined}`}`,
    `- Schedule lag: p50 ${fmtDuration(l.scheduleLagMs.p50)}, p99 ${fmtDuration(l.scheduleLagMs.p99)}, max ${fmtDuration(l.scheduleLagMs.max)}`,
    ...(fmtCut(l) === undefined ? [] : [`- Cut: ${fmtCut(l) as string}`]),
  ];
}

function htmlMeta(r: Report): string {
  const l = r.load;
  const target = `${r.target.baseUrl}${r.target.embedded ? ' (embedded reference service)' : ''}`;
  const rate = l.targetRatePerS === null ? '' : `target ${fmtNumber(l.targetRatePerS)}/s, `;
  const joined = fmtJoinedLate(l, r.shards !== undefined);
  const shards = fmtShards(r);
  return (
    `<p class="meta">${esc(target)}<br>${esc(`${r.startedAt} → ${r.endedAt} (${fmtNumber(r.durationS)} s)`)}<br>` +
    (shards === undefined ? '' : `${esc(shards)}<br>`) +
    esc(
      `${l.executor}: ${rate}achieved ${fmtNumber(l.achievedRatePerS)}/s; ${l.started} started, ${l.dropped} dropped` +
        `${joined === undefined ? '' : `, ${joined}`}` +
        `${l.cancelled !== undefined && l.cancelled > 0 ? `, ${l.cancelled} cancelled at stop` : ''}` +
        `${l.cut !== undefined && l.cut > 0 ? `, ${l.cut} cut when the grace period ended` : ''}`,
    ) +
    '</p>'
  );
}

/** The run's views (on `scenario`'s entry of the section list). */
export const runViews: SectionViews = {
  summary: {
    head: summaryHead,
    cut: (r) => ((cut) => (cut === undefined ? [] : [`cut     ${cut}`]))(fmtCut(r.load)),
  },
  markdown: {
    title: (r) => [`# flowgauge report: ${plain(r.scenario)}`],
    run: markdownRun,
  },
  html: {
    title: (r) => `<h1>flowgauge report: ${esc(r.scenario)}</h1>`,
    meta: htmlMeta,
  },
};
