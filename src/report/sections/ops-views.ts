/**
 * The views of `ops`: latency by operation (with the follower's polls as a row of their own, and
 * where each operation's time went) and the errors by code.
 */
import type { Pct } from '../../collect/histogram.js';
import { opKeysOf } from '../../core/ops.js';
import { fmtDuration, fmtNumber, fmtOk, fmtShare } from '../format.js';
import type { HtmlChartData } from '../html-data.js';
import { bar, chart, code, p, partialCaption, section, table, type Cell } from '../html-parts.js';
import { mdCell as cell, mdPctRow, mdTable } from '../markdown-kit.js';
import type { Report } from '../model.js';
import { grid } from '../summary-kit.js';
import type { SectionViews, SummaryContext } from './view-kit.js';

/**
 * The follower's polls as their own row of the latency tables: `getRun (follow)`, from
 * `asyncRuns.polls`. They are not in `ops` (its keys are the interface's operations, a contract,
 * and they are not the scenario's load), but the tenant's limit paid for them, so the tables show
 * them beside the scenario's own `getRun`. No latency is kept for them.
 */
const FOLLOW_ROW = 'getRun (follow)';

/** Said under a table that has the row. */
const FOLLOW_ROW_NOTE = `${FOLLOW_ROW}: polls of runs followed to their end (asyncRuns), not the scenario's own requests; no latency is kept for them.`;

/** The row (polls answered 2xx are good, every other is bad), when the run followed anything with at least one poll. */
function followPollsRow(r: Report): { count: number; good: number; bad: number; responses429: number } | undefined {
  const polls = r.asyncRuns?.polls;
  if (polls === undefined || polls.total === 0) return undefined;
  let good = 0;
  for (const [status, n] of Object.entries(polls.statuses)) {
    const c = Number(status);
    if (c >= 200 && c < 300) good += n;
  }
  return { count: polls.total, good, bad: polls.total - good, responses429: polls.statuses['429'] ?? 0 };
}

function summaryLatency(r: Report, { paint }: SummaryContext): string[] {
  // `ok` judges only what counts against the SLO; `excluded` shows what it leaves out (expected
  // 429s), so 'ok 100%' beside 98 % excluded cannot pass for a healthy service.
  const rows: string[][] = [['op', 'count', 'ok', 'excluded', '429', 'p50', 'p90', 'p99', 'max'].map((h) => paint('dim', h))];
  for (const name of opKeysOf(r.ops)) {
    const o = r.ops[name];
    if (o === undefined) continue;
    const l = o.latencyMs;
    const excluded = o.excluded === 0 || o.count === 0 ? '0' : `${o.excluded} (${((o.excluded / o.count) * 100).toFixed(1)}%)`;
    rows.push([name, String(o.count), fmtOk(o.good, o.bad), excluded, String(o.statuses['429'] ?? 0), fmtDuration(l.p50), fmtDuration(l.p90), fmtDuration(l.p99), fmtDuration(l.max)]);
  }
  const follow = followPollsRow(r);
  if (follow !== undefined) rows.push([FOLLOW_ROW, String(follow.count), fmtOk(follow.good, follow.bad), '—', String(follow.responses429), '—', '—', '—', '—']);
  return rows.length > 1 ? grid(rows) : [];
}

/** Where each operation's time went (k6's request phases), p50/p95. */
function summaryPhases(r: Report, { paint }: SummaryContext): string[] {
  const rows: string[][] = [];
  const p5095 = (x: { p50: number; p95: number }): string => (x.p95 === 0 ? '0' : `${fmtDuration(x.p50)}/${fmtDuration(x.p95)}`);
  for (const name of opKeysOf(r.ops)) {
    const ph = r.ops[name]?.phases;
    if (ph === undefined) continue;
    rows.push([name, p5095(ph.blockedMs), p5095(ph.connectMs), p5095(ph.tlsMs), p5095(ph.waitMs), p5095(ph.receiveMs)]);
  }
  return rows.length === 0 ? [] : grid([['phases p50/p95', 'blocked', 'connect', 'tls', 'wait', 'receive'].map((h) => paint('dim', h)), ...rows]);
}

/** Codes and statuses shown on the errors line (the rest are in report.md). */
const TOP_ERRORS = 4;

/**
 * What went wrong, across operations: the commonest error codes, then the HTTP statuses other
 * than 2xx, so an `ok` below 100 % has its reason on screen. 429s have their own line; the
 * answers of negative tests (sent to fail) are listed too, uncoloured, since they may be wanted.
 */
