/**
 * The live dashboard's server: the page at `/`, its feed as server-sent events at `/events`
 * (a page that opens late first gets what it missed, bounded), and the final report at
 * `/report` once it exists. Loopback by default; the page loads nothing from elsewhere.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidArgumentError, ListenError } from '../core/errors.js';

/** Options of `startDashboardServer`. */
export interface DashboardServerOptions {
  /** Interface to bind (default `127.0.0.1`). */
  readonly host?: string;
  /** TCP port; 0 picks a free one. */
  readonly port: number;
  /** The page (a self-contained HTML document). */
  readonly page: string;
}

/** A running dashboard server. */
export interface DashboardServer {
  readonly url: string;
  readonly port: number;
  /** Sends one message (any JSON value) to every open page, and keeps it for pages that open later. */
  publish(message: unknown): void;
  /** Serves the final report at `/report` from now on. */
  setReport(html: string): void;
  close(): Promise<void>;
}

/** Messages kept for pages that open late: the first and the last ones (an hour of ticks). */
const KEEP_FIRST = 1;
const KEEP_LAST = 3600;
/** Open pages at once; more are refused (each holds a connection). */
const MAX_CLIENTS = 32;

/** Starts the dashboard server; resolves once listening. */
export async function startDashboardServer(o: DashboardServerOptions): Promise<DashboardServer> {
  if (!(Number.isInteger(o.port) && o.port >= 0 && o.port <= 65535)) throw new InvalidArgumentError(`dashboard port must be an integer from 0 to 65535, got ${o.port}`);
  const host = o.host ?? '127.0.0.1';
  const first: string[] = [];
  const last: string[] = [];
  const clients = new Set<ServerResponse>();
  let report: string | undefined;

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') return void res.writeHead(405, { Allow: 'GET' }).end();
    if (path === '/') return void res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }).end(o.page);
    if (path === '/report' && report !== undefined) return void res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(report);
    if (path !== '/events') return void res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found\n');
    if (clients.size >= MAX_CLIENTS) return void res.writeHead(503, { 'Retry-After': '5' }).end();
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
    for (const m of [...first, ...last]) res.write(m);
    clients.add(res);
    req.on('close', () => clients.delete(res));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(new ListenError(`dashboard: cannot listen on ${host}:${o.port} (${err.code ?? err.message})`, { host, port: o.port }, err)));
    server.listen(o.port, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${shownHost}:${port}/`,
    port,
    publish(message) {
      const frame = `data: ${JSON.stringify(message)}\n\n`;
      if (first.length < KEEP_FIRST) first.push(frame);
      else {
        last.push(frame);
        if (last.length > KEEP_LAST) last.shift();
      }
      for (const c of clients) c.write(frame);
    },
    setReport(html) {
      report = html;
    },
    async close() {
      for (const c of clients) c.end();
      clients.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
