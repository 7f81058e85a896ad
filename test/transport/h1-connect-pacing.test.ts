/**
 * The h1 pool opens at most `perTurn` connections in one turn of the event loop: opening
 * thousands at once stalled the loop for seconds. Sockets are counted synchronously, as Node's
 * active resources, right after the requests are handed over; turns are run by hand.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createH1Transport, CONNECTS_PER_TURN } from '../../src/transport/h1-pool.js';
import type { ExchangeOutcome, Transport } from '../../src/transport/transport.js';
import { createSystemClock } from '../../src/core/clock.js';

const SETTINGS = { connections: 1000, pipelining: 1, connectMs: 5000, headersMs: 5000, bodyMs: 5000, requestMs: 0, maxBodyBytes: 1 << 20 };
const BODY = '{"flows":[],"total":0}';
const ANSWER = `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${BODY.length}\r\n\r\n${BODY}`;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A server that answers every request head at once. */
async function server(): Promise<string> {
  const sockets = new Set<Socket>();
  const s: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('data', (d: Buffer) => {
      if (d.includes('\r\n\r\n')) socket.write(ANSWER);
    });
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const x of sockets) x.destroy();
        s.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

const sockets = (): number => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;

function send(t: Transport, n: number): Promise<ExchangeOutcome>[] {
  const clock = createSystemClock();
  return Array.from({ length: n }, () => new Promise<ExchangeOutcome>((resolve) => t.exchange({ method: 'GET', path: '/v1/flows', headers: {}, body: undefined }, clock, undefined, resolve)));
}

describe('h1 connect pacing', () => {
  it('opens at most perTurn connections per turn, the rest on the following turns', async () => {
    const origin = await server();
    const turns: (() => void)[] = [];
    const t = createH1Transport(origin, SETTINGS, { perTurn: 4, nextTurn: (fn) => turns.push(fn) });
    cleanups.push(() => t.close());
    const before = sockets();
    const results = send(t, 10);
    expect(sockets() - before).toBe(4);
    expect(turns).toHaveLength(1);
    (turns.shift() as () => void)();
    expect(sockets() - before).toBe(8);
    (turns.shift() as () => void)();
    expect(sockets() - before).toBe(10);
    // Every request is answered, on the connections it was given.
    const all = await Promise.all(results);
    expect(all.map((r) => [r.status, r.text])).toEqual(Array.from({ length: 10 }, () => [200, BODY]));
  });

  it('paces by default, and every request that waited for a connect is answered', async () => {
    const origin = await server();
    const t = createH1Transport(origin, SETTINGS);
    cleanups.push(() => t.close());
    const before = sockets();
    const results = send(t, 3 * CONNECTS_PER_TURN);
    expect(sockets() - before).toBe(CONNECTS_PER_TURN);
    const all = await Promise.all(results);
    expect(all.every((r) => r.status === 200 && r.error === undefined)).toBe(true);
  });
});
