/**
 * `runConformance`: a bounded, sequential battery of requests (a few dozen, no load) against one
 * target, observing what the interface leaves unsaid and recording every departure from what it
 * states. Never throws for what the target does: an unreachable target is a report too.
 */
import { createSystemClock, NS_PER_MS, type Clock } from '../core/clock.js';
import { InvalidArgumentError } from '../core/errors.js';
import { createRedactor, redactDeep } from '../api/redact.js';
import { redactUrl } from '../report/index.js';
import type { BatteryState, ProbeContext } from './context.js';
import { createExchange, type ConformanceTarget, type ExchangeAnswer } from './exchange.js';
import { CONFORMANCE_SCHEMA, type ConformanceReport } from './model.js';
import { probeNotifications, type ConformanceNotifications } from './notifications.js';
import { probeAuth, probeFlows, probeLists, probeReachable } from './probes-basic.js';
import { observeAnswerTallies, probeRateLimits } from './probes-limits.js';
import { probeTrigger, probeUsage } from './probes-misc.js';
import { observeRunFindings, probeRun, probeRunErrors, probeSessions, probeStreams } from './probes-runs.js';
import { createRecorder } from './recorder.js';

/** Options of `runConformance`. */
export interface ConformanceOptions {
  /** API address ending in the version segment. */
  readonly baseUrl: string;
  /** Trigger host (default: the origin of `baseUrl`). */
  readonly webhookHost?: string;
  readonly token: string;
  /** A token of another account: enables the cross-account checks. */
  readonly otherToken?: string;
  readonly embedded?: boolean;
  readonly clock?: Clock;
  /** Most requests the battery may send (default 150; a run without a 429 to provoke sends about 50). */
  readonly maxRequests?: number;
  /** A receiver the target notifies; without one, the event-name set is not observed. */
  readonly notifications?: ConformanceNotifications;
  /** How long to wait for a notification of the battery's runs (default 5000 ms). */
  readonly notificationWaitMs?: number;
  /** Per-request timeout (default 30 s). */
  readonly timeoutMs?: number;
  /** Longest wait for a rate-limit window when the battery itself is throttled (default 65 s). */
  readonly maxRetryWaitMs?: number;
  /** TLS trust, gateway headers and a proxy, for a real deployment. */
  readonly target?: ConformanceTarget;
  /**
   * The whole battery's deadline in ms (default `DEFAULT_CONFORMANCE_DEADLINE_MS`): no request
   * outlives it, and once it passes no probe sends again; the report says what was cut.
   */
  readonly deadlineMs?: number;
  /** Told each probe group as it starts (`listing flows`), and how many requests it took. */
  readonly onProgress?: (p: ConformanceProgress) => void;
  /**
   * Ms of the deadline already spent before the battery began (the command's own start-up, so
   * that `--deadline` bounds the whole command). Default 0.
   */
  readonly spentMs?: number;
  /**
   * Stops the battery (Ctrl-C): the request in flight is cancelled, no probe sends again, and
   * the report says what was cut (`interrupted`). Answers arriving after it are not judged.
   */
  readonly signal?: AbortSignal;
}

/** Progress of the battery, one call per probe group. */
export interface ConformanceProgress {
  /** The group, e.g. `auth`, `streams`. */
  readonly group: string;
  /** Its place in the battery, from 1. */
  readonly index: number;
  readonly total: number;
  /** Requests sent before it started. */
  readonly requests: number;
  /** Ms since the battery started. */
  readonly elapsedMs: number;
}

/** The battery's deadline when none is given: three minutes, ten times what it takes against a healthy target. */
export const DEFAULT_CONFORMANCE_DEADLINE_MS = 180_000;

