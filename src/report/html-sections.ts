/**
 * The sections of report.html, verdict first: each returns markup built only from escaped
 * text (see `html-parts.ts`) and chart placeholders the page's script fills in.
 */
import { opKeysOf } from '../core/ops.js';
import { STREAM_TIMINGS, plainStreamLabel } from '../core/stream-timings.js';
import { FOLLOW_ROW, FOLLOW_ROW_NOTE, followPollsRow } from './follow-row.js';
import type { Pct } from '../collect/histogram.js';
import { fmtAvailability, fmtDuration, fmtNumber, fmtOk, fmtRatio, fmtShare, fmtThresholdValue, streamTimingFormat } from './format.js';
import { headlineOf } from './headline.js';
import type { HtmlChartData } from './html-data.js';
import { badge, bar, chart, code, facts, p, section, table } from './html-parts.js';
import type { Cell } from './html-parts.js';
import type { Report } from './model.js';
import { limitText, tenantRateLimitRows, throttleCounts } from './rate-limit-view.js';
import { burstSentence } from './stream-lines.js';

/** What the shaded end of a time chart is, when the schedule ended inside its last step. */
function partialCaption(data: HtmlChartData, what: 'rate' | 'latency'): string {
  const x = data.partial;
  if (x === null) return '';
  const held = `The last point holds the schedule's final ${fmtNumber(Math.round((x.toS - x.fromS) * 1000) / 1000)} s (shaded)`;
  return what === 'rate' ? ` ${held}: its rates are per second of that part.` : ` ${held}: fewer requests than the others.`;
}

