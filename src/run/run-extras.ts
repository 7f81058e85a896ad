/**
 * What a run does beyond measuring requests: follow runs that answer `running`, match
 * notifications, and audit usage and sessions afterwards. The engine hands each result to
 * `onResult` (absent when nothing is switched on, so the hot path pays one check) and calls
 * `finish` after the schedule has drained, which returns the report sections.
 */
import type { ApiResult, Client, Run, StreamResult, StreamSummary, TriggerAck } from '../api/index.js';
import type { Clock } from '../core/clock.js';
import type { OpName } from '../core/ops.js';
import { createAsyncRunsCollector, type AsyncRunsSnapshot } from '../collect/index.js';
import { createAsyncFollower, type AsyncFollower, type FollowEndInfo, type ResolvedFollowOptions } from './async-follow.js';
import { auditSessions, auditUsage, createUsageLedger, sessionBaseline, type SessionAuditReport, type UsageAuditReport, type UsageLedger } from './audit.js';
import type { NotificationMetricsSink, NotificationsReport, NotificationTracking } from './notifications.js';

/** The report sections extras add (all optional in report@1). */
export interface ExtraSections {
  readonly notifications?: NotificationsReport;
  readonly asyncRuns?: AsyncRunsSnapshot;
  readonly audit?: { readonly usage?: UsageAuditReport; readonly sessions?: SessionAuditReport };
}

/** One finished request, as the engine sees it. */
export interface ExtrasResult {
  readonly op: OpName;
  readonly flowId: string | undefined;
  readonly sessionId: string | undefined;
  /** The run's input when the mix gave one as text (session order is checked against it). */
  readonly input: string | undefined;
  readonly intendedNs: number;
  readonly result: ApiResult<unknown> | StreamResult;
}

/** What extras need. */
export interface RunExtrasOptions {
  readonly client: Client;
  readonly clock: Clock;
  readonly notifications: NotificationTracking | undefined;
  /** Undefined: runs that answer `running` are not followed. */
  readonly follow: ResolvedFollowOptions | undefined;
  readonly audit: boolean;
  /** Sessions the mix runs in (with `audit`, their histories are read before and after). */
  readonly sessionIds: readonly string[];
  readonly metrics: NotificationMetricsSink | undefined;
}

/** Extras of one run. */
export interface RunExtras {
  /** Undefined when nothing needs to see results. */
  readonly onResult: ((r: ExtrasResult) => void) | undefined;
  /**
   * True when `onResult` needs every result; false when it needs only runs that answered
   * `running` and triggers (following alone), so the engine skips the rest cheaply.
   */
  readonly allResults: boolean;
  /** Before the clock starts: reads session baselines, then marks the start for the matcher. */
  begin(): Promise<void>;
  /** After the schedule drained: waits for follows and deliveries, audits, returns the sections. */
  finish(ctx: { readonly interrupted: boolean; readonly startedAtMs: number; readonly stopSignal: AbortSignal | undefined }): Promise<ExtraSections>;
}

/** The run id an acknowledgement may carry (the interface's has none; some services add one). */
export function runIdOfAck(ack: unknown): string | undefined {
  if (typeof ack !== 'object' || ack === null) return undefined;
  const a = ack as Record<string, unknown>;
  for (const k of ['run_id', 'runId', 'id']) if (typeof a[k] === 'string' && a[k] !== '') return a[k] as string;
  return undefined;
}

interface SessionInfo {
  readonly sessionId: string;
  readonly input: string | undefined;
  readonly startNs: number;
}

