/**
 * A raw loopback `node:http` server for the fault matrix. It answers the run's preparation
 * (`GET /v1/flows?...`) with one valid published flow, and hands every other request to the
 * case's fault. It keeps its sockets and timers so `close()` ends a stalled case at once.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** Valid bodies of the interface (spec §2), for faults that answer part of the way. */
export const TS = '2026-01-01T00:00:00Z';
export const FLOW_ID = 'flow_1';
export const USAGE = { total_tokens: 12, prompt_tokens: 10, completion_tokens: 2 };
export const RUN_BODY = {
  id: 'run_1',
  flow_id: FLOW_ID,
  status: 'completed',
  output: 'ok',
  created_at: TS,
  completed_at: TS,
  usage: USAGE,
};
const FLOW_LIST = {
  flows: [
    {
      id: FLOW_ID,
      name: 'Flow 1',
      description: 'd',
      status: 'published',
      created_at: TS,
      updated_at: TS,
      endpoint: 'http://127.0.0.1/v1/flows/flow_1/run',
    },
  ],
  total: 1,
  limit: 1,
  offset: 0,
};

/** SSE `data:` line of one event, with its blank line. */
export function sseEvent(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/** The events of a complete, valid stream of `tokens` tokens. */
export function sseStream(tokens: readonly string[]): string {
  return (
    sseEvent({ type: 'start', run_id: 'run_1' }) +
    tokens.map((t) => sseEvent({ type: 'token', content: t })).join('') +
    sseEvent({ type: 'end', run_id: 'run_1', usage: { total_tokens: 10 + tokens.length, prompt_tokens: 10, completion_tokens: tokens.length } })
  );
}

/** What a fault may use besides the request and response. */
export interface FaultTools {
  /** Runs `fn` after `ms` unless the server closed first. */
  later(ms: number, fn: () => void): void;
}

/** Answers one measured request, however badly. */
export type Fault = (req: http.IncomingMessage, res: http.ServerResponse, tools: FaultTools) => void;

/** A running fault server. */
export interface FaultServer {
  /** `http://127.0.0.1:<port>/v1` */
  readonly baseUrl: string;
  /** Measured requests received (preparation excluded). */
  measured(): number;
  close(): Promise<void>;
}

/** Options of `startFaultServer`. */
export interface FaultServerOptions {
  /**
   * Stop listening right after the preparation's answer (sent with `connection: close`), so
   * every measured request meets a refused connection.
   */
  readonly refuseAfterPrepare?: boolean;
}

/** Starts a fault server on 127.0.0.1, port 0. */
export async function startFaultServer(fault: Fault, options: FaultServerOptions = {}): Promise<FaultServer> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;
  let measured = 0;
  const tools: FaultTools = {
    later(ms, fn) {
      if (closed) return;
      const t = setTimeout(() => {
        timers.delete(t);
        if (!closed) fn();
      }, ms);
      timers.add(t);
    },
  };
  const server = http.createServer((req, res) => {
    // Read the request body first so a fault acts on a complete request.
    req.resume();
    req.on('end', () => {
      if (req.method === 'GET' && (req.url ?? '').startsWith('/v1/flows?')) {
        const text = JSON.stringify(FLOW_LIST);
        const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) };
        if (options.refuseAfterPrepare === true) {
          headers.connection = 'close';
          res.on('finish', () => server.close());
        }
        res.writeHead(200, headers);
        res.end(text);
        return;
      }
      measured++;
      fault(req, res, tools);
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    measured: () => measured,
    close: () =>
      new Promise<void>((resolve) => {
        closed = true;
        for (const t of timers) clearTimeout(t);
        timers.clear();
        for (const s of sockets) s.destroy();
        if (!server.listening) {
          resolve();
          return;
        }
        server.close(() => resolve());
      }),
  };
}