/** Verdict, thresholds passed, availability against the objective. */
export function verdictSection(r: Report): string {
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

/** The thresholds table. */
export function thresholdsSection(r: Report): string {
  if (r.thresholds.length === 0) return section('thresholds', 'Thresholds', [p('No thresholds were set for this run.', 'empty')]);
  return section('thresholds', 'Thresholds', [
    table(
      ['threshold', 'limit', 'observed', 'result'],
      r.thresholds.map((t) => [
        code(t.metric),
        `${t.op} ${fmtThresholdValue(t.metric, t.value)}`,
        fmtThresholdValue(t.metric, t.observed),
        badge(t.passed),
      ]),
      [1, 2],
    ),
  ]);
}

/** Availability, events and the error budget, with the budget spent over time. */
export function sloSection(r: Report, data: HtmlChartData): string {
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

function pctCells(x: Pct): string[] {
  return [fmtDuration(x.p50), fmtDuration(x.p90), fmtDuration(x.p95), fmtDuration(x.p99), fmtDuration(x.p999), fmtDuration(x.max)];
}

/** Per-operation latency table and p50/p90/p99 over time. */
export function latencySection(r: Report, data: HtmlChartData): string {
  const rows = opKeysOf(r.ops).flatMap((name) => {
    const o = r.ops[name];
    if (o === undefined) return [];
    return [[code(name), String(o.count), fmtOk(o.good, o.bad), String(o.bad), String(o.excluded), ...pctCells(o.latencyMs)]];
  });
  const follow = followPollsRow(r);
  if (follow !== undefined) rows.push([code(FOLLOW_ROW), String(follow.count), fmtOk(follow.good, follow.bad), String(follow.bad), '—', '—', '—', '—', '—', '—', '—']);
  if (rows.length === 0) return section('latency', 'Latency by operation', [p('No requests completed.', 'empty')]);
  const body = [
    p('Measured from the intended start of each request, so a stalled service shows here (no coordinated omission).'),
    table(['op', 'count', 'ok', 'bad', 'excluded', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'max'], rows, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
    ...(follow === undefined ? [] : [p(FOLLOW_ROW_NOTE)]),
  ];
  const phaseRows = opKeysOf(r.ops).flatMap((name) => {
    const ph = r.ops[name]?.phases;
    const cell = (x: Pct): string => `${fmtDuration(x.p50)} / ${fmtDuration(x.p95)} / ${fmtDuration(x.p99)}`;
    return ph === undefined ? [] : [[code(name), cell(ph.blockedMs), cell(ph.connectMs), cell(ph.tlsMs), cell(ph.waitMs), cell(ph.receiveMs)]];
  });
  if (phaseRows.length > 0) {
    body.push(
      '<h3 id="phases">Where the time went (p50 / p95 / p99)</h3>',
      p('Blocked: queued for a free connection in the client (long means the client’s pool was the limit). Connect and TLS: opening a new connection. Wait: request sent to response head. Receive: head to last byte (a stream’s whole body).'),
      table(['op', 'blocked', 'connect', 'tls', 'wait', 'receive'], phaseRows, [1, 2, 3, 4, 5]),
    );
  }
  if (data.latency.length > 0) {
    const step = data.stepS === 1 ? 'each 1-s slice' : `each ${fmtNumber(data.stepS)}-s step`;
    body.push(
      '<h3>Percentiles over time</h3>',
      `<div class="charts">${data.latency
        .map((c) => chart(`chart-latency-${c.op}`, `${c.op}: p50 / p90 / p99`, `Latency percentiles of ${step}, by intended start.${partialCaption(data, 'latency')}`))
        .join('')}</div>`,
    );
  }
  return section('latency', 'Latency by operation', body);
}

/** Stream timing table and the TTFT / ITL percentile curves. */
export function streamSection(r: Report, data: HtmlChartData): string {
  const s = r.stream;
  if (s.count === 0) return section('stream', 'Stream timing', [p('No streams in this run.', 'empty')]);
  const rows: Cell[][] = STREAM_TIMINGS.flatMap((t) => {
    const x = s[t.field] as Pct | undefined;
    if (x === undefined || x.count === 0) return [];
    return [[plainStreamLabel(t), String(x.count), ...[x.p50, x.p90, x.p95, x.p99, x.p999, x.max].map(streamTimingFormat(t))]];
  });
  const burst = burstSentence(s);
  const body = [
    p(
      `${s.count} streams: ${s.completed} completed, ${s.incomplete} incomplete; ${s.tokens} tokens, ` +
        `${s.tokenCountMismatches} token-count mismatches with usage.completion_tokens.`,
    ),
    ...(burst === undefined ? [] : [p(`${burst}.`, 'note')]),
    table(['timing', 'count', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'max'], rows, [1, 2, 3, 4, 5, 6, 7]),
  ];
  if (data.distributions.length > 0) {
    body.push(
      '<h3>Distributions</h3>',
      `<div class="charts">${data.distributions
        .map((d) =>
          chart(`chart-dist-${d.key.replace(/[^A-Za-z0-9]/g, '-')}`, `${d.label}: percentile curve`, `${d.count} values; x is the percentile on a log scale (90 %, 99 %, 99.9 %, …).`),
        )
        .join('')}</div>`,
    );
  }
  return section('stream', 'Stream timing', body);
}

/** Request rate against 429s and the advertised limit, then the analyser's findings. */
export function rateLimitSection(r: Report, data: HtmlChartData): string {
  const rl = r.rateLimit;
  const body: string[] = [];
  if (data.rate !== null) {
    body.push(`<div class="charts wide">${chart('chart-rate', 'Request rate vs 429s', `Requests and 429 responses per second by intended start; ${data.rate.limitLabel}.${partialCaption(data, 'rate')}`)}</div>`);
  }
  const rows: [string, Cell][] = [
    ['advertised limit', r.scenarios !== undefined ? limitText(r) : rl.advertisedLimit === null ? 'none seen' : `${rl.advertisedLimit} per window`],
    ['reset semantics', rl.rolling === true ? `${rl.resetSemantics} (rolling: windows overlap, only Remaining judged)` : code(rl.resetSemantics)],
    ['429 responses', throttleCounts(rl)],
  ];
  if (rl.premature429 > 0) rows.push(['premature 429s', badge(false, `${rl.premature429} while under the advertised limit`)]);
  if (rl.first429 !== null && rl.first429 !== undefined) {
    rows.push(['first 429', `request #${rl.first429.index}, sent ${fmtDuration(rl.first429.atMs)} after the start`]);
  }
  if (rl.recoveryMs !== null && rl.recoveryMs !== undefined) rows.push(['recovery after reset', fmtDuration(rl.recoveryMs)]);
  body.push('<h3>Findings</h3>', facts(rows));
  const tenants = tenantRateLimitRows(r);
  if (tenants.length > 0) {
    body.push(
      '<h3>By tenant</h3>',
      p('Each tenant judged against its own limit, windows and headers.'),
      table(['tenant', 'limit', 'reset', 'windows', '429s', 'header findings', 'latency (served answers)'], tenants.map((t) => [t.name, t.limit, t.reset, t.windows, t.responses429, t.findings, t.latency]), [3]),
    );
  }
  const hv = Object.entries(rl.headerViolations).sort((a, b) => b[1] - a[1]);
  if (hv.length > 0) body.push('<h3>Header findings</h3>', table(['finding', 'responses'], hv.map(([k, n]) => [code(k), String(n)]), [1]));
  const shown = rl.windows.slice(-10);
  if (shown.length > 0) {
    const all = rl.windows.length + (rl.windowsDropped ?? 0);
    body.push(
      `<h3>Windows (last ${shown.length} of ${all})</h3>`,
      table(
        ['reset', 'limit', 'accepted', 'rejected', 'lowest remaining'],
        shown.map((w) => [w.reset ?? '—', fmtNumber(w.limit ?? null), String(w.accepted), String(w.rejected), fmtNumber(w.minRemaining ?? null)]),
        [1, 2, 3, 4],
      ),
    );
  }
  return section('ratelimit', 'Rate limits', body);
}

/** Errors by code and operation, with bars against the operation's count. */
export function errorsSection(r: Report): string {
  const rows: Cell[][] = [];
  const total = Object.values(r.ops).reduce((n, o) => n + (o?.count ?? 0), 0);
  for (const name of opKeysOf(r.ops)) {
    const o = r.ops[name];
    if (o === undefined) continue;
    for (const [errCode, n] of Object.entries(o.errors).sort((a, b) => b[1] - a[1])) {
      rows.push([code(name), code(errCode), String(n), bar(o.count > 0 ? n / o.count : 0, `${fmtShare(o.count > 0 ? n / o.count : 0)} of ${name}`, 'bad')]);
    }
  }
  const statusRows = opKeysOf(r.ops).flatMap((name) => {
    const o = r.ops[name];
    if (o === undefined) return [];
    const st = Object.entries(o.statuses).sort((a, b) => a[0].localeCompare(b[0]));
    return [[code(name), st.map(([k, n]) => `${k}×${n}`).join(', ') || '—']];
  });
  const body = [rows.length === 0 ? p(`No errors in ${total} requests.`, 'empty') : table(['op', 'code', 'count', 'share'], rows, [2])];
  if (statusRows.length > 0) body.push('<h3>HTTP statuses</h3>', table(['op', 'statuses'], statusRows));
  return section('errors', 'Errors by code', body);
}

/** Contract violations: what the service sent that the interface does not allow. */
export function violationsSection(r: Report): string {
  const totals = r.contractViolationTotals ?? { total: r.contractViolations.reduce((n, v) => n + v.count, 0), droppedDistinct: 0, droppedCount: 0 };
  if (totals.total === 0) return section('contract', 'Contract violations', [p('None: every response matched the interface.', 'empty')]);
  const body = [
    table(
      ['op', 'path', 'expected', 'got', 'count'],
      r.contractViolations.map((v) => [code(v.op), code(v.path), v.expected, code(v.got), String(v.count)]),
      [4],
    ),
  ];
  if (totals.droppedDistinct > 0) {
    body.push(p(`${totals.droppedDistinct} more distinct violations (${totals.droppedCount} occurrences) were not listed.`));
  }
  return section('contract', 'Contract violations', body);
}
