/**
 * The client's own HTTP/1.1 transport against raw sockets, for what a well-behaved node:http
 * server never does: stalls, early closes, garbage, connection limits and keep-alive hints.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, TransportError, type Client } from '../../src/api/index.js';
import { createH1Transport } from '../../src/transport/h1-pool.js';
import { createSystemClock } from '../../src/core/clock.js';
import type { ExchangeOutcome, Transport } from '../../src/transport/transport.js';
import type { Clock } from '../../src/core/clock.js';
import * as fx from '../api/fixtures.js';
import { closedPort } from '../api/test-server.js';

/** A raw server: `onRequest` gets each request's head text and the socket to answer on. */
interface RawServer {
  readonly origin: string;
  /** Connections accepted so far. */
  connections: number;
  /** Request heads seen, in order. */
  readonly heads: string[];
  close(): Promise<void>;
}

const servers: Server[] = [];
const clients: Client[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.close(() => resolve());
        }),
    ),
  );
});

async function rawServer(onRequest: (head: string, socket: Socket, index: number) => void): Promise<RawServer> {
  const sockets = new Set<Socket>();
  const state: RawServer = {
    origin: '',
    connections: 0,
    heads: [],
    close: async () => undefined,
  };
  const server = createServer((socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let pending = '';
    socket.on('data', (d: Buffer) => {
      pending += d.toString('latin1');
      for (;;) {
        const end = pending.indexOf('\r\n\r\n');
        if (end === -1) return;
        const head = pending.slice(0, end);
        const length = /\r\ncontent-length: (\d+)/i.exec(head);
        const total = end + 4 + (length === null ? 0 : Number(length[1]));
        if (pending.length < total) return;
        pending = pending.slice(total);
        state.heads.push(head);
        onRequest(head, socket, state.heads.length - 1);
      }
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    origin: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
    },
  });
}

function json(body: string, extra = ''): string {
  return `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;
}

const LIST = JSON.stringify({ flows: [fx.flowItem(1), fx.flowItem(2)], total: 2 });

function client(origin: string, extra: Parameters<typeof createClient>[0] extends infer O ? Partial<O> : never = {}): Client {
  const c = createClient({ baseUrl: `${origin}/v1`, token: fx.TOKEN, ...extra });
  clients.push(c);
  return c;
}

const SETTINGS = { connections: 1, pipelining: 1, connectMs: 1000, headersMs: 1000, bodyMs: 1000, requestMs: 0, maxBodyBytes: 1 << 20 };

function transport(origin: string, extra: { staleIdleMs?: number } = {}): Transport {
  return createH1Transport(origin, { ...SETTINGS, ...extra });
}

function exchange(t: Transport, method: 'GET' | 'POST', clock: Clock = createSystemClock()): Promise<ExchangeOutcome> {
  const body = method === 'POST' ? '{}' : undefined;
  return new Promise((resolve) => {
    t.exchange({ method, path: '/v1/flows', headers: {}, body }, clock, undefined, resolve);
  });
}

const get = (t: Transport, clock?: Clock): Promise<ExchangeOutcome> => exchange(t, 'GET', clock);

function transportCode(r: { ok: boolean; error?: unknown }): string | undefined {
  return r.ok ? undefined : (r.error as TransportError).code;
}

describe('the h1 transport', () => {
  it('is what a client picks for http:, and it reuses one connection for sequential requests', async () => {
    const s = await rawServer((_h, socket) => socket.write(json(LIST)));
    const c = client(s.origin);
    for (let i = 0; i < 10; i++) expect((await c.listFlows()).ok).toBe(true);
    expect(s.connections).toBe(1);
    expect(s.heads[0]).toMatch(/^GET \/v1\/flows HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\n/);
    expect(s.heads[0]).toMatch(/\r\nauthorization: Bearer /);
  });

  it('never opens more connections than asked for, and queues the rest', async () => {
    const s = await rawServer((_h, socket) => setImmediate(() => socket.write(json(LIST))));
    const c = client(s.origin, { connections: 3 });
    const results = await Promise.all(Array.from({ length: 40 }, () => c.listFlows()));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(s.connections).toBe(3);
  });

  it('sends a POST body with its byte length, UTF-8 encoded', async () => {
    const s = await rawServer((_h, socket) => socket.write(json(JSON.stringify(fx.run))));
    const c = client(s.origin);
    const r = await c.run('flow_1', { input: 'héllo ✓' });
    expect(r.ok).toBe(true);
    expect(s.heads[0]).toMatch(/^POST \/v1\/flows\/flow_1\/run HTTP\/1\.1\r\n/);
    const length = Number(/content-length: (\d+)/.exec(s.heads[0] ?? '')?.[1]);
    expect(length).toBe(Buffer.byteLength(JSON.stringify({ input: 'héllo ✓' })));
  });

  it('opens a new connection after Connection: close, and the next request succeeds', async () => {
    const s = await rawServer((_h, socket, i) => {
      socket.write(json(LIST, i === 0 ? 'connection: close\r\n' : ''));
      if (i === 0) socket.end();
    });
    const c = client(s.origin);
    expect((await c.listFlows()).ok).toBe(true);
    expect((await c.listFlows()).ok).toBe(true);
    expect(s.connections).toBe(2);
  });

  it('does not reuse a connection the server says it will close within the margin (Keep-Alive: timeout=1)', async () => {
    const s = await rawServer((_h, socket) => socket.write(json(LIST, 'keep-alive: timeout=1\r\n')));
    const c = client(s.origin);
    expect((await c.listFlows()).ok).toBe(true);
    expect((await c.listFlows()).ok).toBe(true);
    expect(s.connections).toBe(2);
  });

  it('classifies a stalled head as HEADERS_TIMEOUT and a stalled body as BODY_TIMEOUT', async () => {
    const s = await rawServer((_h, socket, i) => {
      if (i === 0) return; // never answers
      socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${LIST.length}\r\n\r\n${LIST.slice(0, 10)}`);
    });
    const c = client(s.origin, { timeouts: { headersMs: 80, bodyMs: 80 } });
    expect(transportCode(await c.listFlows())).toBe('HEADERS_TIMEOUT');
    const body = await c.listFlows();
    expect(transportCode(body)).toBe('BODY_TIMEOUT');
    expect(body.meta.status).toBe(200);
    expect(body.meta.headersNs).toBeTypeOf('number');
  });

  it('classifies a close before the answer is complete as CONNECTION_RESET', async () => {
    const s = await rawServer((_h, socket, i) => {
      if (i === 0) socket.end();
      else socket.end(`HTTP/1.1 200 OK\r\ncontent-length: ${LIST.length}\r\n\r\n${LIST.slice(0, 10)}`);
    });
    const c = client(s.origin);
    expect(transportCode(await c.listFlows())).toBe('CONNECTION_RESET');
    expect(transportCode(await c.listFlows())).toBe('CONNECTION_RESET');
  });

  it('sends a GET again, once, when a connection that sat idle closes before any answer (a stale keep-alive)', async () => {
    // The second request arrives on the kept-alive connection, which the server then closes unanswered.
    const s = await rawServer((_h, socket, i) => {
      if (i === 1) socket.end();
      else socket.write(json(LIST));
    });
    const t = transport(s.origin, { staleIdleMs: 0 });
    expect((await get(t)).text).toBe(LIST);
    const again = await get(t);
    await t.close();
    expect(again.error).toBeUndefined();
    expect(again.text).toBe(LIST);
    expect(s.heads).toHaveLength(3);
    expect(s.connections).toBe(2);
  });

  it('counts a connection handed the next queued request at once as in steady use, however long it once sat idle', async () => {
    // A: answered. Idle past staleIdleMs. B: answered late, while C waits in the queue. C goes
    // out on the connection the instant B ends, and the server closes it unanswered.
    const s = await rawServer((_h, socket, i) => {
      if (i === 0) socket.write(json(LIST));
      else if (i === 1) setTimeout(() => socket.write(json(LIST)), 30);
      else socket.end();
    });
    const t = transport(s.origin, { staleIdleMs: 50 });
    expect((await get(t)).error).toBeUndefined();
    await new Promise((r) => setTimeout(r, 80));
    const [b, c] = await Promise.all([get(t), get(t)]);
    await t.close();
    expect(b.error).toBeUndefined();
    expect((c.error as { code?: string }).code).toBe('FG_H1_CLOSED');
    expect(s.heads).toHaveLength(3);
  });

  it('does not send again a GET on a connection in steady use, a POST, or a GET whose answer had begun', async () => {
    const steady = await rawServer((_h, socket, i) => {
      if (i === 1) socket.end();
      else socket.write(json(LIST));
    });
    const c = client(steady.origin);
    expect((await c.listFlows()).ok).toBe(true);
    expect(transportCode(await c.listFlows())).toBe('CONNECTION_RESET');
    expect(steady.heads).toHaveLength(2);

    const post = await rawServer((_h, socket, i) => {
      if (i === 1) socket.end();
      else socket.write(json(LIST));
    });
    const tp = transport(post.origin, { staleIdleMs: 0 });
    await exchange(tp, 'POST');
    expect(((await exchange(tp, 'POST')).error as { code?: string }).code).toBe('FG_H1_CLOSED');
    await tp.close();
    expect(post.heads).toHaveLength(2);

    const begun = await rawServer((_h, socket, i) => {
      if (i === 1) socket.end(`HTTP/1.1 200 OK\r\ncontent-length: ${LIST.length}\r\n\r\n${LIST.slice(0, 5)}`);
      else socket.write(json(LIST));
    });
    const tb = transport(begun.origin, { staleIdleMs: 0 });
    await get(tb);
    expect(((await get(tb)).error as { code?: string }).code).toBe('FG_H1_CLOSED');
    await tb.close();
    expect(begun.heads).toHaveLength(2);
  });

  it('classifies a target that speaks something else as PROTOCOL_ERROR and a refused connection as CONNECTION_REFUSED', async () => {
    // The banner alone, as SSH sends it at connect: no head end ever comes.
    const s = await rawServer((_h, socket) => socket.write('SSH-2.0-OpenSSH_9.2\r\n'));
    const r = await client(s.origin).listFlows();
    expect(transportCode(r)).toBe('PROTOCOL_ERROR');
    expect((r as { error: TransportError }).error.message).toContain('the target sent "SSH-2.0-OpenSSH_9.2\\r\\n"');
    expect((r as { error: TransportError }).error.causeCode).toBe('FG_H1_PARSE');
    const port = await closedPort();
    expect(transportCode(await client(`http://127.0.0.1:${port}`).listFlows())).toBe('CONNECTION_REFUSED');
  });

  it('fails a request answered twice (a duplicated response) as PROTOCOL_ERROR, and the next request gets its own answer', async () => {
    let duplicate = true;
    const s = await rawServer((_h, socket) => {
      // Both answers in one write, as a broken proxy replaying its buffer sends them.
      socket.write(duplicate ? json(LIST) + json(LIST) : json(LIST));
      duplicate = false;
    });
    const c = client(s.origin);
    const r = await c.listFlows();
    expect(transportCode(r)).toBe('PROTOCOL_ERROR');
    expect((r as { error: TransportError }).error.message).toContain('two answers to one request');
    expect((r as { error: TransportError }).error.causeCode).toBe('FG_H1_PARSE');
    // The connection that carried the second answer is closed, so it cannot answer the next request with it.
    expect((await c.listFlows()).ok).toBe(true);
    expect(s.connections).toBe(2);
    // Empty lines between answers are not a second answer (RFC 9112 §2.2).
    const t = await rawServer((_h, socket) => socket.write(`${json(LIST)}\r\n`));
    const ct = client(t.origin);
    for (let i = 0; i < 3; i++) expect((await ct.listFlows()).ok).toBe(true);
    expect(t.connections).toBe(1);
  });

  it('writes the same bytes for the same request, and new ones when the path or body change', async () => {
    const s = await rawServer((_h, socket) => socket.write(json(JSON.stringify(fx.run))));
    const t = transport(s.origin);
    const send = (path: string, body: string | undefined): Promise<ExchangeOutcome> =>
      new Promise((resolve) => t.exchange({ method: body === undefined ? 'GET' : 'POST', path, headers: { 'x-a': 'b' }, body }, createSystemClock(), undefined, resolve));
    await send('/v1/flows', undefined);
    await send('/v1/flows', undefined);
    await send('/v1/flows/f/run', '{"input":"é"}');
    await send('/v1/flows/f/run', '{"input":"é"}');
    await send('/v1/flows/f/run', '{"input":"ü!"}');
    await t.close();
    expect(s.heads[0]).toBe(s.heads[1]);
    expect(s.heads[2]).toMatch(/\r\ncontent-length: 14$/);
    expect(s.heads[2]).toBe(s.heads[3]);
    expect(s.heads[4]).toMatch(/\r\ncontent-length: 15$/);
    expect(s.heads[0]).toMatch(/^GET \/v1\/flows HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\nx-a: b$/);
  });

  it('refuses a header value that would split the request, and sends nothing', async () => {
    const s = await rawServer((_h, socket) => socket.write(json(LIST)));
    const c = client(s.origin);
    const r = await c.listFlows(undefined, { headers: { 'x-evil': 'a\r\nx-injected: 1' } });
    expect(transportCode(r)).toBe('SOCKET_ERROR');
    expect((await c.listFlows()).ok).toBe(true);
    expect(s.heads.join('\n')).not.toContain('x-injected');
  });

  it('aborts queued and in-flight requests on their signal, and the pool keeps working', async () => {
    let answer = true;
    const s = await rawServer((_h, socket) => {
      if (answer) socket.write(json(LIST));
    });
    const c = client(s.origin, { connections: 1 });
    answer = false;
    const ac = new AbortController();
    const inFlight = c.listFlows(undefined, { signal: ac.signal });
    const queued = c.listFlows(undefined, { signal: ac.signal });
    await new Promise((r) => setTimeout(r, 20));
    ac.abort();
    expect(transportCode(await inFlight)).toBe('ABORTED');
    expect(transportCode(await queued)).toBe('ABORTED');
    answer = true;
    expect((await c.listFlows()).ok).toBe(true);
  });

  it('close() lets requests in flight finish, then refuses new ones as ABORTED', async () => {
    const s = await rawServer((_h, socket) => setTimeout(() => socket.write(json(LIST)), 30));
    const c = client(s.origin, { connections: 1 });
    const a = c.listFlows();
    const b = c.listFlows();
    const closed = c.close();
    let second = false;
    const closedAgain = c.close().then(() => (second = true));
    expect(transportCode(await c.listFlows())).toBe('ABORTED');
    expect(second).toBe(false);
    expect((await a).ok).toBe(true);
    expect((await b).ok).toBe(true);
    await Promise.all([closed, closedAgain]);
  });

  it('stamps the head and the end with the arrival of the reads that carried them', async () => {
    const s = await rawServer((_h, socket) => {
      socket.write(`HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\nab`);
      setTimeout(() => socket.write('cd'), 40);
    });
    let ns = 0;
    const clock = { ...createSystemClock(), nowNs: () => (ns += 1_000_000) };
    const t = transport(s.origin);
    const outcome = await get(t, clock);
    await t.close();
    expect(outcome.error).toBeUndefined();
    expect(outcome.text).toBe('abcd');
    // One clock reading each: the connect's start (the request asks for a new connection), its
    // end (the request goes out), the head's read, then the read with the last bytes.
    expect(outcome.connectNs).toBe(1_000_000);
    expect(outcome.sentNs).toBe(2_000_000);
    expect(outcome.headersNs).toBe(3_000_000);
    expect(outcome.endNs).toBe(4_000_000);
    expect(outcome.tlsNs).toBe(0);
  });
});