/** Runs the battery and returns what it saw. */
export async function runConformance(o: ConformanceOptions): Promise<ConformanceReport> {
  if (typeof o.token !== 'string' || o.token === '') throw new InvalidArgumentError('runConformance: token must be a non-empty string');
  let origin: string;
  try {
    origin = new URL(o.baseUrl).origin;
  } catch {
    throw new InvalidArgumentError('runConformance: baseUrl must be a URL');
  }
  const clock = o.clock ?? createSystemClock();
  const maxRequests = o.maxRequests ?? 150;
  const deadlineMs = o.deadlineMs ?? DEFAULT_CONFORMANCE_DEADLINE_MS;
  if (!(Number.isFinite(deadlineMs) && deadlineMs > 0)) throw new InvalidArgumentError('runConformance: deadlineMs must be a positive number of ms');
  const startNs = clock.nowNs();
  const deadlineNs = startNs + Math.max(0, deadlineMs - (o.spentMs ?? 0)) * NS_PER_MS;
  const late = (): boolean => clock.nowNs() >= deadlineNs;
  const stopped = (): boolean => o.signal?.aborted === true;
  const halted = (): boolean => late() || stopped();
  const rec = createRecorder();
  const x = createExchange({
    baseUrl: o.baseUrl,
    webhookHost: o.webhookHost ?? origin,
    token: o.token,
    clock,
    // An answer cut by the stop says nothing of the target.
    onAnswer: (a: ExchangeAnswer) => {
      if (!stopped()) rec.check(a);
    },
    ...(o.signal !== undefined ? { signal: o.signal } : {}),
    ...(o.otherToken !== undefined && o.otherToken !== '' ? { otherToken: o.otherToken } : {}),
    ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
    ...(o.maxRetryWaitMs !== undefined ? { maxRetryWaitMs: o.maxRetryWaitMs } : {}),
    ...(o.target !== undefined ? { target: o.target } : {}),
    deadlineNs,
  });
  const state: BatteryState = { flowId: undefined, runIds: [], failedErrors: [], progress: [] };
  const ctx: ProbeContext = {
    x,
    rec,
    clock,
    state,
    // An answer the stop cut short is no answer: no probe judges it.
    send: (req) => (x.sent >= maxRequests || halted() ? Promise.resolve(undefined) : x.send(req).then((a) => (stopped() ? undefined : a))),
    halted,
  };
  const startedAt = new Date(clock.wallMs()).toISOString();
  const groups: readonly (readonly [string, () => Promise<unknown>])[] = [
    ['auth', () => probeAuth(ctx)],
    ['lists', () => probeLists(ctx)],
    ['flows', () => probeFlows(ctx)],
    ['runs', () => probeRun(ctx)],
    ['streams', () => probeStreams(ctx)],
    ['run errors', () => probeRunErrors(ctx)],
    ['sessions', () => probeSessions(ctx)],
    ['usage', () => probeUsage(ctx)],
    ['trigger', () => probeTrigger(ctx)],
    ['notifications', () => probeNotifications(ctx, o.notifications, Math.min(o.notificationWaitMs ?? 5000, remainingMs()))],
    // Last: reaching the limit on purpose would throttle every probe after it.
    ['rate limits', () => probeRateLimits(ctx)],
  ];
  const total = groups.length + 1;
  const progress = (group: string, index: number): void =>
    o.onProgress?.({ group, index, total, requests: x.sent, elapsedMs: Math.round((clock.nowNs() - startNs) / NS_PER_MS) });
  function remainingMs(): number {
    return stopped() ? 0 : Math.max(0, Math.round((deadlineNs - clock.nowNs()) / NS_PER_MS));
  }
  let reachable = true;
  let tokenAccepted = true;
  let protocol: string | undefined;
  const cut: string[] = [];
  try {
    // Nothing tried is not "unreachable": a deadline spent before the first request (the
    // command's start-up took it) or a stop that came first cuts everything, and says so.
    if (halted()) {
      cut.push('reachability', ...groups.map(([g]) => g));
      return finish();
    }
    progress('reachability', 1);
    const first = await probeReachable(ctx);
    reachable = first.reach !== 'unreachable';
    tokenAccepted = first.reach !== 'refused';
    protocol = first.protocol;
    if (first.reach === 'ok') {
      for (const [i, [group, run]] of groups.entries()) {
        if (halted()) {
          cut.push(group);
          continue;
        }
        progress(group, i + 2);
        await run();
      }
      observeRunFindings(ctx);
      observeAnswerTallies(ctx);
    }
  } finally {
    await x.close();
  }
  return finish();

  function finish(): ConformanceReport {
    // A target may echo a token anywhere (an error code, a header, an event): nothing of it is kept.
    const redactors = [o.token, o.otherToken].filter((t): t is string => t !== undefined && t !== '').map(createRedactor);
    const redact = (s: string): string => redactors.reduce((text, r) => r(text), s);
    const violations = redactDeep(rec.violations(), redact);
    const interrupted = stopped();
    const expired = !interrupted && late();
    return {
      schema: CONFORMANCE_SCHEMA,
      target: { baseUrl: redactUrl(o.baseUrl), embedded: o.embedded === true },
      startedAt,
      endedAt: new Date(clock.wallMs()).toISOString(),
      reachable,
      tokenAccepted,
      requests: x.sent,
      observations: redactDeep(rec.observations(), redact),
      violations,
      ...(protocol !== undefined ? { protocol } : {}),
      ...(expired ? { deadline: { ms: deadlineMs, cut } } : {}),
      ...(interrupted ? { interrupted: { cut } } : {}),
      passed: reachable && tokenAccepted && protocol === undefined && violations.length === 0 && !expired && !interrupted,
    };
  }
}
