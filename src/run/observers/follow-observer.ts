/**
 * Following: runs that answer `running` (and triggers whose acknowledgement names a run) are
 * polled with `GET /runs/{id}` to their end, which is announced to every observer as an
 * `AsyncEnd`. Adds the `asyncRuns` section.
 */
import type { TriggerAck } from '../../api/index.js';
import { createAsyncRunsCollector } from '../../collect/index.js';
import { createAsyncFollower, type AsyncFollower, type ResolvedFollowOptions } from '../async-follow.js';
import type { RunObserver } from '../observer.js';
import { runIdOfAck } from '../run-ids.js';

/** The following observer. */
export function createFollowObserver(options: ResolvedFollowOptions): RunObserver {
  const collector = createAsyncRunsCollector({ pollIntervalMs: options.pollIntervalMs });
  let follower: AsyncFollower | undefined;
  const sessions = new Map<string, { sessionId: string | undefined; input: string | undefined; startNs: number }>();
  const followedTriggers = new Set<string>();
  let runningUnfollowed = 0;
  let triggersSeen = 0;

  return {
    name: 'follow',
    values: 'async',

    start(ctx) {
      follower = createAsyncFollower({
        client: ctx.client,
        // Each run is read with the token that started it: another tenant's token may not read it.
        clientOf: (scenario) => ctx.clientOf(scenario),
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

    sample(s) {
      if (s.value === undefined || follower === undefined) return;
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

    sections() {
      const a = collector.snapshot();
      const seen = a.followed.run + a.followed.trigger + a.notFollowed.cap + a.notFollowed.stopped + runningUnfollowed + triggersSeen > 0;
      return seen ? { asyncRuns: a } : {};
    },
  };
}
