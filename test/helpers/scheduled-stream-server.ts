/**
 * A stream target whose token schedule is known exactly: it lists one published flow and answers
 * every `POST /v1/flows/flow_1/stream` with `start`, then `tokens` tokens `gapMs` apart (each its
 * own write), then `end` `endMs` after the last; every `burstEvery`-th stream instead writes all
 * its tokens in one write (a burst, as a buffering proxy delivers them) `burstAfterMs` after
 * `start`, then `end` `endMs` later. No rate-limit headers: the scenario's tier is the contract.
 */
import { createServer, type Server } from 'node:http';

/** The schedule. */
export interface StreamSchedule {
  readonly tokens: number;
  readonly gapMs: number;
  readonly endMs: number;
  /** Every n-th stream (1-based: n, 2n, …) is a burst; 0 for none. */
  readonly burstEvery: number;
  readonly burstTokens: number;
  readonly burstAfterMs: number;
}

/** The running server and what it sent. */
export interface ScheduledStreamServer {
  readonly baseUrl: string;
  /** Streams answered so far, and how many of them were bursts. */
  readonly sent: { streams: number; bursts: number; tokens: number };
  close(): Promise<void>;
}

const FLOW = {
  id: 'flow_1',
  name: 'scheduled',
  description: 'tokens on a known schedule',
  status: 'published',
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  endpoint: 'http://127.0.0.1/v1/flows/flow_1/run',
};

/** Starts the server on 127.0.0.1 and a free port. */
export async function startScheduledStreamServer(schedule: StreamSchedule): Promise<ScheduledStreamServer> {
  const sent = { streams: 0, bursts: 0, tokens: 0 };
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, f: () => void): void => {
    const t = setTimeout(() => {
      timers.delete(t);
      f();
    }, ms);
    timers.add(t);
  };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'GET' && req.url?.startsWith('/v1/flows')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ flows: [FLOW], total: 1, limit: 20, offset: 0 }));
        return;
      }
      if (req.method !== 'POST' || req.url !== '/v1/flows/flow_1/stream') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"NOT_FOUND","message":"no such route"}}');
        return;
      }
      const n = ++sent.streams;
      const runId = `run_${n}`;
      const event = (e: object): string => `data: ${JSON.stringify(e)}\n\n`;
      const token = (i: number): string => event({ type: 'token', content: `t${i} ` });
      const burst = schedule.burstEvery > 0 && n % schedule.burstEvery === 0;
      const k = burst ? schedule.burstTokens : schedule.tokens;
      sent.tokens += k;
      if (burst) sent.bursts++;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(event({ type: 'start', run_id: runId }));
      const end = (): void => {
        if (!res.destroyed) res.end(event({ type: 'end', run_id: runId, usage: { total_tokens: k + 1, prompt_tokens: 1, completion_tokens: k } }));
      };
      if (burst) {
        later(schedule.burstAfterMs, () => {
          if (res.destroyed) return;
          res.write(Array.from({ length: k }, (_, i) => token(i)).join(''));
          later(schedule.endMs, end);
        });
        return;
      }
      let i = 0;
      const next = (): void => {
        if (res.destroyed) return;
        res.write(token(i++));
        if (i < k) later(schedule.gapMs, next);
        else later(schedule.endMs, end);
      };
      later(schedule.gapMs, next);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    sent,
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
