/**
 * A minimal HTTP server exposing one registry at `GET /metrics`, for Prometheus to scrape
 * while a run or the probe daemon is going, and any extra routes the caller adds (the probe
 * daemon's `/probe`). Binds to loopback unless told otherwise.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { InvalidArgumentError, ListenError } from '../core/errors.js';

/** What is served: a registry, or anything that renders one (the aggregate of a run's workers). */
export type MetricsSource = Pick<Registry, 'metrics' | 'contentType'>;

/** An answer of an extra route. */
export interface RouteAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/**
 * An extra `GET` route beside `/metrics` (the probe daemon's blackbox-style `/probe`): given the
 * query string's parameters, it answers. It must not reject; if it does, the answer is a 500.
 */
export type MetricsRoute = (params: URLSearchParams) => Promise<RouteAnswer>;

/** Options of `startMetricsServer`. */
export interface MetricsServerOptions {
  /** Interface to bind (default `127.0.0.1`). */
  readonly host?: string;
  /** TCP port; 0 picks a free one. */
  readonly port: number;
  readonly registry: MetricsSource;
  /** Extra routes by path, e.g. `{ '/probe': … }`. */
  readonly routes?: Readonly<Record<string, MetricsRoute>>;
}

/** A running metrics server. */
export interface MetricsServer {
  /** `http://host:port/metrics`. */
  readonly url: string;
  readonly port: number;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/** Starts serving `GET /metrics`; resolves once listening. */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const host = options.host ?? '127.0.0.1';
  const { registry } = options;
  if (!(Number.isInteger(options.port) && options.port >= 0 && options.port <= 65535)) {
    throw new InvalidArgumentError(`metrics port must be an integer from 0 to 65535, got ${options.port}`);
  }

  const routes = options.routes ?? {};
  const paths = ['/metrics', ...Object.keys(routes)].join(', ');

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const [path = '/', query = ''] = (req.url ?? '/').split('?', 2);
    const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
    if ((path !== '/metrics' && route === undefined) || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`not found: try GET ${paths}\n`);
      return;
    }
    try {
      const answer =
        route !== undefined ? await route(new URLSearchParams(query)) : { status: 200, contentType: registry.contentType, body: await registry.metrics() };
      res.writeHead(answer.status, { 'Content-Type': answer.contentType, 'Cache-Control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : answer.body);
    } catch {
      // A collect callback failed; the scrape fails visibly rather than serving half a page.
      res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('metrics collection failed\n');
    }
  };

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      reject(
        new ListenError(`cannot serve metrics on ${host}:${options.port}: ${err.code ?? err.message}`, { host, port: options.port }, err),
      );
    };
    server.once('error', onError);
    server.listen(options.port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}/metrics`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
