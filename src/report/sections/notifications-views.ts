/** The views of `notifications`: the deliveries received, matched against the completions the client saw. */
import { fmtDuration } from '../format.js';
import { badge, esc, facts, PCT_HEAD, PCT_NUMERIC, pctRow, section, table, type Cell } from '../html-parts.js';
import { mdPctRow, mdPlain as plain, mdTable } from '../markdown-kit.js';
import type { Report } from '../model.js';
import type { SectionViews, SummaryContext } from './view-kit.js';

function summaryNotifications(r: Report, { paint }: SummaryContext): string[] {
  const n = r.notifications;
  if (n === undefined) return [];
  const rejected = Object.values(n.rejected).reduce((x, y) => x + y, 0);
  const bad = n.missing + n.duplicate + n.outOfOrder + rejected;
  return [
    `notify  ${n.received} received (${n.eventSet} names), ${n.matched}/${n.expected} matched, ` +
      paint(bad > 0 ? 'red' : 'green', `${n.missing} missing, ${n.duplicate} duplicate, ${n.outOfOrder} out of order, ${rejected} rejected`) +
      `; delivery p50 ${fmtDuration(n.deliveryLatencyMs.p50)}`,
  ];
}

function markdownNotifications(r: Report): string[] {
  const n = r.notifications;
  if (n === undefined) return [];
  const rejected = Object.entries(n.rejected).filter(([, v]) => v > 0);
  const out = [
    '## Notifications',
    '',
    `- Event names used: \`${n.eventSet}\` (${Object.entries(n.events).map(([k, v]) => `${plain(k)} ${v}`).join(', ') || 'none received'})`,
    `- ${n.received} deliveries accepted; ${n.expected} completions seen by the client, ${n.matched} notified, ` +
      `**${n.missing} missing** after ${fmtDuration(n.graceMs)}${n.late > 0 ? ` (${n.late} arrived later)` : ''}${n.awaiting > 0 ? `, ${n.awaiting} still awaited` : ''}`,
    `- ${n.duplicate} duplicate, ${n.outOfOrder} out of order (completed before started), ${n.statusMismatch} with a status other than the client saw, ` +
      `${n.unsolicited} for runs the client never saw`,
    `- Refused: ${rejected.length === 0 ? 'none' : rejected.map(([k, v]) => `${plain(k)} ${v}`).join(', ')}`,
    `- Triggers: ${n.triggers.accepted} accepted, ${n.triggers.matchedByRunId} matched by run id, ${n.triggers.matchedByFlowOrder} by flow and time order, ${n.triggers.unresolved} unresolved`,
  ];
  const rows: string[][] = [];
  if (n.deliveryLatencyMs.count > 0) rows.push(mdPctRow('after the client saw the completion', n.deliveryLatencyMs));
  if (n.leadMs.count > 0) rows.push(mdPctRow('before the client saw it (lead)', n.leadMs));
  if (rows.length > 0) out.push('', mdTable(['delivery latency', 'count', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'max', 'mean'], rows, [1, 2, 3, 4, 5, 6, 7, 8]));
  return out;
}

/** `name 3, other 1`, or `none` when empty. */
function counts(rec: Readonly<Record<string, number>>, none: string): string {
  const parts = Object.entries(rec)
    .filter(([, v]) => v > 0)
    .map(([k, v]) => `${k} ${v}`);
  return parts.length === 0 ? none : parts.join(', ');
}

function htmlNotifications(r: Report): string {
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

/** The views of `notifications` (a section only runs that received notifications have). */
export const notificationsViews: SectionViews = {
  summary: { notifications: summaryNotifications },
  markdown: { notifications: markdownNotifications },
  html: { notifications: htmlNotifications },
};
