/** The follower on a fake clock and a scripted client: polling cadence, Retry-After, final statuses. */
import { describe, expect, it } from 'vitest';
import type { ApiResult, Client, RunStatusBody } from '../../src/api/index.js';
import { createAsyncRunsCollector } from '../../src/collect/index.js';
import { createFakeClock, type FakeClock } from '../../src/core/clock.js';
import { createAsyncFollower, resolveFollowOptions, runIdOfAck, type FollowEndInfo } from '../../src/run/index.js';

const MS = 1e6;

type Step = { status: number; run?: Partial<RunStatusBody>; retryAfter?: string };

/** A client whose getRun answers from a script, one step per call, stamped with the fake clock. */
function scriptedClient(clock: FakeClock, steps: Step[]): { client: Client; calls: number[] } {
  const calls: number[] = [];
  const getRun = (): Promise<ApiResult<RunStatusBody>> => {
    calls.push(clock.nowNs() / MS);
    const s = steps.shift() ?? { status: 200, run: { status: 'running', progress: 1 } };
    const raw = { limit: undefined, remaining: undefined, reset: undefined, retryAfter: s.retryAfter };
    const meta = { status: s.status, requestId: undefined, rateLimit: { limit: undefined, remaining: undefined, reset: undefined, raw }, startNs: clock.nowNs(), headersNs: clock.nowNs(), endNs: clock.nowNs(), sentNs: clock.nowNs(), connectNs: 0, tlsNs: 0 };
    if (s.status === 200) return Promise.resolve({ ok: true, value: { id: 'r', flow_id: 'f', output: '', error: null, created_at: '', status: 'running', progress: 0, ...s.run } as RunStatusBody, meta, violations: [] });
    const code = s.status === 429 ? 'RATE_LIMITED' : s.status === 404 ? 'NOT_FOUND' : 'INTERNAL_ERROR';
    return Promise.resolve({ ok: false, error: { code, status: s.status } as never, meta, violations: [] });
  };
  return { client: { getRun } as unknown as Client, calls };
}

/** Advances the fake clock in small steps, letting each poll's promise settle. */
async function advance(clock: FakeClock, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 10) {
    clock.advance(10 * MS);
    for (let i = 0; i < 5; i++) await Promise.resolve();
  }
}

function setup(steps: Step[], options = {}) {
  const clock = createFakeClock();
  const { client, calls } = scriptedClient(clock, steps);
  const collector = createAsyncRunsCollector({ pollIntervalMs: 250 });
  const ends: FollowEndInfo[] = [];
  const follower = createAsyncFollower({ client, clock, options: resolveFollowOptions({ pollIntervalMs: 250, ...options }), collector, onEnd: (e) => ends.push(e) });
  return { clock, calls, collector, ends, follower };
}

describe('async follower', () => {
  it('polls every interval until the run completes, and reports when it saw the end', async () => {
    const { clock, calls, collector, ends, follower } = setup([
      { status: 200, run: { progress: 10 } },
      { status: 200, run: { progress: 50 } },
      { status: 200, run: { status: 'completed', progress: 100, usage: { total_tokens: 9, prompt_tokens: 2, completion_tokens: 7 } } as never },
    ]);
    expect(follower.follow({ runId: 'r', flowId: 'f', kind: 'run', intendedNs: 0 })).toBe(true);
    const drained = follower.drain();
    await advance(clock, 1000);
    await drained;
    expect(calls).toEqual([250, 500, 750]);
    expect(ends).toEqual([expect.objectContaining({ runId: 'r', outcome: 'completed', atNs: 750 * MS, totalTokens: 9 })]);
    const s = collector.snapshot();
    expect(s.final.completed).toBe(1);
    expect(s.timeToCompletionMs.max).toBeCloseTo(750, -1);
    expect(s.progress).toMatchObject({ min: 10, max: 100, monotonic: true });
    expect(follower.active).toBe(0);
  });

  it('lets go of a run someone else polls: no poll follows, the ones sent stay counted, no end is announced', async () => {
    const { clock, calls, collector, ends, follower } = setup([]);
    follower.follow({ runId: 'r', flowId: 'f', kind: 'run', intendedNs: 0 });
    follower.follow({ runId: 'other', flowId: 'f', kind: 'run', intendedNs: 0 });
    await advance(clock, 300);
    expect(calls).toEqual([250, 250]);
    expect(follower.release('r')).toMatchObject({ runId: 'r', kind: 'run' });
    expect(follower.release('r')).toBeUndefined();
    expect(follower.release('never-followed')).toBeUndefined();
    expect(follower.active).toBe(1);
    await advance(clock, 300);
    // Only the other run is polled again.
    expect(calls).toEqual([250, 250, 500]);
    follower.abandonAll();
    const s = collector.snapshot();
    expect(s.followed.run).toBe(1);
    expect(s.final.abandoned).toBe(1);
    expect(s.active).toBe(0);
    expect(s.polls.total).toBe(3);
    expect(ends.map((e) => e.runId)).toEqual(['other']);
  });

  it('waits out a Retry-After before the next poll', async () => {
    const { clock, calls, follower } = setup([{ status: 429, retryAfter: '2' }, { status: 200, run: { status: 'failed', progress: 30 } }]);
    follower.follow({ runId: 'r', flowId: 'f', kind: 'run', intendedNs: 0 });
    await advance(clock, 3000);
    expect(calls).toEqual([250, 2250]);
  });

  it('ends with error on 404, and with timeout when the run never finishes', async () => {
    const a = setup([{ status: 404 }]);
    a.follower.follow({ runId: 'gone', flowId: 'f', kind: 'run', intendedNs: 0 });
    await advance(a.clock, 500);
    expect(a.ends.map((e) => e.outcome)).toEqual(['error']);

    const b = setup([], { timeoutMs: 1000 });
    b.follower.follow({ runId: 'slow', flowId: 'f', kind: 'trigger', intendedNs: 0 });
    await advance(b.clock, 1500);
    expect(b.ends.map((e) => e.outcome)).toEqual(['timeout']);
    expect(b.calls.at(-1)).toBe(1000);
    expect(b.collector.snapshot().followed).toEqual({ run: 0, trigger: 1 });
  });

  it('refuses runs over the cap and after abandonAll, counting both', async () => {
    const { follower, collector, ends } = setup([], { maxConcurrent: 1 });
    expect(follower.follow({ runId: 'a', flowId: 'f', kind: 'run', intendedNs: 0 })).toBe(true);
    expect(follower.follow({ runId: 'b', flowId: 'f', kind: 'run', intendedNs: 0 })).toBe(false);
    follower.abandonAll();
    expect(follower.follow({ runId: 'c', flowId: 'f', kind: 'run', intendedNs: 0 })).toBe(false);
    await follower.drain();
    expect(ends.map((e) => e.outcome)).toEqual(['abandoned']);
    expect(collector.snapshot().notFollowed).toEqual({ cap: 1, stopped: 1 });
  });

  it('rejects nonsense options, and finds a run id in an acknowledgement when one is given', () => {
    expect(() => resolveFollowOptions({ pollIntervalMs: 1, maxConcurrent: 0, timeoutMs: -1 })).toThrow(/pollIntervalMs[\s\S]*maxConcurrent[\s\S]*timeoutMs/);
    expect(runIdOfAck({ message: 'started', status: 'in progress' })).toBeUndefined();
    expect(runIdOfAck({ message: 'started', status: 'in progress', run_id: 'run_9' })).toBe('run_9');
  });
});
