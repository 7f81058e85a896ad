/**
 * The receiving side of outbound notifications: a small HTTP server that verifies each
 * delivery's signature (core `verifySignature`: HMAC over the raw body, constant-time compare,
 * timestamp tolerance), refuses replays of an accepted (t, signature) pair, bounds the body,
 * answers at once and hands accepted deliveries on as data. Everything that goes wrong is
 * counted, never thrown: a hostile or broken sender cannot crash a run.
 *
 * The secret lives only in this closure; the handle shows its address and nothing else.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { createSystemClock, type Clock } from '../core/clock.js';
import { ConfigError, ListenError, type ConfigIssue } from '../core/errors.js';
import { isRecord } from '../core/is-record.js';
import { ByteBudget } from '../transport/bounded-body.js';
import {
  DEFAULT_SIGNATURE_TOLERANCE_S,
  parseSignatureHeader,
  SIGNATURE_HEADER,
  verifySignature,
} from '../core/webhook-signature.js';


/** Longest a sender may take to send a request head, by default. */
const HEADERS_TIMEOUT_MS = 10_000;
/** Why a delivery was refused (the keys of `WebhookReceiverStats.rejected`). */
export const WEBHOOK_REJECT_REASONS = [
  'missing-signature',
  'malformed-signature',
  'expired',
  'bad-signature',
  'replay',
  'oversize',
  'bad-body',
  'method',
  'path',
] as const;

/** One reason a delivery was refused. */
export type WebhookRejectReason = (typeof WEBHOOK_REJECT_REASONS)[number];

/** An accepted, verified delivery, as data. */
export interface ReceivedDelivery {
  /** Monotonic ns (the receiver's clock) when the whole body had arrived. */
  readonly receivedNs: number;
  /** Wall-clock ms at receipt. */
  readonly receivedAtMs: number;
  /** `event` of the payload ('' when absent or not a string). */
  readonly event: string;
  /** `data.run_id`, when the payload carries one. */
  readonly runId: string | undefined;
  readonly flowId: string | undefined;
  /** `data.status` as sent. */
  readonly status: string | undefined;
  /** `data.usage.total_tokens`, when an integer. */
  readonly totalTokens: number | undefined;
  /** `timestamp` of the payload as sent. */
  readonly timestamp: string | undefined;
  /** `X-Flowgauge-Delivery` (an id shared by the attempts of one delivery), when sent. */
  readonly deliveryId: string | undefined;
  /** `X-Flowgauge-Attempt`, when sent and numeric. */
  readonly attempt: number | undefined;
  /** `t` of the signature header (Unix seconds). */
  readonly signedAtS: number;
}

/** Counters of the receiver. */
export interface WebhookReceiverStats {
  /** Requests that reached the handler. */
  readonly requests: number;
  readonly accepted: number;
  readonly rejected: Readonly<Record<WebhookRejectReason, number>>;
  /** Handler callbacks that threw (the delivery was still answered 2xx). */
  readonly callbackErrors: number;
}

/** Options of `startWebhookReceiver`. */
export interface WebhookReceiverOptions {
  /** Interface to bind (default `127.0.0.1`). */
  readonly host?: string;
  /** TCP port; 0 picks a free one. */
  readonly port: number;
  /** Shared secret of the signatures. Never shown. */
  readonly secret: string;
  /** Path deliveries are posted to (default `/`; any other path answers 404). */
  readonly path?: string;
  /** Allowed distance of the signature's `t` from now, in seconds (default 300). */
  readonly toleranceS?: number;
  /** Largest body accepted, in bytes (default 1 MiB); larger ones get 413. */
  readonly maxBodyBytes?: number;
  /** Time source: `nowNs` stamps receipts, `wallMs` checks signature ages. */
  readonly clock?: Clock;
  /** Called with each accepted delivery, synchronously, before the answer is sent. */
  readonly onDelivery?: (delivery: ReceivedDelivery) => void;
  /** Called with each refusal. */
  readonly onReject?: (reason: WebhookRejectReason) => void;
  /** Longest a sender may take to send a request head (default 10 s); then the connection is closed. */
  readonly headersTimeoutMs?: number;
}

