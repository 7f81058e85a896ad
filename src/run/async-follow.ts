/**
 * Following asynchronous work off the hot path: a run that answered `running` (or a trigger
 * whose run id is known) is polled with `GET /runs/{id}` at a bounded interval until it
 * finishes, fails, or times out. At most `maxConcurrent` runs are followed at once; runs
 * beyond the cap are counted, not followed. Polls are not part of the scenario's load: they
 * are reported in `asyncRuns`, not in `ops.getRun`. A run the scenario polls itself is handed
 * over (`release`): the follower stops polling it.
 */
import { retryWaitSeconds, type Client, type ResponseMeta } from '../api/index.js';
import { NS_PER_MS, type Clock, type TimerHandle } from '../core/clock.js';
import { ConfigError, type ConfigIssue } from '../core/errors.js';
import type { AsyncKind, AsyncRunsCollector, AsyncRunTrack, FollowEnd } from '../collect/index.js';

/** How to follow. */
export interface FollowOptions {
  /** Time between polls of one run (default 250 ms). */
  readonly pollIntervalMs?: number;
  /** Runs followed at once (default 32); each costs one request per interval. */
  readonly maxConcurrent?: number;
  /** A run not finished this long after it was first seen is given up as `timeout` (default 60 s). */
  readonly timeoutMs?: number;
}

/** Follow options with every default filled. */
export interface ResolvedFollowOptions {
  readonly pollIntervalMs: number;
  readonly maxConcurrent: number;
  readonly timeoutMs: number;
}

/** Resolves follow options; throws `ConfigError` listing every problem. */
export function resolveFollowOptions(o: FollowOptions = {}): ResolvedFollowOptions {
  const issues: ConfigIssue[] = [];
  const pollIntervalMs = o.pollIntervalMs ?? 250;
  const maxConcurrent = o.maxConcurrent ?? 32;
  const timeoutMs = o.timeoutMs ?? 60_000;
  if (!(Number.isFinite(pollIntervalMs) && pollIntervalMs >= 10)) issues.push({ path: 'pollIntervalMs', message: 'must be at least 10 ms' });
  if (!(Number.isInteger(maxConcurrent) && maxConcurrent >= 1)) issues.push({ path: 'maxConcurrent', message: 'must be a whole number >= 1' });
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) issues.push({ path: 'timeoutMs', message: 'must be a positive duration' });
  if (issues.length > 0) throw new ConfigError(issues, 'follow options');
  return { pollIntervalMs, maxConcurrent, timeoutMs };
}

/** One run to follow. */
export interface FollowTarget {
  readonly runId: string;
  readonly flowId: string | undefined;
  readonly kind: AsyncKind;
  /** Intended start of the request that started the run (time to completion is measured from it). */
  readonly intendedNs: number;
  /** The scenario whose request started it: the run is polled with that scenario's client (its token). */
  readonly scenario?: string | undefined;
}

/** How a follow ended, for the notification matcher and the usage audit. */
export interface FollowEndInfo extends FollowTarget {
  readonly outcome: FollowEnd;
  readonly atNs: number;
  /** `usage.total_tokens` of the last poll, when the body had it (the status read does not state it). */
  readonly totalTokens: number | undefined;
}

/** The follower. */
export interface AsyncFollower {
  readonly options: ResolvedFollowOptions;
  /** Starts following; false when the cap was reached or the follower was stopped (counted). */
  follow(target: FollowTarget): boolean;
  /**
   * Stops following `runId` without an end (someone else polls it now): no poll follows, one in
   * flight still counts. Gives back what was followed, or undefined when the run was not.
   */
  release(runId: string): FollowTarget | undefined;
  /** Runs being followed. */
  readonly active: number;
  /** Resolves once no run is being followed (each ends by its timeout at the latest). */
  drain(): Promise<void>;
  /** Stops every follow now (`abandoned`) and refuses new ones. */
  abandonAll(): void;
}

/** What the follower needs. */
export interface AsyncFollowerDeps {
  /** The client of a run without a scenario, or of every run when `clientOf` is absent. */
  readonly client: Client;
  /** Told of every poll's answer, with the scenario whose token it spent (the rate-limit window counts it). */
  readonly onAnswer?: (scenario: string | undefined, meta: ResponseMeta) => void;
  /** The client of a scenario (tenants: each its own token); a run is polled with its scenario's. */
  readonly clientOf?: (scenario: string) => Client;
  readonly clock: Clock;
  readonly options: ResolvedFollowOptions;
  readonly collector: AsyncRunsCollector;
  readonly onEnd?: (info: FollowEndInfo) => void;
}

