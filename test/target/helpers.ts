/** Shared helpers of the reference-service tests: plain undici calls, SSE collection, barriers. */
import { request } from 'undici';
import { vi } from 'vitest';
import type { FakeClock } from '../../src/core/clock.js';
import { startReferenceService, type ReferenceService, type ReferenceServiceOptions } from '../../src/target/index.js';

const started: ReferenceService[] = [];

/** Starts a service that `closeAll` will close. */
export async function start(options: ReferenceServiceOptions = {}): Promise<ReferenceService> {
  const s = await startReferenceService(options);
  started.push(s);
  return s;
}

/** Closes every service started by `start`. */
export async function closeAll(): Promise<void> {
  await Promise.all(started.splice(0).map((s) => s.close()));
}

/** A response, fully read. */
export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  // Tests read arbitrary fields of bodies.
  readonly json: any;
}

/** Options of `call`. */
export interface CallOptions {
  readonly token?: string;
  readonly body?: unknown;
  readonly rawBody?: string;
  readonly headers?: Record<string, string>;
}

/** One HTTP call against `base` (a service's baseUrl or webhookHost). */
export async function call(base: string, method: string, path: string, o: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
  let body: string | undefined = o.rawBody;
  if (o.body !== undefined) {
    body = JSON.stringify(o.body);
    headers['content-type'] = 'application/json';
  }
  const res = await request(`${base}${path}`, { method: method as 'GET', headers, body });
  const text = await res.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

/** Header value as a string. */
export function header(r: Pick<Reply, 'headers'>, name: string): string | undefined {
  const v = r.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** An SSE response being collected in the background. */
export interface StreamCollector {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  events(): any[];
  raw(): string;
  /** Resolves when the body ended (or failed). */
  readonly done: Promise<void>;
}

/** Opens a stream and collects its events as they arrive. */
export async function openStream(base: string, path: string, token: string, body: unknown): Promise<StreamCollector> {
  const res = await request(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
  });
  let text = '';
  const done = (async () => {
    try {
      for await (const chunk of res.body) text += (chunk as Buffer).toString();
    } catch {
      // A reset or truncated stream ends the collection; the test looks at what arrived.
    }
  })();
  return {
    status: res.statusCode,
    headers: res.headers,
    raw: () => text,
    events: () =>
      text
        .split(/\r?\n\r?\n/)
        .map((block) => block.split(/\r?\n/).filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n'))
        .filter((d) => d !== '')
        .map((d) => JSON.parse(d) as unknown),
    done,
  };
}

/**
 * A round trip to the service on another connection. With a fake clock, every write due by
 * the last `advance` was made synchronously inside it, so after this barrier the client has
 * had a full event-loop turn to receive them.
 */
export async function barrier(s: ReferenceService): Promise<void> {
  await call(s.webhookHost, 'GET', '/__barrier');
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
}

/** Waits until the service has set a timer on `clock` (i.e. the request reached it). */
export async function untilPending(clock: FakeClock, n = 1): Promise<void> {
  await vi.waitFor(() => {
    if (clock.pending() < n) throw new Error('no timer yet');
  });
}

/** Milliseconds in ns. */
export const ms = (n: number): number => n * 1e6;
