/**
 * The audit: what the client saw finish (runs, streams, triggers, tokens; the runs of each
 * session in order) is kept in a ledger, and after the schedule compared with the service's
 * own account (`/analytics/usage`, session histories), within the finishing deadline.
 * Adds the `audit` section. The audit belongs to an unsharded run: a shard sees only its share.
 */
import type { StreamSummary } from '../../api/index.js';
import type { AuditReport } from '../../report/index.js';
import { auditSessions, auditUsage, createUsageLedger, sessionBaseline } from '../audit.js';
import type { ObserverContext, RunObserver } from '../observer.js';

/** The audit observer. */
export function createAuditObserver(): RunObserver {
  const ledger = createUsageLedger();
  // Accepted work whose end is learnt later (or never), by flow: what is left at the end is unresolved.
  const pending = new Map<string, number>();
  let ctx: ObserverContext | undefined;
  let baseline = new Map<string, number>();
  let section: AuditReport | undefined;

  const bump = (flowId: string | undefined, by: number): void => {
    if (flowId === undefined) return;
    pending.set(flowId, (pending.get(flowId) ?? 0) + by);
  };

  return {
    name: 'audit',
    values: 'all',

    async start(c) {
      ctx = c;
      if (c.sessionIds.length > 0 && !c.sharded) baseline = await sessionBaseline(c.client, c.sessionIds);
    },

    sample(s) {
      if (s.op === 'stream') {
        if (s.value !== undefined) {
          ledger.finished(s.flowId, 'completed', (s.value as StreamSummary).usage?.total_tokens);
          if (s.sessionId !== undefined) ledger.sessionRun(s.sessionId, s.input ?? '', 'completed', s.startNs, s.endNs);
        } else if (s.errorCode === 'STREAM_ERROR_EVENT') {
          // The service said the run failed; how many tokens it counts for it the client cannot know.
          ledger.finished(s.flowId, 'failed', undefined);
          if (s.sessionId !== undefined) ledger.sessionRun(s.sessionId, s.input ?? '', 'failed', s.startNs, s.endNs);
        }
        return;
      }
      if (s.value === undefined) return;
      if (s.op === 'trigger') return bump(s.flowId, 1);
      if (s.op !== 'run') return;
      if (s.runStatus === 'running') return bump(s.flowId, 1);
      if (s.runStatus !== 'completed' && s.runStatus !== 'failed') return;
      ledger.finished(s.flowId, s.runStatus, (s.value as { usage?: { total_tokens?: number } }).usage?.total_tokens);
      if (s.sessionId !== undefined) ledger.sessionRun(s.sessionId, s.input ?? '', s.runStatus, s.startNs, s.endNs);
    },

    asyncEnd(e) {
      if (e.status === 'unresolved' || e.flowId === undefined) return;
      bump(e.flowId, -1);
      ledger.finished(e.flowId, e.status, e.totalTokens);
      if (e.sessionId !== undefined) ledger.sessionRun(e.sessionId, e.input ?? '', e.status, e.startNs, e.atNs);
    },

    async finish(f) {
      if (ctx === undefined || ctx.sharded || f.interrupted) return;
      for (const [flowId, n] of pending) for (let i = 0; i < n; i++) ledger.unresolved(flowId);
      const a = { client: ctx.client, clock: ctx.clock, signal: f.signal };
      const usage = await auditUsage(a, ledger, { startMs: ctx.startedAtMs, endMs: ctx.clock.wallMs() });
      const sessions = ledger.sessions.size > 0 ? await auditSessions(a, ledger, baseline) : undefined;
      section = { usage, ...(sessions !== undefined ? { sessions } : {}), ...(f.signal.aborted ? { incomplete: true } : {}) };
    },

    sections() {
      return section === undefined ? {} : { audit: section };
    },
  };
}
