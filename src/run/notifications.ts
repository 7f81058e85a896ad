/**
 * Notifications during a run: the receiver (api/) and the matcher (collect/) wired together,
 * with the client's observations fed in by the engine. The caller starts it before the target
 * (so an embedded service can be pointed at `url`) and closes it after the report.
 */
import { createSystemClock, NS_PER_MS, type Clock } from '../core/clock.js';
import { InvalidArgumentError } from '../core/errors.js';
import { createNotificationMatcher, type NotificationMatcher } from '../collect/index.js';
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../export/webhook-receiver.js';
import type { NotificationsReport } from '../report/index.js';

/** The section's shape lives in report/ (report@1); re-exported for callers. */
export type { NotificationsReport };

/** Options of `startNotificationTracking`. */
export interface NotificationTrackingOptions {
  readonly host?: string;
  readonly port: number;
  /** Shared secret of the signatures; never shown or stored. */
  readonly secret: string;
  /** Must be the run's clock: receipts are compared with the client's timings. Default: the system clock. */
  readonly clock?: Clock;
  /** See `NotificationMatcherOptions.graceMs` (default 5000 ms). */
  readonly graceMs?: number;
  readonly toleranceS?: number;
  readonly maxBodyBytes?: number;
}

/** What the metrics of notifications need (implemented by `RunMetrics` when present). */
export interface NotificationMetricsSink {
  observeNotification?(result: string, latencyS?: number): void;
}

/** Notification tracking of one run. */
export interface NotificationTracking {
  /** Where to send deliveries (the `webhook_url` to register). */
  readonly url: string;
  readonly matcher: NotificationMatcher;
  readonly graceMs: number;
  /** Counts each delivery and refusal in `sink` from now on. */
  attachMetrics(sink: NotificationMetricsSink | undefined): void;
  /**
   * Waits until every completion the client saw has its delivery (and every accepted trigger
   * a completion), or until `graceMs` has passed, or `signal` aborts. Polls with a deadline.
   */
  settle(signal?: AbortSignal): Promise<void>;
  report(nowNs: number): NotificationsReport;
  close(): Promise<void>;
}

const SETTLE_POLL_MS = 25;

/**
 * Reads `--webhook-listen`: `host:port`, `[v6]:port`, `:port` or `port` (host 127.0.0.1).
 * Undefined when it is none of those.
 */
export function parseListenAddress(s: string): { host: string; port: number } | undefined {
  const m = /^(?:(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]*):)?(\d{1,5})$/.exec(s.trim());
  if (m === null) return undefined;
  const port = Number(m[2]);
  if (port > 65535) return undefined;
  const rawHost = m[1] ?? '';
  const host = rawHost === '' ? '127.0.0.1' : rawHost.replace(/^\[|\]$/g, '');
  return { host, port };
}

/** Starts the receiver and the matcher. Throws `ConfigError`/`FlowgaugeError` when it cannot listen. */
export async function startNotificationTracking(options: NotificationTrackingOptions): Promise<NotificationTracking> {
  const clock = options.clock ?? createSystemClock();
  const graceMs = options.graceMs ?? 5000;
  if (!(Number.isFinite(graceMs) && graceMs >= 0)) throw new InvalidArgumentError('graceMs must be a duration >= 0');
  const matcher = createNotificationMatcher({ graceMs });
  let sink: NotificationMetricsSink | undefined;
  const onDelivery = (d: ReceivedDelivery): void => {
    const r = matcher.delivery(d);
    sink?.observeNotification?.(r.verdict, r.latencyNs === undefined ? undefined : r.latencyNs / 1e9);
  };
  const receiver: WebhookReceiver = await startWebhookReceiver({
    port: options.port,
    secret: options.secret,
    clock,
    onDelivery,
    onReject: (reason) => sink?.observeNotification?.(reason),
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.toleranceS !== undefined ? { toleranceS: options.toleranceS } : {}),
    ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
  });

  return {
    url: receiver.url,
    matcher,
    graceMs,
    attachMetrics(s) {
      sink = s;
    },
    async settle(signal) {
      const deadlineNs = clock.nowNs() + graceMs * NS_PER_MS;
      while (matcher.awaiting(clock.nowNs()) > 0 && clock.nowNs() < deadlineNs && signal?.aborted !== true) {
        await new Promise<void>((resolve) => clock.setTimer(Math.min(deadlineNs, clock.nowNs() + SETTLE_POLL_MS * NS_PER_MS), resolve));
      }
    },
    report(nowNs) {
      const s = receiver.stats();
      return { ...matcher.snapshot(nowNs), requests: s.requests, rejected: s.rejected };
    },
    close: () => receiver.close(),
  };
}
