/**
 * One raw `node:net` server for every hostile mode of `hostile-modes.ts`. It parses just
 * enough HTTP/1.1 to answer the run's preparation (`GET /v1/flows?…`) with a valid flow list
 * and to hand each measured request, with its socket, to the mode, which then writes whatever
 * bytes it likes: no `node:http` in the way, so framing, heads and timing are the mode's own.
 *
 * Beside it, a collector listens on its own port: the place redirects point to (every request
 * arriving there is a leak to another host) and the Pushgateway the CLI pushes its metrics to.
 */
import { createServer, type Server, type Socket } from 'node:net';

/** A measured request as the server read it. */
export interface RawRequest {
  readonly method: string;
  readonly path: string;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly socket: Socket;
}

/** What a mode may use besides the request. */
export interface ModeTools {
  /** Runs `fn` every `ms` until the socket or the server closes. */
  every(ms: number, fn: () => void): void;
  /** Runs `fn` once after `ms` unless the socket or the server closed first. */
  later(ms: number, fn: () => void): void;
  /** Writes `piece` again whenever the socket drains, until it closes: as fast as the client reads. */
  flood(piece: string | Buffer): void;
  /** An address on the collector (a redirect's other host). */
  readonly elsewhere: string;
}

/** How a mode answers a measured request; it owns the socket from then on. */
export type ModeHandler = (req: RawRequest, tools: ModeTools) => void;

/** The flow list the preparation gets; `flowId` may be hostile text. */
export function flowListBody(flowId: string): string {
  const ts = '2026-01-01T00:00:00Z';
  const flow = { id: flowId, name: 'Flow', description: 'd', status: 'published', created_at: ts, updated_at: ts, endpoint: 'http://127.0.0.1/v1/flows/x/run' };
  return JSON.stringify({ flows: [flow], total: 1, limit: 20, offset: 0 });
}

/** A complete HTTP/1.1 response, keep-alive unless `close`. */
export function rawResponse(status: number, headers: Record<string, string | number>, body: string | Buffer, close = false): Buffer {
  const b = typeof body === 'string' ? Buffer.from(body) : body;
  const head = [`HTTP/1.1 ${status} ${status < 300 ? 'OK' : 'No'}`, ...Object.entries({ ...headers, 'content-length': b.length }).map(([k, v]) => `${k}: ${v}`)];
  if (close) head.push('connection: close');
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), b]);
}

/** A running hostile server. */
export interface HostileServer {
  /** `http://127.0.0.1:<port>/v1` */
  readonly baseUrl: string;
  /** Measured requests received (the preparation excluded). */
  measured(): number;
  /** The distinct `Authorization` values of measured requests (what a token echo sends back). */
  authorizations(): readonly string[];
  close(): Promise<void>;
}

/** A running collector. */
export interface Collector {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Requests under `<url>/<prefix>` that were not a metrics push: each followed a redirect here. */
  strays(prefix: string): number;
  /** Bodies pushed to `<url>/<prefix>/metrics/…` (Pushgateway's API under a per-run prefix). */
  pushes(prefix: string): readonly string[];
  close(): Promise<void>;
}

const HEAD_END = Buffer.from('\r\n\r\n');
/** Largest request head read; a client never sends more. */
const MAX_HEAD = 64 * 1024;

interface Parsed {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
  readonly rest: Buffer;
}

/** One request from `buf` once its head and body are there; undefined while incomplete. */
function parseRequest(buf: Buffer): Parsed | undefined {
  const end = buf.indexOf(HEAD_END);
  if (end < 0) return undefined;
  const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
  const [method = '', path = ''] = (lines[0] ?? '').split(' ');
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  const bodyEnd = end + 4 + (Number.isFinite(length) ? length : 0);
  if (buf.length < bodyEnd) return undefined;
  return { method, path, headers, body: buf.subarray(end + 4, bodyEnd), rest: buf.subarray(bodyEnd) };
}

