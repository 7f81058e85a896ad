/**
 * A loopback service whose rate limiter is one of `test/collect/limiter-sim.ts`'s (honest or
 * lying, any dialect), with its books: every 429 it sent and its truth (premature: fewer than the
 * contract's limit had reached it in the contract's window). It answers `GET /v1/flows` (the
 * run's preparation and the `listFlows` mix) through the limiter, on the real clock from its
 * first request, so runs, worker threads and shards meet one limiter as they would a service.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Limiter } from '../collect/limiter-sim.js';

const TS = '2026-01-01T00:00:00Z';
const FLOWS = JSON.stringify({
  flows: [{ id: 'flow_1', name: 'Flow 1', description: 'd', status: 'published', created_at: TS, updated_at: TS, endpoint: 'http://127.0.0.1/v1/flows/flow_1/run' }],
  total: 1,
  limit: 1,
  offset: 0,
});
const REFUSED = JSON.stringify({ error: { code: 'RATE_LIMITED', message: 'too many requests' } });
const GATEWAY_PAGE = '<html><head><title>429 Too Many Requests</title></head><body><center><h1>429 Too Many Requests</h1></center><hr><center>nginx</center></body></html>';

/** The books: what the limiter answered. */
export interface LimiterBooks {
  readonly requests: number;
  readonly refused: number;
  /** Refusals that came before the contract's limit was used. */
  readonly premature: number;
  readonly expected: number;
  /** Requests held open, never answered. */
  readonly held: number;
}

/** A running limiter service. */
export interface LimiterServer {
  /** `http://127.0.0.1:<port>/v1` */
  readonly baseUrl: string;
  books(): LimiterBooks;
  close(): Promise<void>;
}

/** Options of `startLimiterServer`. */
export interface LimiterServerOptions {
  /** `Server` header of the service's own answers (a gateway's 429s say `nginx`). */
  readonly server?: string;
  /** Delay of an admitted answer, ms (default 0). */
  readonly serviceMs?: number;
  /** Holds the n-th measured request (1-based, preparation excluded) open, never answering it, when this says so. */
  readonly hold?: (n: number) => boolean;
}

/** Starts a service limited by `limiter` on 127.0.0.1, port 0. */
export async function startLimiterServer(limiter: Limiter, o: LimiterServerOptions = {}): Promise<LimiterServer> {
  let t0: bigint | undefined;
  const books = { requests: 0, refused: 0, premature: 0, expected: 0, held: 0 };
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const now = process.hrtime.bigint();
    t0 ??= now;
    if (req.method !== 'GET' || !(req.url ?? '').startsWith('/v1/flows')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'no such route' } }));
      return;
    }
    books.requests++;
    // The first request is the run's preparation.
    if (books.requests > 1 && o.hold?.(books.requests - 1) === true) {
      books.held++;
      return;
    }
    const a = limiter(Number(now - t0));
    const headers: Record<string, string> = {};
    const raw = a.rateLimit?.raw;
    if (raw?.limit !== undefined) headers['x-ratelimit-limit'] = raw.limit;
    if (raw?.remaining !== undefined) headers['x-ratelimit-remaining'] = raw.remaining;
    if (raw?.reset !== undefined) headers['x-ratelimit-reset'] = raw.reset;
    if (raw?.retryAfter !== undefined) headers['retry-after'] = raw.retryAfter;
    if (a.status === 429) {
      books.refused++;
      if (a.premature) books.premature++;
      else books.expected++;
      if (a.foreign === true) {
        res.writeHead(429, { ...headers, server: 'nginx', 'content-type': 'text/html' }).end(GATEWAY_PAGE);
        return;
      }
      res.writeHead(429, { ...headers, ...(o.server === undefined ? {} : { server: o.server }), 'content-type': 'application/json' }).end(REFUSED);
      return;
    }
    const answer = (): void => void res.writeHead(200, { ...headers, ...(o.server === undefined ? {} : { server: o.server }), 'content-type': 'application/json' }).end(FLOWS);
    if ((o.serviceMs ?? 0) <= 0) return answer();
    const timer = setTimeout(() => {
      timers.delete(timer);
      answer();
    }, o.serviceMs);
    timers.add(timer);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    books: () => ({ ...books }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
