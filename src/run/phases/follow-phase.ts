/**
 * Following: runs that answer `running` (and triggers whose acknowledgement names a run) are
 * polled with `GET /runs/{id}` to their end, which is announced to every observer as an
 * `AsyncEnd`. Owns the `asyncRuns` section.
 *
 * A run a journey polls itself is not polled twice: the first poll waits one interval, and the
 * moment the journey asks `getRun` for a run being followed, following lets go of it (polls
 * already sent stay in `asyncRuns.polls`). Its end is then the one the journey's own poll sees,
 * announced as ever, so notifications and the audit still learn it.
 */
import type { TriggerAck } from '../../api/index.js';
import { createAsyncRunsCollector } from '../../collect/index.js';
import { createAsyncFollower, type AsyncFollower, type FollowTarget, type ResolvedFollowOptions } from '../async-follow.js';
import type { PhaseContext, RunPhase } from '../phase.js';
import { runIdOfAck } from '../run-ids.js';

/** Runs handed over to the journeys that poll them, kept until their end is seen (the oldest forgotten beyond this). */
const MAX_HANDED_OVER = 10_000;

interface RunSession {
  readonly sessionId: string | undefined;
  readonly input: string | undefined;
  readonly startNs: number;
}

/** The following phase. */
export function createFollowPhase(options: ResolvedFollowOptions): RunPhase {
  const collector = createAsyncRunsCollector({ pollIntervalMs: options.pollIntervalMs });
  let follower: AsyncFollower | undefined;
  let context: PhaseContext | undefined;
  const sessions = new Map<string, RunSession>();
  // Runs a journey took over, by id: what their end is announced with.
  const handedOver = new Map<string, FollowTarget & { readonly session: RunSession | undefined }>();
  const followedTriggers = new Set<string>();
  let runningUnfollowed = 0;
  let triggersSeen = 0;

  return {
    name: 'follow',
    values: 'async',

    start(ctx) {
      context = ctx;
      follower = createAsyncFollower({
        client: ctx.client,
        // Each run is read with the token that started it: another tenant's token may not read it.
        clientOf: (scenario) => ctx.clientOf(scenario),
        // A poll spends its tenant's rate limit: the analyser counts it in the window.
        onAnswer: (scenario, meta) => ctx.spent(scenario, meta),
        clock: ctx.clock,
        options,
        collector,
        onEnd: (e) => {
          const s = sessions.get(e.runId);
          sessions.delete(e.runId);
          ctx.emitAsyncEnd({
            source: 'poll',
            runId: e.runId,
            flowId: e.flowId,
            kind: e.kind,
            status: e.outcome === 'completed' || e.outcome === 'failed' ? e.outcome : 'unresolved',
            atNs: e.atNs,
            totalTokens: e.totalTokens,
            sessionId: s?.sessionId,
            input: s?.input,
            startNs: s?.startNs ?? e.intendedNs,
            scenario: e.scenario,
          });
        },
      });
    },

    request(r) {
      // A journey asks for a run being followed: it polls it itself from now on.
      if (r.runId === undefined || follower === undefined) return undefined;
      const target = follower.release(r.runId);
      if (target !== undefined) {
        handedOver.set(r.runId, { ...target, session: sessions.get(r.runId) });
        sessions.delete(r.runId);
        if (handedOver.size > MAX_HANDED_OVER) handedOver.delete(handedOver.keys().next().value as string);
      }
      return undefined;
    },

    sample(s) {
      if (s.value === undefined || follower === undefined) return;
      if (s.op === 'getRun') {
        const runId = (s.value as { id?: unknown }).id;
        const h = typeof runId === 'string' ? handedOver.get(runId) : undefined;
        if (h === undefined || (s.runStatus !== 'completed' && s.runStatus !== 'failed')) return;
        handedOver.delete(h.runId);
        const tokens = (s.value as { usage?: { total_tokens?: unknown } }).usage?.total_tokens;
        context?.emitAsyncEnd({
          source: 'poll',
          runId: h.runId,
          flowId: h.flowId,
          kind: h.kind,
          status: s.runStatus,
          atNs: s.endNs,
          totalTokens: typeof tokens === 'number' ? tokens : undefined,
          sessionId: h.session?.sessionId,
          input: h.session?.input,
          startNs: h.session?.startNs ?? h.intendedNs,
          scenario: h.scenario,
        });
        return;
      }
      if (s.op === 'run' && s.runStatus === 'running') {
        const runId = (s.value as { id?: unknown }).id;
        if (typeof runId !== 'string') return;
        sessions.set(runId, { sessionId: s.sessionId, input: s.input, startNs: s.startNs });
        if (!follower.follow({ runId, flowId: s.flowId, kind: 'run', intendedNs: s.intendedNs, scenario: s.scenario })) {
          sessions.delete(runId);
          runningUnfollowed++;
        }
      } else if (s.op === 'trigger' && s.flowId !== undefined) {
        triggersSeen++;
        const runId = runIdOfAck(s.value as TriggerAck);
        if (runId !== undefined && follower.follow({ runId, flowId: s.flowId, kind: 'trigger', intendedNs: s.intendedNs, scenario: s.scenario })) followedTriggers.add(runId);
      }
    },

    asyncEnd(e) {
      // A trigger whose end only a notification told is still a followed asynchronous run.
      if (e.source === 'notification' && e.kind === 'trigger' && e.status !== 'unresolved' && !followedTriggers.has(e.runId)) {
        collector.triggerNotified({ intendedNs: e.startNs, completedNs: e.atNs, status: e.status });
      }
    },

    async finish(ctx) {
      if (follower === undefined) return;
      if (ctx.interrupted || ctx.signal.aborted) return follower.abandonAll();
      const onStop = (): void => follower?.abandonAll();
      ctx.signal.addEventListener('abort', onStop, { once: true });
      await follower.drain();
      ctx.signal.removeEventListener('abort', onStop);
    },

    section: {
      key: 'asyncRuns',
      // Only a run that had asynchronous work has the section.
      project() {
        const a = collector.snapshot();
        const seen = a.followed.run + a.followed.trigger + a.notFollowed.cap + a.notFollowed.stopped + a.polls.total + runningUnfollowed + triggersSeen > 0;
        return seen ? a : undefined;
      },
    },
  };
}
