/** A loopback HTTP server for the client tests: records requests, answers with a swappable handler. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach } from 'vitest';
import { createClient, type Client, type ClientOptions } from '../../src/api/index.js';
import { TOKEN } from './fixtures.js';

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly requests: RecordedRequest[];
  handler: Handler;
  close(): Promise<void>;
}

/** Answers `status` with a JSON body and extra headers. */
export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export async function startServer(handler?: Handler): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const state: { handler: Handler } = {
    handler: handler ?? ((_req, res) => sendJson(res, 404, { error: { code: 'NOT_FOUND', message: 'no handler' }, request_id: 'r0' })),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      state.handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    get handler() {
      return state.handler;
    },
    set handler(h: Handler) {
      state.handler = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port that was just free: a server was opened on it and closed. */
export async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/**
 * The transport the client tests run on: the default (`auto`, which is the client's own
 * HTTP/1.1 connections for these http: servers), or undici when the `api-undici` test project
 * sets `FG_TEST_TRANSPORT=undici`, so both transports pass the same client tests.
 */
export const TEST_TRANSPORT: ClientOptions['transport'] = process.env.FG_TEST_TRANSPORT === 'undici' ? 'undici' : 'auto';

/**
 * Before each test: a fresh loopback server and a client of it (extra client options merged
 * in), handed to `use`; after each: both closed.
 */
export function serveEach(use: (server: TestServer, client: Client) => void, options: Partial<ClientOptions> = {}): void {
  let server: TestServer | undefined;
  let client: Client | undefined;
  beforeEach(async () => {
    server = await startServer();
    client = createClient({ baseUrl: `${server.origin}/v1`, token: TOKEN, transport: TEST_TRANSPORT, ...options });
    use(server, client);
  });
  afterEach(async () => {
    await client?.close();
    await server?.close();
  });
}
