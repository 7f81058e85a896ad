/**
 * Notifications in the battery: a receiver for the battery's own runs, and the observation of
 * which event-name set the service used (the interface shows two and says neither is
 * authoritative). Only when a receiver is configured; otherwise "not observed".
 */
import type { Clock } from '../core/clock.js';
import { NOTIFICATION_EVENTS, notificationEventKind } from '../collect/index.js';
import { startWebhookReceiver, type ReceivedDelivery } from '../export/webhook-receiver.js';
import { sleep, type ProbeContext } from './context.js';

/** What the battery reads of a receiver. */
export interface ConformanceNotifications {
  /** Deliveries accepted so far, in arrival order. */
  received(): readonly ReceivedDelivery[];
  /** Deliveries refused so far, by reason. */
  rejected(): Readonly<Record<string, number>>;
}

/** A receiver started for the battery. */
export interface ConformanceReceiver {
  /** The `webhook_url` to register. */
  readonly url: string;
  readonly notifications: ConformanceNotifications;
  close(): Promise<void>;
}

/** Starts a receiver that keeps what it accepts (at most 1000 deliveries). */
export async function startConformanceReceiver(o: { host?: string; port: number; secret: string; clock?: Clock }): Promise<ConformanceReceiver> {
  const got: ReceivedDelivery[] = [];
  const r = await startWebhookReceiver({
    port: o.port,
    secret: o.secret,
    onDelivery: (d) => {
      if (got.length < 1000) got.push(d);
    },
    ...(o.host !== undefined ? { host: o.host } : {}),
    ...(o.clock !== undefined ? { clock: o.clock } : {}),
  });
  return {
    url: r.url,
    notifications: { received: () => got, rejected: () => r.stats().rejected },
    close: () => r.close(),
  };
}

const QUESTION = 'Which event-name set do notifications use: flow.run.completed or flow.completed?';

/** Waits (bounded) for a completion of one of the battery's runs, then names the set seen. */
export async function probeNotifications(ctx: ProbeContext, n: ConformanceNotifications | undefined, waitMs: number): Promise<void> {
  if (n === undefined) {
    ctx.rec.observe({ id: 'notifications.eventNames', topic: 'notifications', question: QUESTION, answer: 'not observed: no receiver was configured (--webhook-listen)', status: 'not-observed' });
    return;
  }
  const ours = new Set(ctx.state.runIds);
  const done = (): boolean => n.received().some((d) => d.runId !== undefined && ours.has(d.runId) && ['completed', 'failed'].includes(notificationEventKind(d.event)));
  const deadline = ctx.clock.nowNs() + waitMs * 1e6;
  while (!done() && ctx.clock.nowNs() < deadline && !ctx.halted()) await sleep(ctx.clock, 50);
  const names = [...new Set(n.received().map((d) => d.event))];
  const sets = new Set(names.map((e) => (Object.hasOwn(NOTIFICATION_EVENTS, e) ? NOTIFICATION_EVENTS[e]?.set : undefined)).filter((s) => s !== undefined));
  const set = sets.size === 0 ? 'none' : sets.size > 1 ? 'mixed' : [...sets][0];
  const rejected = Object.entries(n.rejected()).filter(([, v]) => v > 0);
  ctx.rec.observe({
    id: 'notifications.eventNames',
    topic: 'notifications',
    question: QUESTION,
    answer:
      names.length === 0
        ? `not observed: no delivery arrived within ${waitMs} ms`
        : `the ${set === 'flow.run' ? 'flow.run.*' : set === 'flow' ? 'flow.completed / flow.failed' : set} set (${names.join(', ')})` +
          `${rejected.length > 0 ? `; refused: ${rejected.map(([k, v]) => `${k} ${v}`).join(', ')}` : ''}`,
    status: names.length === 0 ? 'not-observed' : 'observed',
    value: { set, events: names },
  });
}