function summaryErrors(r: Report): string[] {
  const codes = new Map<string, number>();
  const statuses = new Map<string, number>();
  for (const o of Object.values(r.ops)) {
    if (o === undefined) continue;
    for (const [c, n] of Object.entries(o.errors)) if (c !== 'RATE_LIMITED') codes.set(c, (codes.get(c) ?? 0) + n);
    for (const [status, n] of Object.entries(o.statuses)) if (!status.startsWith('2') && status !== '429') statuses.set(status, (statuses.get(status) ?? 0) + n);
  }
  if (codes.size === 0) return [];
  const top = (m: Map<string, number>, f: (k: string, n: number) => string): string => {
    const sorted = [...m].sort((a, b) => b[1] - a[1]);
    const shown = sorted.slice(0, TOP_ERRORS).map(([k, n]) => f(k, n));
    return sorted.length > TOP_ERRORS ? `${shown.join(', ')}, …` : shown.join(', ');
  };
  const gloss = (k: string): string => (k === 'UNKNOWN' ? 'UNKNOWN (no interface error code)' : k);
  const http = statuses.size === 0 ? '' : `; HTTP ${top(statuses, (k, n) => `${k} ×${n}`)}`;
  return [`errors  ${top(codes, (k, n) => `${n} ${gloss(k)}`)}${http}`];
}

/** Request phases (p50 / p95 / p99 each) of the operations that reached a connection. */
function markdownPhases(r: Report): string[] {
  const p3 = (x: Pct): string => `${fmtDuration(x.p50)} / ${fmtDuration(x.p95)} / ${fmtDuration(x.p99)}`;
  const rows = opKeysOf(r.ops).flatMap((name) => {
    const ph = r.ops[name]?.phases;
    return ph === undefined ? [] : [[`\`${name}\``, p3(ph.blockedMs), p3(ph.connectMs), p3(ph.tlsMs), p3(ph.waitMs), p3(ph.receiveMs)]];
  });
  if (rows.length === 0) return [];
  return [
    '',
    '### Where the time went (p50 / p95 / p99)',
    '',
    'Blocked: queued for a free connection. Connect and TLS: opening a new connection. Wait: request sent to response head. Receive: head to last byte.',
    '',
    mdTable(['op', 'blocked', 'connect', 'tls', 'wait', 'receive'], rows, [1, 2, 3, 4, 5]),
  ];
}

function markdownLatency(r: Report): string[] {
  const rows = opKeysOf(r.ops).flatMap((name) => {
    const o = r.ops[name];
    if (o === undefined) return [];
    return [[`\`${name}\``, String(o.count), fmtOk(o.good, o.bad), String(o.bad), String(o.excluded), ...mdPctRow('', o.latencyMs).slice(2)]];
  });
  const follow = followPollsRow(r);
  if (follow !== undefined) rows.push([`\`${FOLLOW_ROW}\``, String(follow.count), fmtOk(follow.good, follow.bad), String(follow.bad), '—', '—', '—', '—', '—', '—', '—', '—']);
  if (rows.length === 0) return ['## Latency by operation', '', 'No requests completed.'];
  return [
    '## Latency by operation',
    '',
    'Measured from the intended start of each request (no coordinated omission).',
    '',
    mdTable(['op', 'count', 'ok', 'bad', 'excluded', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'max', 'mean'], rows, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]),
    ...(follow === undefined ? [] : ['', FOLLOW_ROW_NOTE]),
    ...markdownPhases(r),
  ];
}

function markdownErrors(r: Report): string[] {
  const rows = opKeysOf(r.ops).flatMap((name) =>
    Object.entries(r.ops[name]?.errors ?? {})
      .sort((a, b) => b[1] - a[1])
      .map(([c, n]) => [`\`${name}\``, `\`${cell(c)}\``, String(n)]),
  );
  return ['## Errors by code', '', rows.length === 0 ? 'No errors.' : mdTable(['op', 'code', 'count'], rows, [2])];
}

function pctCells(x: Pct): string[] {
  return [fmtDuration(x.p50), fmtDuration(x.p90), fmtDuration(x.p95), fmtDuration(x.p99), fmtDuration(x.p999), fmtDuration(x.max)];
}

/** Per-operation latency table and p50/p90/p99 over time. */
function htmlLatency(r: Report, data: HtmlChartData): string {
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
    const p3 = (x: Pct): string => `${fmtDuration(x.p50)} / ${fmtDuration(x.p95)} / ${fmtDuration(x.p99)}`;
    return ph === undefined ? [] : [[code(name), p3(ph.blockedMs), p3(ph.connectMs), p3(ph.tlsMs), p3(ph.waitMs), p3(ph.receiveMs)]];
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

/** Errors by code and operation, with bars against the operation's count. */
function htmlErrors(r: Report): string {
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

/** The views of `ops`. */
export const opsViews: SectionViews = {
  summary: { latency: summaryLatency, phases: summaryPhases, errors: summaryErrors },
  markdown: { latency: markdownLatency, errors: markdownErrors },
  html: { latency: htmlLatency, errors: htmlErrors },
};