/** Keeps sockets and timers so `close()` ends every stalled or flooding mode at once. */
function track(server: Server): { sockets: Set<Socket>; timers: Set<NodeJS.Timeout>; closed: () => boolean; close: () => Promise<void> } {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    // A hostile peer's errors (resets, writes after close) are the point, not a failure here.
    s.on('error', () => undefined);
  });
  return {
    sockets,
    timers,
    closed: () => closed,
    close: () =>
      new Promise<void>((resolve) => {
        closed = true;
        for (const t of timers) clearTimeout(t);
        timers.clear();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

/** Starts the collector on 127.0.0.1. */
export async function startCollector(): Promise<Collector> {
  const strays: string[] = [];
  const pushes: { path: string; body: string }[] = [];
  const server = createServer((socket) => {
    let buf = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      for (let req = parseRequest(buf); req !== undefined; req = parseRequest(buf)) {
        buf = Buffer.from(req.rest);
        if (req.path.includes('/metrics/job/')) pushes.push({ path: req.path, body: req.body.toString('utf8') });
        else strays.push(req.path);
        socket.write(rawResponse(200, { 'content-type': 'text/plain' }, ''));
      }
    });
  });
  const t = track(server);
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    strays: (prefix) => strays.filter((p) => p.startsWith(`/${prefix}/`)).length,
    pushes: (prefix) => pushes.filter((p) => p.path.startsWith(`/${prefix}/metrics/`)).map((p) => p.body),
    close: t.close,
  };
}

/** Starts a hostile server on 127.0.0.1 answering measured requests with `handler`. */
export async function startHostileServer(handler: ModeHandler, options: { elsewhere: string; flowId?: string }): Promise<HostileServer> {
  let measured = 0;
  const authorizations = new Set<string>();
  const flowList = flowListBody(options.flowId ?? 'flow_1');
  // Assigned once the server exists; its connections only come after that.
  let t: ReturnType<typeof track> | undefined;
  const server = createServer((socket) => {
    let buf = Buffer.alloc(0);
    let taken = false;
    const toolsFor = (s: Socket): ModeTools => ({
      elsewhere: options.elsewhere,
      every(ms, fn) {
        const timer = setInterval(() => (s.destroyed || t?.closed() === true ? clearInterval(timer) : fn()), ms);
        t?.timers.add(timer);
        s.on('close', () => clearInterval(timer));
      },
      later(ms, fn) {
        const timer = setTimeout(() => {
          if (!s.destroyed && t?.closed() !== true) fn();
        }, ms);
        t?.timers.add(timer);
      },
      flood(piece) {
        const write = (): void => {
          while (!s.destroyed && t?.closed() !== true && s.write(piece));
          if (!s.destroyed) s.once('drain', write);
        };
        write();
      },
    });
    socket.on('data', (chunk: Buffer) => {
      if (taken) return;
      buf = Buffer.concat([buf, chunk]);
      if (buf.length > MAX_HEAD && buf.indexOf(HEAD_END) < 0) {
        socket.destroy();
        return;
      }
      for (let req = parseRequest(buf); req !== undefined && !taken; req = parseRequest(buf)) {
        buf = Buffer.from(req.rest);
        if (req.method === 'GET' && req.path.startsWith('/v1/flows?')) {
          socket.write(rawResponse(200, { 'content-type': 'application/json' }, flowList));
          continue;
        }
        measured++;
        authorizations.add(req.headers.authorization ?? '');
        // The mode owns the connection from here: nothing more is parsed on it.
        taken = true;
        handler({ method: req.method, path: req.path, headers: req.headers, socket }, toolsFor(socket));
      }
    });
  });
  t = track(server);
  const port = await listen(server);
  return { baseUrl: `http://127.0.0.1:${port}/v1`, measured: () => measured, authorizations: () => [...authorizations], close: t.close };
}
