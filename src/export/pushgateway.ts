/**
 * Pushes a registry to a Prometheus Pushgateway on an interval, for runs too short or too
 * far away to be scraped. Each push is an HTTP PUT of the whole exposition, which replaces
 * the group's previous metrics. A failed push is counted and returned, never thrown: losing
 * a push must not stop a load test.
 *
 * The final push (`stop`) never taxes the command it ends: a push still in flight is abandoned
 * (the final one carries the same and newer values), and the final push gets one attempt of at
 * most `finalTimeoutMs` (1 s), after which its connection is torn down, so a Pushgateway that
 * is down or accepts and never answers costs at most that.
 */
import { undiciModule } from '../transport/undici-dispatcher.js';
import { urlWithoutSecrets } from '../core/url-redact.js';
import { InvalidArgumentError } from '../core/errors.js';
import { NS_PER_MS, type Clock, type TimerHandle } from '../core/clock.js';
import type { MetricsSource } from './metrics-server.js';

/** Options of `createPushgatewayPusher`. */
export interface PushgatewayOptions {
  /** Base URL of the Pushgateway, e.g. `http://127.0.0.1:9091`. */
  readonly url: string;
  /** The `job` grouping label. */
  readonly job: string;
  /** Further grouping labels, e.g. `{ instance, shard }`. */
  readonly grouping?: Readonly<Record<string, string>>;
  readonly registry: MetricsSource;
  /** Interval between pushes; the first push happens one interval after `start()`. */
  readonly intervalMs: number;
  readonly clock: Clock;
  /** Give up on one periodic push after this long (default 10 s). */
  readonly timeoutMs?: number;
  /** Give up on the final push (`stop`) after this long (default 1 s): one attempt, no retry. */
  readonly finalTimeoutMs?: number;
}

/** How long the final push may take by default. */
export const DEFAULT_FINAL_PUSH_TIMEOUT_MS = 1000;

/** The result of one push. */
export interface PushOutcome {
  readonly ok: boolean;
  /** HTTP status; 0 when no response arrived. */
  readonly status: number;
  /** Why it failed (an error code, `HTTP <status>`, or `TIMEOUT` for no answer in time); absent on success. */
  readonly error?: string;
}

/** Counts since creation. */
export interface PushStats {
  readonly pushes: number;
  readonly failures: number;
  readonly last: PushOutcome | undefined;
}

/** A periodic pusher. */
export interface PushgatewayPusher {
  /** The group URL pushes go to. */
  readonly groupUrl: string;
  /** The group URL as a message may show it: no credentials, no query. */
  readonly shownUrl: string;
  /** Starts periodic pushes. */
  start(): void;
  /** Pushes now (also while stopped, until `stop()` finished). */
  pushNow(): Promise<PushOutcome>;
  /**
   * Stops the timer, abandons a push in flight, makes one final push of at most
   * `finalTimeoutMs` and tears the connections down. Never rejects.
   */
  stop(): Promise<PushOutcome>;
  stats(): PushStats;
}

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * One path segment pair of the grouping key. Values containing `/` (or empty ones) use the
 * Pushgateway's `@base64` form, since `%2F` is decoded before routing by many proxies.
 */
export function groupingSegment(name: string, value: string): string {
  if (value === '' || value.includes('/')) {
    const b64 = value === '' ? '=' : Buffer.from(value, 'utf8').toString('base64url');
    return `${name}@base64/${b64}`;
  }
  return `${name}/${encodeURIComponent(value)}`;
}

/** The group URL: `<base>/metrics/job/<job>/<label>/<value>…`. */
export function pushgatewayGroupUrl(base: string, job: string, grouping: Readonly<Record<string, string>> = {}): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new InvalidArgumentError('pushgateway url must be an absolute http(s) URL such as http://127.0.0.1:9091');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidArgumentError('pushgateway url must use http or https');
  }
  if (job === '') throw new InvalidArgumentError('pushgateway job must be a non-empty string');
  const parts = [groupingSegment('job', job)];
  for (const [name, value] of Object.entries(grouping)) {
    if (!LABEL_NAME.test(name) || name === 'job' || name.startsWith('__')) {
      throw new InvalidArgumentError(`pushgateway grouping label "${name}" is not a valid label name (and may not be "job")`);
    }
    parts.push(groupingSegment(name, value));
  }
  return `${base.replace(/\/+$/, '')}/metrics/${parts.join('/')}`;
}

