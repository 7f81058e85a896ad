/**
 * `notifications`: what each shard's receiver got and matched. Counts add (each shard matched
 * the runs it saw itself); the grace period is a setting the shards must share; the event set is
 * the union of the sets each saw; delivery latency and lead keep only a summary (no histogram),
 * so each statistic takes its worst shard.
 */
import type { NotificationEventSet } from '../../collect/notification-matcher.js';
import { bySection, custom, fields, setting, sum, sumCounts, type Rule } from './merge-kit.js';
import { worst } from './merge-histograms.js';
import { fromPhase } from './project-kit.js';
import type { NotificationsReport } from './notifications-schema.js';
import { notificationsViews } from './notifications-views.js';

/** Event names the matcher keeps; the rest are counted under `(other)`. */
const MAX_EVENT_NAMES = 20;

const OTHER = '(other)';

/** `union` of the sets seen: `none` adds nothing, both names make `mixed`. */
function eventSetOf(sets: readonly NotificationEventSet[]): NotificationEventSet {
  const seen = new Set(sets.filter((s) => s !== 'none'));
  if (seen.has('mixed') || (seen.has('flow.run') && seen.has('flow'))) return 'mixed';
  return seen.has('flow.run') ? 'flow.run' : seen.has('flow') ? 'flow' : 'none';
}

/** How `notifications` merges. */
export const notificationsMerge: Rule<NotificationsReport> = fields<NotificationsReport>({
  eventSet: custom('union', (parts) => eventSetOf(parts.map((p) => p.value))),
  // Deliveries by event name add; past the names the matcher keeps, the rarest go to `(other)`.
  events: custom('sum', (parts, ctx) => {
    const all = sumCounts.merge(parts, ctx) as Record<string, number>;
    const names = Object.entries(all).filter(([k]) => k !== OTHER).sort((a, b) => b[1] - a[1]);
    if (names.length <= MAX_EVENT_NAMES) return all;
    const rest = names.slice(MAX_EVENT_NAMES).reduce((n, [, c]) => n + c, all[OTHER] ?? 0);
    return { ...Object.fromEntries(names.slice(0, MAX_EVENT_NAMES)), [OTHER]: rest };
  }),
  requests: sum,
  rejected: sumCounts,
  received: sum,
  beforeRun: sum,
  expected: sum,
  matched: sum,
  missing: sum,
  late: sum,
  awaiting: sum,
  duplicate: sum,
  outOfOrder: sum,
  statusMismatch: sum,
  unsolicited: sum,
  sessionEvents: sum,
  unknownEvents: sum,
  deliveryLatencyMs: worst,
  beforeClient: sum,
  leadMs: worst,
  graceMs: setting({ label: 'notifications.graceMs (the grace period)' }),
  triggers: fields<NotificationsReport['triggers']>({ accepted: sum, matchedByRunId: sum, matchedByFlowOrder: sum, unresolved: sum }),
});

/** `notifications`: projected by its phase of the run (`run/phases/`), merged by the rules above. */
export const notificationsSection = { ...fromPhase('notifications', bySection(notificationsMerge)), views: notificationsViews };
