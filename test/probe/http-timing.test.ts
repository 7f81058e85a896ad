import { createServer, type Server } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSystemClock } from '../../src/core/clock.js';
import { phasesOf, timedRequest } from '../../src/probe/index.js';

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
    expect(r.body).toBe('ab');
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