/** Creates a pusher; nothing is sent until `start()` or `pushNow()`. */
export function createPushgatewayPusher(options: PushgatewayOptions): PushgatewayPusher {
  const groupUrl = pushgatewayGroupUrl(options.url, options.job, options.grouping);
  if (!(Number.isFinite(options.intervalMs) && options.intervalMs > 0)) {
    throw new InvalidArgumentError('pushgateway intervalMs must be a positive number');
  }
  const timeoutMs = options.timeoutMs ?? 10_000;
  const finalTimeoutMs = options.finalTimeoutMs ?? DEFAULT_FINAL_PUSH_TIMEOUT_MS;
  if (!(Number.isFinite(finalTimeoutMs) && finalTimeoutMs > 0)) throw new InvalidArgumentError('pushgateway finalTimeoutMs must be a positive number');
  const { clock, registry } = options;
  // undici loads here, when a pusher is made, not when a scenario imports the package.
  const { Agent, request } = undiciModule();
  const agent = new Agent({ connections: 1, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connectTimeout: timeoutMs });

  let pushes = 0;
  let failures = 0;
  let last: PushOutcome | undefined;
  let timer: TimerHandle | undefined;
  let running = false;
  let closed = false;
  let inFlight: { readonly done: Promise<PushOutcome>; readonly abort: AbortController } | undefined;

  const record = (o: PushOutcome): PushOutcome => {
    pushes++;
    if (!o.ok) failures++;
    last = o;
    return o;
  };

  const push = async (limitMs: number, abort: AbortController): Promise<PushOutcome> => {
    if (closed) return record({ ok: false, status: 0, error: 'STOPPED' });
    let deadline: AbortSignal | undefined;
    try {
      const body = await registry.metrics();
      // The limit is on the Pushgateway, from the request on: building the body is this
      // process's own work, and on a starved machine it alone outlasted the final push's 1 s.
      deadline = AbortSignal.timeout(limitMs);
      const res = await request(groupUrl, {
        method: 'PUT',
        body,
        headers: { 'content-type': registry.contentType },
        dispatcher: agent,
        signal: AbortSignal.any([deadline, abort.signal]),
      });
      await res.body.dump();
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      return record(ok ? { ok, status: res.statusCode } : { ok, status: res.statusCode, error: `HTTP ${res.statusCode}` });
    } catch (err) {
      if (deadline?.aborted === true) return record({ ok: false, status: 0, error: 'TIMEOUT' });
      if (abort.signal.aborted) return record({ ok: false, status: 0, error: 'ABANDONED' });
      // Only the error's code or name: a message could quote the URL, credentials included.
      const e = err as { code?: unknown; name?: unknown };
      const error = typeof e.code === 'string' ? e.code : typeof e.name === 'string' ? e.name : 'PUSH_FAILED';
      return record({ ok: false, status: 0, error });
    }
  };

  const pushWithin = (limitMs: number): Promise<PushOutcome> => {
    // One push at a time: a second caller shares the push in flight.
    if (inFlight !== undefined) return inFlight.done;
    const abort = new AbortController();
    const done = push(limitMs, abort).finally(() => {
      if (inFlight?.abort === abort) inFlight = undefined;
    });
    inFlight = { done, abort };
    return done;
  };

  const pushNow = (): Promise<PushOutcome> => pushWithin(timeoutMs);

  const schedule = (): void => {
    timer = clock.setTimer(clock.nowNs() + options.intervalMs * NS_PER_MS, () => {
      timer = undefined;
      void pushNow().finally(() => {
        if (running) schedule();
      });
    });
  };

  return {
    groupUrl,
    shownUrl: urlWithoutSecrets(groupUrl)?.toString() ?? '(the Pushgateway)',
    start() {
      if (running || closed) return;
      running = true;
      schedule();
    },
    pushNow,
    async stop() {
      if (closed) return last ?? { ok: false, status: 0, error: 'STOPPED' };
      running = false;
      if (timer !== undefined) clock.clearTimer(timer);
      timer = undefined;
      // A periodic push still waiting (up to its 10 s) must not hold the command's end: the final
      // push replaces the group with the same and newer values anyway.
      const stale = inFlight;
      if (stale !== undefined) {
        stale.abort.abort();
        await stale.done;
      }
      const final = await pushWithin(finalTimeoutMs);
      closed = true;
      // destroy, not close: close would wait for a request a hanging Pushgateway never answers.
      await agent.destroy().catch(() => undefined);
      return final;
    },
    stats: () => ({ pushes, failures, last }),
  };
}