/** A running receiver. */
export interface WebhookReceiver {
  /** `http://host:port<path>`: the `webhook_url` to register. */
  readonly url: string;
  readonly port: number;
  stats(): WebhookReceiverStats;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/** Default body bound: 1 MiB. */
export const DEFAULT_WEBHOOK_MAX_BODY = 1 << 20;

/** A sender that keeps writing this far past the bound is cut off rather than drained. */
const DRAIN_FACTOR = 8;

/** Options with every default filled; the secret is deliberately not part of it. */
interface Resolved {
  readonly host: string;
  readonly port: number;
  readonly path: string;
  readonly toleranceS: number;
  readonly maxBodyBytes: number;
  readonly headersTimeoutMs: number;
  readonly clock: Clock;
}

function resolve(o: WebhookReceiverOptions): Resolved {
  const issues: ConfigIssue[] = [];
  if (typeof o.secret !== 'string' || o.secret === '') issues.push({ path: 'secret', message: 'must be a non-empty string' });
  if (!(Number.isInteger(o.port) && o.port >= 0 && o.port <= 65535)) issues.push({ path: 'port', message: 'must be an integer 0–65535' });
  const path = o.path ?? '/';
  if (!path.startsWith('/')) issues.push({ path: 'path', message: 'must start with /' });
  const toleranceS = o.toleranceS ?? DEFAULT_SIGNATURE_TOLERANCE_S;
  if (!(toleranceS > 0)) issues.push({ path: 'toleranceS', message: 'must be a positive number of seconds' });
  const maxBodyBytes = o.maxBodyBytes ?? DEFAULT_WEBHOOK_MAX_BODY;
  if (!(Number.isInteger(maxBodyBytes) && maxBodyBytes > 0)) issues.push({ path: 'maxBodyBytes', message: 'must be a positive integer' });
  if (issues.length > 0) throw new ConfigError(issues, 'webhook receiver options');
  const headersTimeoutMs = o.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  if (!(Number.isInteger(headersTimeoutMs) && headersTimeoutMs > 0)) issues.push({ path: 'headersTimeoutMs', message: 'must be a positive integer of ms' });
  return { host: o.host ?? '127.0.0.1', port: o.port, path, toleranceS, maxBodyBytes, headersTimeoutMs, clock: o.clock ?? createSystemClock() };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Reads the parts of a payload the matcher needs; undefined when it is not a JSON object. */
function readPayload(body: Buffer): Omit<ReceivedDelivery, 'receivedNs' | 'receivedAtMs' | 'deliveryId' | 'attempt' | 'signedAtS'> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isRecord(parsed)) return undefined;
  const data = isRecord(parsed.data) ? parsed.data : {};
  const usage = isRecord(data.usage) ? data.usage : {};
  const tokens = usage.total_tokens;
  return {
    event: str(parsed.event) ?? '',
    runId: str(data.run_id),
    flowId: str(data.flow_id),
    status: str(data.status),
    totalTokens: typeof tokens === 'number' && Number.isInteger(tokens) ? tokens : undefined,
    timestamp: str(parsed.timestamp),
  };
}

/**
 * Accepted (t, v1) pairs, forgotten once `t` falls out of the tolerance (a replay that old is
 * refused as expired anyway), so memory is bounded by the delivery rate times the tolerance.
 */
function createReplayGuard(toleranceS: number): { seen(t: number, sigs: readonly string[], nowS: number): boolean; add(t: number, sigs: readonly string[]): void } {
  const byT = new Map<number, Set<string>>();
  let lastPruneS = 0;
  const prune = (nowS: number): void => {
    if (nowS === lastPruneS) return;
    lastPruneS = nowS;
    for (const t of byT.keys()) if (t < nowS - toleranceS - 1) byT.delete(t);
  };
  return {
    seen(t, sigs, nowS) {
      prune(nowS);
      const set = byT.get(t);
      return set !== undefined && sigs.some((s) => set.has(s));
    },
    add(t, sigs) {
      let set = byT.get(t);
      if (set === undefined) byT.set(t, (set = new Set()));
      for (const s of sigs) set.add(s);
    },
  };
}