/** Creates the extras a run's options ask for. */
export function createRunExtras(o: RunExtrasOptions): RunExtras {
  const { client, clock, notifications } = o;
  const matcher = notifications?.matcher;
  const ledger: UsageLedger | undefined = o.audit ? createUsageLedger() : undefined;
  const collector = createAsyncRunsCollector({ pollIntervalMs: o.follow?.pollIntervalMs ?? 0 });
  const followedTriggers = new Set<string>();
  const pendingSessions = new Map<string, SessionInfo>();
  const triggersSeen: string[] = [];
  let runningUnfollowed = 0;
  let baseline = new Map<string, number>();

  const finished = (flowId: string | undefined, runId: string, status: 'completed' | 'failed', atNs: number, tokens: number | undefined): void => {
    matcher?.clientCompleted(runId, flowId, status, atNs);
    ledger?.finished(flowId, status, tokens);
  };

  const onEnd = (e: FollowEndInfo): void => {
    const session = pendingSessions.get(e.runId);
    pendingSessions.delete(e.runId);
    if (e.outcome === 'completed' || e.outcome === 'failed') {
      finished(e.flowId, e.runId, e.outcome, e.atNs, e.totalTokens);
      if (session !== undefined) ledger?.sessionRun(session.sessionId, session.input ?? '', e.outcome, session.startNs, e.atNs);
    } else if (e.flowId !== undefined) ledger?.unresolved(e.flowId);
  };
  const follower: AsyncFollower | undefined = o.follow === undefined ? undefined : createAsyncFollower({ client, clock, options: o.follow, collector, onEnd });

  const onRun = (r: ExtrasResult, v: Run): void => {
    const status = v.status;
    if (status === 'running') {
      const followed = follower?.follow({ runId: v.id, flowId: r.flowId, kind: 'run', intendedNs: r.intendedNs }) === true;
      if (followed && r.sessionId !== undefined) pendingSessions.set(v.id, { sessionId: r.sessionId, input: r.input, startNs: r.result.meta.startNs });
      if (!followed) {
        runningUnfollowed++;
        if (r.flowId !== undefined) ledger?.unresolved(r.flowId);
      }
      return;
    }
    if (status !== 'completed' && status !== 'failed') return;
    finished(r.flowId, v.id, status, r.result.meta.endNs, v.usage?.total_tokens);
    if (r.sessionId !== undefined) ledger?.sessionRun(r.sessionId, r.input ?? '', status, r.result.meta.startNs, r.result.meta.endNs);
  };

  const onStream = (r: ExtrasResult): void => {
    const res = r.result as StreamResult;
    if (res.ok) {
      const s: StreamSummary = res.value;
      const atNs = res.timing.endEventNs ?? res.meta.endNs;
      if (s.runId !== undefined) matcher?.clientCompleted(s.runId, r.flowId, 'completed', atNs);
      ledger?.finished(r.flowId, 'completed', s.usage?.total_tokens);
      if (r.sessionId !== undefined) ledger?.sessionRun(r.sessionId, r.input ?? '', 'completed', res.meta.startNs, res.meta.endNs);
    } else if (res.error.code === 'STREAM_ERROR_EVENT') {
      // The service said the run failed; how many tokens it counts for it the client cannot know.
      ledger?.finished(r.flowId, 'failed', undefined);
      if (r.sessionId !== undefined) ledger?.sessionRun(r.sessionId, r.input ?? '', 'failed', res.meta.startNs, res.meta.endNs);
    }
  };

  const onTrigger = (r: ExtrasResult, ack: TriggerAck): void => {
    if (r.flowId === undefined) return;
    const runId = runIdOfAck(ack);
    matcher?.triggerAccepted(r.flowId, r.intendedNs, runId);
    if (runId !== undefined && follower?.follow({ runId, flowId: r.flowId, kind: 'trigger', intendedNs: r.intendedNs }) === true) {
      followedTriggers.add(runId);
    } else triggersSeen.push(r.flowId);
  };

  const allResults = matcher !== undefined || ledger !== undefined;
  const onResult = allResults || follower !== undefined
    ? (r: ExtrasResult): void => {
        const res = r.result;
        if (r.op === 'stream') return onStream(r);
        if (!res.ok) return;
        if (r.op === 'run') onRun(r, res.value as Run);
        else if (r.op === 'trigger') onTrigger(r, res.value as TriggerAck);
      }
    : undefined;

  return {
    onResult,
    allResults,

    async begin() {
      if (ledger !== undefined && o.sessionIds.length > 0) baseline = await sessionBaseline(client, o.sessionIds);
      if (o.metrics !== undefined) notifications?.attachMetrics(o.metrics);
      matcher?.markStart(clock.nowNs());
    },

    async finish({ interrupted, startedAtMs, stopSignal }) {
      if (follower !== undefined) {
        if (interrupted || stopSignal?.aborted === true) follower.abandonAll();
        else {
          const onStop = (): void => follower.abandonAll();
          stopSignal?.addEventListener('abort', onStop, { once: true });
          await follower.drain();
          stopSignal?.removeEventListener('abort', onStop);
        }
      }
      if (notifications !== undefined && !interrupted) await notifications.settle(stopSignal);

      let notified: NotificationsReport | undefined;
      if (notifications !== undefined && matcher !== undefined) {
        notified = notifications.report(clock.nowNs());
        for (const t of matcher.triggerOutcomes()) {
          if (t.runId !== undefined && followedTriggers.has(t.runId)) continue;
          if (t.completedNs !== undefined && t.status !== undefined) {
            collector.triggerNotified({ intendedNs: t.intendedNs, completedNs: t.completedNs, status: t.status });
            ledger?.finished(t.flowId, t.status, t.totalTokens);
          } else ledger?.unresolved(t.flowId);
        }
      } else for (const flowId of triggersSeen) ledger?.unresolved(flowId);

      const a = collector.snapshot();
      const asyncSeen = a.followed.run + a.followed.trigger + a.notFollowed.cap + a.notFollowed.stopped + runningUnfollowed > 0 || triggersSeen.length + followedTriggers.size > 0;
      let usage: UsageAuditReport | undefined;
      let sessions: SessionAuditReport | undefined;
      if (ledger !== undefined && !(interrupted && stopSignal?.aborted === true)) {
        const ctx = { client, clock, ...(stopSignal !== undefined ? { signal: stopSignal } : {}) };
        usage = await auditUsage(ctx, ledger, { startMs: startedAtMs, endMs: clock.wallMs() });
        if (ledger.sessions.size > 0) sessions = await auditSessions(ctx, ledger, baseline);
      }
      return {
        ...(notified !== undefined ? { notifications: notified } : {}),
        ...(asyncSeen && o.follow !== undefined ? { asyncRuns: a } : {}),
        ...(usage !== undefined || sessions !== undefined
          ? { audit: { ...(usage !== undefined ? { usage } : {}), ...(sessions !== undefined ? { sessions } : {}) } }
          : {}),
      };
    },
  };
}
