/**
 * `runConformance`: a bounded, sequential battery of requests (a few dozen, no load) against one
 * target, observing what the interface leaves unsaid and recording every departure from what it
 * states. Never throws for what the target does: an unreachable target is a report too.
 */
import { createSystemClock, type Clock } from '../core/clock.js';
import { InvalidArgumentError } from '../core/errors.js';
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
}

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
  const rec = createRecorder();
  const x = createExchange({
    baseUrl: o.baseUrl,
    webhookHost: o.webhookHost ?? origin,
    token: o.token,
    clock,
    onAnswer: (a: ExchangeAnswer) => rec.check(a),
    ...(o.otherToken !== undefined && o.otherToken !== '' ? { otherToken: o.otherToken } : {}),
    ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
    ...(o.maxRetryWaitMs !== undefined ? { maxRetryWaitMs: o.maxRetryWaitMs } : {}),
    ...(o.target !== undefined ? { target: o.target } : {}),
  });
  const state: BatteryState = { flowId: undefined, runIds: [], failedErrors: [], progress: [] };
  const ctx: ProbeContext = {
    x,
    rec,
    clock,
    state,
    send: (req) => (x.sent >= maxRequests ? Promise.resolve(undefined) : x.send(req)),
  };
  const startedAt = new Date(clock.wallMs()).toISOString();
  let reachable = true;
  let tokenAccepted = true;
  try {
    const first = await probeReachable(ctx);
    reachable = first !== 'unreachable';
    tokenAccepted = first !== 'refused';
    if (first === 'ok') {
      await probeAuth(ctx);
      await probeLists(ctx);
      await probeFlows(ctx);
      await probeRun(ctx);
      await probeStreams(ctx);
      await probeRunErrors(ctx);
      await probeSessions(ctx);
      await probeUsage(ctx);
      await probeTrigger(ctx);
      await probeNotifications(ctx, o.notifications, o.notificationWaitMs ?? 5000);
      // Last: reaching the limit on purpose would throttle every probe after it.
      await probeRateLimits(ctx);
      observeRunFindings(ctx);
      observeAnswerTallies(ctx);
    }
  } finally {
    await x.close();
  }
  const violations = rec.violations();
  return {
    schema: CONFORMANCE_SCHEMA,
    target: { baseUrl: redactUrl(o.baseUrl), embedded: o.embedded === true },
    startedAt,
    endedAt: new Date(clock.wallMs()).toISOString(),
    reachable,
    tokenAccepted,
    requests: x.sent,
    observations: rec.observations(),
    violations,
    passed: reachable && tokenAccepted && violations.length === 0,
  };
}
