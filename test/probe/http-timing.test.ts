import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type LookupFunction, type Server as NetServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSystemClock } from '../../src/core/clock.js';
import { createClient, errorCodeOf } from '../../src/api/index.js';
import { phasesOf, runCheck, timedRequest, type CheckContext } from '../../src/probe/index.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((r) => {
          s.closeAllConnections();
          s.close(() => r());
        }),
    ),
  );
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<number> {
  const s = createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return (s.address() as AddressInfo).port;
}

const clock = createSystemClock();

describe('timedRequest', () => {
  it('times connect, wait and transfer of a plain HTTP exchange, and sends what it is given', async () => {
    let seen: { method?: string; url?: string; auth?: string; body: string; connection?: string } = { body: '' };
    const port = await serve((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen = { method: req.method, url: req.url, auth: req.headers.authorization, body, connection: req.headers.connection };
        res.writeHead(201, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    const r = await timedRequest({
      url: `http://127.0.0.1:${port}/v1/x?y=1`,
      method: 'POST',
      headers: { authorization: 'Bearer t' },
      body: '{"input":"é"}',
      clock,
      timeoutMs: 5000,
    });
    expect(r).toMatchObject({ status: 201, body: '{"ok":true}', errorCode: undefined, tls: undefined });
    expect(seen).toEqual({ method: 'POST', url: '/v1/x?y=1', auth: 'Bearer t', body: '{"input":"é"}', connection: 'close' });
    const i = r.instants;
    expect(i.lookupNs).toBeUndefined(); // an IP address needs no lookup
    expect(i.secureNs).toBeUndefined();
    expect(i.startNs <= (i.connectNs as number) && (i.connectNs as number) <= (i.headersNs as number) && (i.headersNs as number) <= i.endNs).toBe(true);
    const p = phasesOf(i);
    expect(p.dns).toBeNull();
    expect(p.tls).toBeNull();
    expect([p.connect, p.ttfb, p.transfer].every((x) => typeof x === 'number' && x >= 0)).toBe(true);
    // Consecutive phases add up to the total.
    expect((p.connect as number) + (p.ttfb as number) + (p.transfer as number)).toBeCloseTo(p.total, 2);
  });

  it('times the DNS lookup when the host is a name', async () => {
    const port = await serve((_req, res) => res.end('hi'));
    const names: string[] = [];
    const lookup = ((hostname: string, options: unknown, cb: (...a: unknown[]) => void) => {
      names.push(hostname);
      const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all === true;
      if (all) cb(null, [{ address: '127.0.0.1', family: 4 }]);
      else cb(null, '127.0.0.1', 4);
    }) as unknown as LookupFunction;
    const r = await timedRequest({ url: `http://probe.test:${port}/`, method: 'GET', headers: {}, clock, timeoutMs: 5000, lookup });
    expect(r.status).toBe(200);
    expect(names).toEqual(['probe.test']);
    expect(r.instants.lookupNs).toBeDefined();
    expect(phasesOf(r.instants).dns).toBeGreaterThanOrEqual(0);
  });

  it('feeds body chunks as they arrive', async () => {
    const port = await serve((_req, res) => {
      res.writeHead(200);
      res.write('a');
      setTimeout(() => res.end('b'), 20);
    });
    const chunks: string[] = [];
    const r = await timedRequest({ url: `http://127.0.0.1:${port}/`, method: 'GET', headers: {}, clock, timeoutMs: 5000, onChunk: (c) => chunks.push(c.toString()) });
    expect(chunks).toEqual(['a', 'b']);
    // Streamed to the caller, not kept as well (as the run's streams are not).
    expect(r.body).toBe('');
  });

  it('classifies failures instead of rejecting', async () => {
    const port = await serve(() => undefined); // never answers
    const hung = await timedRequest({ url: `http://127.0.0.1:${port}/`, method: 'GET', headers: {}, clock, timeoutMs: 50 });
    expect(hung).toMatchObject({ status: 0, errorCode: 'HEADERS_TIMEOUT' });
    expect(hung.instants.connectNs).toBeDefined();

    const closed = await serve((req) => req.socket.destroy());
    expect((await timedRequest({ url: `http://127.0.0.1:${closed}/`, method: 'GET', headers: {}, clock, timeoutMs: 5000 })).errorCode).toBe('CONNECTION_RESET');

    const cut = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
      setTimeout(() => res.socket?.destroy(), 10);
    });
    const partial = await timedRequest({ url: `http://127.0.0.1:${cut}/`, method: 'GET', headers: {}, clock, timeoutMs: 5000 });
    expect(partial).toMatchObject({ status: 200, errorCode: 'CONNECTION_RESET' });

    // A port nobody listens on: the one just closed.
    const gone = await serve(() => undefined);
    await new Promise<void>((r) => servers.pop()?.close(() => r()));
    expect((await timedRequest({ url: `http://127.0.0.1:${gone}/`, method: 'GET', headers: {}, clock, timeoutMs: 5000 })).errorCode).toBe('CONNECTION_REFUSED');
  });
});

/** A raw server: every request on a connection is answered by `answer` with its path. */
async function rawServe(answer: (s: Socket, path: string) => void): Promise<number> {
  const server = createNetServer((socket) => {
    rawSockets.push(socket);
    socket.on('error', () => {});
    let buf = '';
    socket.on('data', (d) => {
      buf += d.toString('latin1');
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.slice(0, end);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buf.length < end + 4 + length) return;
        buf = buf.slice(end + 4 + length);
        answer(socket, head.split(' ')[1] ?? '/');
      }
    });
  });
  rawServers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return (server.address() as AddressInfo).port;
}
const rawServers: NetServer[] = [];
const rawSockets: Socket[] = [];
afterEach(async () => {
  for (const s of rawSockets.splice(0)) s.destroy();
  await Promise.all(rawServers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

const FLOW = { id: 'flow_1', name: 'f', description: 'd', status: 'published', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z', endpoint: 'http://127.0.0.1/v1/flows/flow_1/run' };
const FLOWS = JSON.stringify({ flows: [FLOW], total: 1, limit: 1, offset: 0 });

/** The probe's check context over `timedRequest`, as the runner builds it. */
function probeContext(port: number): CheckContext {
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    webhookHost: `http://127.0.0.1:${port}`,
    send: (req) =>
      timedRequest({
        url: req.url,
        method: req.method,
        headers: { accept: req.accept ?? 'application/json', authorization: 'Bearer t', ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(req.body !== undefined ? { body: req.body } : {}),
        clock,
        timeoutMs: 20_000,
        ...(req.onChunk !== undefined ? { onChunk: req.onChunk } : {}),
      }),
    flowId: async () => ({ ok: true, id: 'flow_1' }),
    forgetFlow: () => undefined,
  };
}

/** What the run makes of the same answer: its error code, or 'good'. */
async function runVerdict(port: number, op: 'listFlows' | 'stream'): Promise<string> {
  const client = createClient({ baseUrl: `http://127.0.0.1:${port}/v1`, token: 't' });
  try {
    const r = op === 'listFlows' ? await client.listFlows({ limit: 1 }) : await client.stream('flow_1', { input: 'hi' });
    return r.ok && r.violations.length === 0 ? 'good' : (errorCodeOf(r) ?? 'CONTRACT_VIOLATION');
  } finally {
    await client.close();
  }
}

async function probeVerdict(port: number, op: 'listFlows' | 'stream'): Promise<string> {
  const out = await runCheck(op, probeContext(port));
  return out.success ? 'good' : (out.error ?? 'bad');
}

describe('probe and run judge the same answer the same way', () => {
  const chunked = (s: string): string => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n0\r\n\r\n`;
  const cases: [string, 'listFlows' | 'stream', (s: Socket) => void, string][] = [
    [
      'Content-Length beside chunked coding (chunked wins, RFC 9112 §6.1)',
      'listFlows',
      (s) => s.end(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 3\r\ntransfer-encoding: chunked\r\n\r\n${chunked(FLOWS)}`),
      'good',
    ],
    ['an upgrade (101) nobody asked for', 'listFlows', (s) => s.end('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n'), 'PROTOCOL_ERROR'],
    [
      'a 50 MB event line',
      'stream',
      (s) => {
        s.write('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\ndata: ');
        const piece = 'x'.repeat(1 << 20);
        let n = 0;
        const go = (): void => {
          while (n < 50 && !s.destroyed) {
            n++;
            if (!s.write(piece)) return;
          }
          if (n >= 50) s.end('\n\n');
        };
        s.on('drain', go);
        go();
      },
      'MALFORMED_BODY',
    ],
    [
      'a stream whose events break the contract (a count as text)',
      'stream',
      (s) => {
        const ev = (e: unknown): string => `data: ${JSON.stringify(e)}\n\n`;
        const body = ev({ type: 'start', run_id: 'run_1' }) + ev({ type: 'token', content: 'a' }) + ev({ type: 'end', run_id: 'run_1', usage: { total_tokens: 'many' } });
        s.end(`HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
      },
      'CONTRACT_VIOLATION',
    ],
    [
      'a JSON answer to a stream request',
      'stream',
      (s) => {
        const body = JSON.stringify({ id: 'run_1', status: 'completed', output: 'x' });
        s.end(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`);
      },
      'STREAM_INCOMPLETE',
    ],
  ];
  it.each(cases)('%s', async (_name, op, answer, expected) => {
    const port = await rawServe((s) => answer(s));
    const [probe, run] = [await probeVerdict(port, op), await runVerdict(port, op)];
    expect({ probe, run }).toEqual({ probe: expected, run: expected });
  });
});
