/**
 * Outbound notifications: signed JSON deliveries to the configured receivers, retried with
 * exponential backoff on the service clock. Events of one run reach a receiver in order
 * (started before completed), because each waits for the previous delivery of that run.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';
import type { Agent } from 'undici';
import { NS_PER_MS, type Clock } from '../core/clock.js';
import type { NotificationSpec } from './options.js';
import type { Prng } from './prng.js';
import { SIGNATURE_HEADER, signPayload } from '../core/webhook-signature.js';
import type { StatsCounters } from './stats.js';
import type { TimerSet } from './timers.js';

/** What happened, independent of the event-name set in force. */
export type NotificationKind = 'run.started' | 'run.completed' | 'run.failed' | 'session.created';

/** Event name of each kind per name set; `undefined`: the set has no name for it (not sent). */
export const EVENT_NAMES: Readonly<Record<'flow.run' | 'flow', Readonly<Record<NotificationKind, string | undefined>>>> = {
  'flow.run': { 'run.started': 'flow.run.started', 'run.completed': 'flow.run.completed', 'run.failed': 'flow.run.failed', 'session.created': 'session.created' },
  flow: { 'run.started': undefined, 'run.completed': 'flow.completed', 'run.failed': 'flow.failed', 'session.created': 'session.created' },
};

/** Sends notifications. */
export interface Notifier {
  /** True when at least one receiver is configured (callers skip building payloads otherwise). */
  readonly enabled: boolean;
  /** Delivers `data` as `kind` to every subscribed receiver; `orderKey` keeps one run's events in order. */
  emit(kind: NotificationKind, data: Record<string, unknown>, orderKey?: string): void;
  /** Stops retries and closes connections. */
  close(): Promise<void>;
}

/** What the notifier needs. */
export interface NotifierDeps {
  readonly receivers: readonly NotificationSpec[];
  readonly eventNames: 'flow.run' | 'flow';
  readonly clock: Clock;
  readonly timers: TimerSet;
  readonly prng: Prng;
  readonly stats: StatsCounters;
  readonly attempts: number;
  readonly backoffMs: number;
  readonly timeoutMs: number;
}

// undici is loaded with the first delivery: most runs of the embedded service configure no
// receiver, and its entry is ~135 ms of the service thread's start-up.
const require = createRequire(import.meta.url);
let undici: typeof Undici | undefined;

/** Creates the notifier. */
export function createNotifier(deps: NotifierDeps): Notifier {
  const { receivers, clock, timers, stats } = deps;
  let closed = false;
  let agent: Agent | undefined;
  const chains = new Map<string, Promise<void>>();

  const attempt = async (r: NotificationSpec, event: string, deliveryId: string, body: string, n: number): Promise<boolean> => {
    stats.deliveries.attempts++;
    const t = Math.floor(clock.wallMs() / 1000);
    try {
      undici ??= require('undici') as typeof Undici;
      const { Agent, request } = undici;
      agent ??= new Agent({ headersTimeout: deps.timeoutMs, bodyTimeout: deps.timeoutMs, connectTimeout: deps.timeoutMs });
      const res = await request(r.webhook_url, {
        method: 'POST',
        dispatcher: agent,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'flowgauge-reference-service',
          [SIGNATURE_HEADER.toLowerCase()]: signPayload(r.secret, t, body),
          'x-flowgauge-event': event,
          'x-flowgauge-delivery': deliveryId,
          'x-flowgauge-attempt': String(n),
        },
        body,
      });
      await res.body.dump();
      return res.statusCode >= 200 && res.statusCode < 300;
    } catch {
      return false;
    }
  };

  const deliver = async (r: NotificationSpec, event: string, body: string): Promise<void> => {
    const deliveryId = `dlv_${deps.prng.hex(16)}`;
    for (let n = 1; n <= deps.attempts; n++) {
      if (closed) return;
      if (await attempt(r, event, deliveryId, body, n)) {
        stats.deliveries.sent++;
        return;
      }
      if (n < deps.attempts) {
        stats.deliveries.retries++;
        await timers.sleepUntil(clock.nowNs() + deps.backoffMs * 2 ** (n - 1) * NS_PER_MS);
      }
    }
    if (!closed) stats.deliveries.failed++;
  };

  return {
    enabled: receivers.length > 0,
    emit(kind, data, orderKey) {
      if (closed) return;
      const event = EVENT_NAMES[deps.eventNames][kind];
      if (event === undefined) return;
      const body = JSON.stringify({ event, data, timestamp: new Date(clock.wallMs()).toISOString() });
      receivers.forEach((r, i) => {
        if (!r.events.includes(event) && !r.events.includes('*')) return;
        if (orderKey === undefined) {
          void deliver(r, event, body);
          return;
        }
        const key = `${i}\u0000${orderKey}`;
        const next = (chains.get(key) ?? Promise.resolve()).then(() => deliver(r, event, body));
        chains.set(key, next);
        void next.then(() => {
          if (chains.get(key) === next) chains.delete(key);
        });
      });
    },
    async close() {
      closed = true;
      chains.clear();
      const a = agent;
      agent = undefined;
      if (a !== undefined) await a.destroy().catch(() => undefined);
    },
  };
}