/** Starts the receiver; resolves once listening. Throws `ConfigError` for bad options. */
export async function startWebhookReceiver(options: WebhookReceiverOptions): Promise<WebhookReceiver> {
  const o = resolve(options);
  const secret = options.secret;
  const { clock } = o;
  const rejected = Object.fromEntries(WEBHOOK_REJECT_REASONS.map((r) => [r, 0])) as Record<WebhookRejectReason, number>;
  let requests = 0;
  let accepted = 0;
  let callbackErrors = 0;
  const replays = createReplayGuard(o.toleranceS);
  const sigHeader = SIGNATURE_HEADER.toLowerCase();

  const answer = (res: ServerResponse, status: number, text: string, close = false): void => {
    if (res.headersSent) return;
    res.writeHead(status, {
      'content-type': 'text/plain; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      ...(close ? { connection: 'close' } : {}),
    });
    res.end(text);
  };

  const reject = (res: ServerResponse, reason: WebhookRejectReason, status: number, close = false): void => {
    rejected[reason]++;
    try {
      options.onReject?.(reason);
    } catch {
      callbackErrors++;
    }
    answer(res, status, `${reason}\n`, close);
  };

  const finish = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    const receivedNs = clock.nowNs();
    const receivedAtMs = clock.wallMs();
    const nowS = Math.floor(receivedAtMs / 1000);
    const sig = header(req, sigHeader);
    const check = verifySignature(secret, sig, body, { nowS, toleranceS: o.toleranceS });
    if (!check.ok) {
      const reason: WebhookRejectReason =
        check.reason === 'missing' ? 'missing-signature' : check.reason === 'malformed' ? 'malformed-signature' : check.reason === 'expired' ? 'expired' : 'bad-signature';
      reject(res, reason, 401);
      return;
    }
    // verifySignature accepted the header, so it parses; every v1 of an accepted header is
    // remembered, so a replay with the entries reordered or trimmed is refused too.
    const sigs = parseSignatureHeader(sig as string)?.v1 ?? [];
    if (replays.seen(check.t, sigs, nowS)) {
      reject(res, 'replay', 409);
      return;
    }
    const payload = readPayload(body);
    if (payload === undefined) {
      reject(res, 'bad-body', 400);
      return;
    }
    replays.add(check.t, sigs);
    accepted++;
    const attemptRaw = header(req, 'x-flowgauge-attempt');
    const attempt = attemptRaw !== undefined && /^\d{1,6}$/.test(attemptRaw) ? Number(attemptRaw) : undefined;
    try {
      options.onDelivery?.({ ...payload, receivedNs, receivedAtMs, deliveryId: header(req, 'x-flowgauge-delivery'), attempt, signedAtS: check.t });
    } catch {
      callbackErrors++;
    }
    answer(res, 204, '');
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    requests++;
    req.on('error', () => undefined);
    const path = (req.url ?? '/').split('?')[0];
    if (path !== o.path) {
      req.resume();
      reject(res, 'path', 404);
      return;
    }
    if (req.method !== 'POST') {
      req.resume();
      reject(res, 'method', 405);
      return;
    }
    const declared = Number(header(req, 'content-length') ?? Number.NaN);
    if (Number.isFinite(declared) && declared > o.maxBodyBytes) {
      // Refuse before reading; close so the unread body does not poison the connection.
      reject(res, 'oversize', 413, true);
      req.resume();
      return;
    }
    // The shared byte cap of every body flowgauge reads (`bounded-body.ts`); the whole request is
    // bounded in time by the server's `requestTimeout`, which no trickled byte restarts.
    const chunks: Buffer[] = [];
    const budget = new ByteBudget(o.maxBodyBytes);
    req.on('data', (chunk: Buffer) => {
      if (budget.take(chunk.length) !== undefined) {
        chunks.length = 0;
        // Past the cap the rest is drained (so the 413 reaches the sender) up to a point, then cut.
        if (budget.bytes > o.maxBodyBytes * DRAIN_FACTOR) req.socket.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (budget.bytes > o.maxBodyBytes) reject(res, 'oversize', 413, true);
      else finish(req, res, Buffer.concat(chunks, budget.bytes));
    });
  };

  // Node checks these timeouts every connectionsCheckingInterval (30 s by default): a client
  // that sends half a head would hold its connection three times the 10 s it is allowed.
  const server = createServer(
    { keepAlive: true, connectionsCheckingInterval: Math.min(1000, o.headersTimeoutMs), headersTimeout: o.headersTimeoutMs, requestTimeout: Math.max(30_000, o.headersTimeoutMs + 1) },
    handle,
  );
  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      rejectListen(new ListenError(`cannot receive webhooks on ${o.host}:${o.port}: ${err.code ?? err.message}`, { host: o.host, port: o.port }, err)),
    );
    server.listen(o.port, o.host, () => resolveListen());
  });
  const port = (server.address() as AddressInfo).port;
  const host = o.host.includes(':') ? `[${o.host}]` : o.host === '0.0.0.0' ? '127.0.0.1' : o.host;
  const url = `http://${host}:${port}${o.path}`;

  const receiver: WebhookReceiver = {
    url,
    port,
    stats: () => ({ requests, accepted, rejected: { ...rejected }, callbackErrors }),
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
  const shown = (): { url: string } => ({ url });
  Object.defineProperty(receiver, inspect.custom, { value: (_d: number, opts: object, show: typeof inspect) => `WebhookReceiver ${show(shown(), opts)}` });
  Object.defineProperty(receiver, 'toJSON', { value: shown });
  return Object.freeze(receiver);
}
