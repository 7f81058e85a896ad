/**
 * The sections of report.html for what a run adds when it follows asynchronous runs, receives
 * notifications or audits the service's own records: the same figures as report.md, as facts
 * and tables. A section is absent when the run did not do that work.
 */
import { usageVerdict } from './audit-view.js';
import { fmtDuration, fmtNumber } from './format.js';
import { badge, code, esc, facts, p, section, table, type Cell } from './html-parts.js';
import type { Pct } from '../collect/histogram.js';
import type { Report, UsageCounts } from './model.js';

const PCT_HEAD = ['measure', 'count', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'max', 'mean'];
const PCT_NUMERIC = [1, 2, 3, 4, 5, 6, 7, 8];

function pctRow(label: string, x: Pct): Cell[] {
  return [label, String(x.count), ...[x.p50, x.p90, x.p95, x.p99, x.p999, x.max, x.mean].map((v) => fmtDuration(v))];
}

/** `name 3, other 1`, or `none` when empty. */
function counts(rec: Readonly<Record<string, number>>, none: string): string {
  const parts = Object.entries(rec)
    .filter(([, v]) => v > 0)
    .map(([k, v]) => `${k} ${v}`);
  return parts.length === 0 ? none : parts.join(', ');
}

/** Outbound notifications: matched against the completions the client saw. */
export function notificationsHtml(r: Report): string {
  const n = r.notifications;
  if (n === undefined) return '';
  const body = [
    facts([
      ['event names', { html: `<code>${esc(n.eventSet)}</code> (${esc(counts(n.events, 'none received'))})` }],
      ['deliveries accepted', String(n.received)],
      ['completions seen by the client', String(n.expected)],
      ['notified', String(n.matched)],
      ['missing', n.missing === 0 ? badge(true, '0') : badge(false, `${n.missing} after ${fmtDuration(n.graceMs)}`)],
      ['arrived late / still awaited', `${n.late} / ${n.awaiting}`],
      ['duplicate / out of order / other status / unsolicited', `${n.duplicate} / ${n.outOfOrder} / ${n.statusMismatch} / ${n.unsolicited}`],
      ['refused', counts(n.rejected, 'none')],
      [
        'triggers',
        `${n.triggers.accepted} accepted, ${n.triggers.matchedByRunId} matched by run id, ${n.triggers.matchedByFlowOrder} by flow and time order, ${n.triggers.unresolved} unresolved`,
      ],
    ]),
  ];
  const rows: Cell[][] = [];
  if (n.deliveryLatencyMs.count > 0) rows.push(pctRow('after the client saw the completion', n.deliveryLatencyMs));
  if (n.leadMs.count > 0) rows.push(pctRow('before the client saw it (lead)', n.leadMs));
  if (rows.length > 0) body.push('<h3>Delivery latency</h3>', table(PCT_HEAD, rows, PCT_NUMERIC));
  return section('notifications', 'Notifications', body);
}

/** Runs that answered `running`, and triggers, followed to their end by polling. */
export function asyncRunsHtml(r: Report): string {
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

function usageCells(c: UsageCounts | null): string[] {
  return c === null ? ['—', '—', '—', '—'] : [String(c.totalRuns), String(c.successfulRuns), String(c.failedRuns), String(c.totalTokens)];
}

/** The service's usage analytics and session histories against what the client saw (one audit per tenant when several). */
export function auditHtml(r: Report): string {
  const tenants = r.audit?.tenants;
  if (tenants !== undefined) {
    const body = [p('One audit per tenant (token), each read with its own token: the figures of different accounts are not one comparison.')];
    for (const t of tenants) {
      const part = auditHtmlBody(t.usage, t.sessions, 'h4');
      body.push(`<h3>${esc(t.scenarios.join(', '))}</h3>`, ...(part.length > 0 ? part : [p('No runs finished: nothing to compare.')]));
    }
    return section('audit', 'Audit', body);
  }
  const u = r.audit?.usage;
  const s = r.audit?.sessions;
  if (u === undefined && s === undefined) return '';
  return section('audit', 'Audit', auditHtmlBody(u, s, 'h3'));
}

/** One account's audit: usage against what the client saw, and session histories. */
function auditHtmlBody(u: NonNullable<Report['audit']>['usage'], s: NonNullable<Report['audit']>['sessions'], h: 'h3' | 'h4'): string[] {
  const body: string[] = [];
  if (u !== undefined) {
    const scope = u.filterIgnored === true ? 'account: the service ignores flow_id (each per-flow answer was its whole account), so the account was read once' : u.scope;
    const verdict: Cell =
      u.forbidden === true
        ? `not compared: this token may not read usage (${u.errors.join('; ') || 'refused'}); this is not a disagreement`
        : badge(usageVerdict(u).ok, usageVerdict(u).text);
    body.push(
      `<${h}>Usage analytics</${h}>`,
      facts([
        ['window', `${u.window.start} to ${u.window.end} (${scope})`],
        ['verdict', verdict],
      ]),
      table(
        ['', 'total_runs', 'successful_runs', 'failed_runs', 'total_tokens'],
        [['service', ...usageCells(u.service)], ['client', ...usageCells(u.client)], ['difference', ...usageCells(u.diff)]],
        [1, 2, 3, 4],
      ),
      p('The service may count other traffic of the account.', 'caption'),
    );
    const unknown = u.clientUnknown;
    if (unknown.runsWithoutTokens + unknown.unresolved > 0) {
      body.push(p(`The client could not count everything: ${unknown.runsWithoutTokens} finished runs without a token count, ${unknown.unresolved} runs whose end it never learnt.`));
    }
    if (u.errors.length > 0 && u.forbidden !== true) body.push(p(`Queries that failed: ${u.errors.join('; ')}`));
  }
  if (s !== undefined) {
    body.push(
      `<${h}>Sessions</${h}>`,
      facts([
        ['sessions / runs / histories read', `${s.sessions} / ${s.runs} / ${s.checked}`],
        ['in the order sent', String(s.inOrder)],
        ['alternating user/assistant', String(s.alternating)],
        ['expected message count', String(s.countMatches)],
        ['overlapping runs (order not judged)', String(s.concurrent)],
      ]),
    );
    if (s.problems.length > 0) body.push(table(['session', 'check', 'expected', 'got'], s.problems.map((x) => [code(x.sessionId), x.check, x.expected, x.got])));
  }
  return body;
}