interface Follow {
  readonly target: FollowTarget;
  /** Who polls it: the client of the scenario that started it. */
  readonly client: Client;
  readonly track: AsyncRunTrack;
  readonly deadlineNs: number;
  readonly abort: AbortController;
  timer: TimerHandle | undefined;
  tokens: number | undefined;
  /** Handed over (`release`): no longer followed. */
  released: boolean;
}

/** Statuses after which polling cannot help: the run is gone or not ours. */
const FINAL_HTTP = new Set([401, 403, 404]);


/** Creates a follower. */
export function createAsyncFollower(deps: AsyncFollowerDeps): AsyncFollower {
  const { client, clock, options, collector } = deps;
  const intervalNs = options.pollIntervalMs * NS_PER_MS;
  const follows = new Set<Follow>();
  const byRunId = new Map<string, Follow>();
  let stopped = false;
  let waiters: (() => void)[] = [];

  /** Forgets `f`; false when it was not being followed. */
  const drop = (f: Follow): boolean => {
    if (!follows.delete(f)) return false;
    if (byRunId.get(f.target.runId) === f) byRunId.delete(f.target.runId);
    if (f.timer !== undefined) clock.clearTimer(f.timer);
    f.timer = undefined;
    return true;
  };
  const wakeIfIdle = (): void => {
    if (follows.size > 0) return;
    const w = waiters;
    waiters = [];
    for (const fn of w) fn();
  };

  const end = (f: Follow, outcome: FollowEnd, atNs: number): void => {
    if (!drop(f)) return;
    f.track.end(outcome, atNs);
    try {
      deps.onEnd?.({ ...f.target, outcome, atNs, totalTokens: f.tokens });
    } catch {
      // A consumer's mistake must not stop the other follows.
    }
    wakeIfIdle();
  };

  const schedule = (f: Follow, atNs: number): void => {
    f.timer = clock.setTimer(Math.min(atNs, f.deadlineNs), () => {
      f.timer = undefined;
      void poll(f);
    });
  };

  const poll = async (f: Follow): Promise<void> => {
    const r = await f.client.getRun(f.target.runId, { signal: f.abort.signal });
    deps.onAnswer?.(f.target.scenario, r.meta);
    const body = r.ok ? (r.value as unknown as Record<string, unknown>) : undefined;
    const runStatus = typeof body?.status === 'string' ? body.status : undefined;
    // A poll of a run handed over meanwhile was still sent: it counts, and nothing follows it.
    if (!follows.has(f) && !f.released) return;
    f.track.poll({ httpStatus: r.meta.status, errorCode: r.ok ? undefined : r.error.code, runStatus, progress: body?.progress });
    if (f.released) return;
    const nowNs = clock.nowNs();
    const usage = body?.usage as { total_tokens?: unknown } | undefined;
    if (typeof usage?.total_tokens === 'number') f.tokens = usage.total_tokens;
    if (runStatus === 'completed' || runStatus === 'failed') return end(f, runStatus, r.meta.endNs);
    if (!r.ok && FINAL_HTTP.has(r.meta.status)) return end(f, 'error', nowNs);
    if (nowNs >= f.deadlineNs) return end(f, 'timeout', nowNs);
    // Honour a Retry-After on 429/503: polling harder would only burn the budget of the load.
    const throttled = r.meta.status === 429 || r.meta.status === 503;
    const wait = Math.max(intervalNs, throttled ? (retryWaitSeconds(r.meta.rateLimit) ?? 0) * 1000 * NS_PER_MS : 0);
    schedule(f, nowNs + wait);
  };

  return {
    options,
    follow(target) {
      if (stopped) {
        collector.skipped('stopped');
        return false;
      }
      if (follows.size >= options.maxConcurrent) {
        collector.skipped('cap');
        return false;
      }
      const nowNs = clock.nowNs();
      const f: Follow = {
        target,
        client: target.scenario !== undefined && deps.clientOf !== undefined ? deps.clientOf(target.scenario) : client,
        track: collector.begin(target.kind, target.intendedNs),
        deadlineNs: nowNs + options.timeoutMs * NS_PER_MS,
        abort: new AbortController(),
        timer: undefined,
        tokens: undefined,
        released: false,
      };
      follows.add(f);
      byRunId.set(target.runId, f);
      schedule(f, nowNs + intervalNs);
      return true;
    },
    release(runId) {
      const f = byRunId.get(runId);
      if (f === undefined || !drop(f)) return undefined;
      f.released = true;
      f.track.release();
      wakeIfIdle();
      return f.target;
    },
    get active() {
      return follows.size;
    },
    drain() {
      if (follows.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.push(resolve));
    },
    abandonAll() {
      stopped = true;
      const nowNs = clock.nowNs();
      for (const f of [...follows]) {
        f.abort.abort();
        end(f, 'abandoned', nowNs);
      }
    },
  };
}
