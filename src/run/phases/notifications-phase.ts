/**
 * Notification matching: every completion the client saw (a run's answer, a stream's end, a
 * followed run's end) and every accepted trigger is matched with the outbound notifications
 * the receiver got. After the schedule it waits (bounded) for late deliveries, then announces
 * the ends of triggers that only a notification told. Owns the `notifications` section.
 */
import type { StreamSummary, TriggerAck } from '../../api/index.js';
import type { Clock } from '../../core/clock.js';
import type { NotificationsReport } from '../../report/index.js';
import type { NotificationTracking } from '../notifications.js';
import type { PhaseContext, RunPhase } from '../phase.js';
import { runIdOfAck } from '../run-ids.js';

/** The notification phase over a started receiver. */
export function createNotificationsPhase(tracking: NotificationTracking): RunPhase {
  const matcher = tracking.matcher;
  const polledTriggers = new Set<string>();
  let ctx: PhaseContext | undefined;
  let clock: Clock | undefined;
  let report: NotificationsReport | undefined;

  return {
    name: 'notifications',
    // Only what a notification can match: runs, streams and triggers.
    values: ['run', 'stream', 'trigger'],

    start(c) {
      ctx = c;
      clock = c.clock;
      matcher.markStart(c.clock.nowNs());
    },

    sample(s) {
      if (s.value === undefined) return;
      if (s.op === 'run') {
        const v = s.value as { id?: unknown; status?: unknown };
        if (typeof v.id === 'string' && (s.runStatus === 'completed' || s.runStatus === 'failed')) matcher.clientCompleted(v.id, s.flowId, s.runStatus, s.endNs);
      } else if (s.op === 'stream') {
        const v = s.value as StreamSummary;
        if (v.runId !== undefined) matcher.clientCompleted(v.runId, s.flowId, 'completed', s.stream?.endEventNs ?? s.endNs);
      } else if (s.op === 'trigger' && s.flowId !== undefined) {
        matcher.triggerAccepted(s.flowId, s.intendedNs, runIdOfAck(s.value as TriggerAck));
      }
    },

    asyncEnd(e) {
      if (e.source !== 'poll') return;
      if (e.kind === 'trigger') polledTriggers.add(e.runId);
      if (e.status !== 'unresolved') matcher.clientCompleted(e.runId, e.flowId, e.status, e.atNs);
    },

    async finish(f) {
      if (!f.interrupted && !f.signal.aborted) await tracking.settle(f.signal);
      report = tracking.report(clock?.nowNs() ?? 0);
      for (const t of matcher.triggerOutcomes()) {
        if (t.runId !== undefined && polledTriggers.has(t.runId)) continue;
        ctx?.emitAsyncEnd({
          source: 'notification',
          runId: t.runId ?? '',
          flowId: t.flowId,
          kind: 'trigger',
          status: t.completedNs !== undefined && t.status !== undefined ? t.status : 'unresolved',
          atNs: t.completedNs ?? 0,
          totalTokens: t.totalTokens,
          sessionId: undefined,
          input: undefined,
          startNs: t.intendedNs,
        });
      }
    },

    section: { key: 'notifications', project: () => report },
  };
}
