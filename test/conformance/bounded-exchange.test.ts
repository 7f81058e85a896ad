/**
 * The battery's exchange reads every body through the bounded reader: an endless body fails at
 * its cap as MALFORMED_BODY, a trickling one at the request's whole deadline as TIMEOUT (undici's
 * body timeout restarts on every byte and would wait forever), and the battery's own deadline
 * cuts whatever is left. Each case fails on an exchange that read `res.body.text()` uncapped.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createExchange } from '../../src/conformance/exchange.js';
import { runConformance } from '../../src/conformance/index.js';
import { createSystemClock } from '../../src/core/clock.js';

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A raw server that hands every request's socket to `answer` once its head arrived. */
async function rawServer(answer: (s: Socket) => void): Promise<string> {
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
    let head = '';
    const onData = (d: Buffer): void => {
      head += d.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      answer(socket);
    };
    socket.on('data', onData);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const a = server.address();
  if (a === null || typeof a === 'string') throw new Error('no port');
  return `http://127.0.0.1:${a.port}/v1`;
}

/** Writes `piece` whenever the socket drains: as fast as the client reads. */
function flood(s: Socket, piece: string): void {
  const go = (): void => {
    while (!s.destroyed && s.write(piece));
  };
  s.on('drain', go);
  go();
}

const clock = createSystemClock();
const exchangeTo = (baseUrl: string, timeoutMs: number) => createExchange({ baseUrl, webhookHost: baseUrl, token: 'fg_t', clock, timeoutMs });

describe('conformance exchange: bounded bodies', () => {
  it('an endless chunked body fails at the cap as MALFORMED_BODY, with the status that came', async () => {
    const base = await rawServer((s) => {
      s.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n');
      const piece = 'x'.repeat(64 * 1024);
      flood(s, `${piece.length.toString(16)}\r\n${piece}\r\n`);
    });
    const x = exchangeTo(base, 20_000);
    const before = process.memoryUsage().rss;
    const a = await x.send({ label: 'GET /flows', op: 'listFlows', method: 'GET', path: '/flows' });
    await x.close();
    expect(a.status).toBe(200);
    expect(a.transportError).toBe('MALFORMED_BODY');
    expect(a.text).toBe('');
    // Bounded by the 16 MiB cap, not by how long the target keeps sending.
    expect((process.memoryUsage().rss - before) / 2 ** 20).toBeLessThan(200);
  });

  it('a body trickled a byte every 20 ms ends at the whole-request deadline as TIMEOUT', async () => {
    const base = await rawServer((s) => {
      s.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{');
      const t = setInterval(() => (s.destroyed ? clearInterval(t) : s.write(' ')), 20);
      s.on('close', () => clearInterval(t));
    });
    const x = exchangeTo(base, 600);
    const t0 = performance.now();
    const a = await x.send({ label: 'GET /flows', op: 'listFlows', method: 'GET', path: '/flows' });
    const ms = performance.now() - t0;
    await x.close();
    expect(a.transportError).toBe('TIMEOUT');
    expect(a.status).toBe(200);
    // A bound against a hang (undici's body timeout restarts with every byte), not a timing assertion.
    expect(ms).toBeLessThan(10_000);
  });

  it('a head trickled a byte every 20 ms ends at the deadline with no status', async () => {
    const base = await rawServer((s) => {
      s.write('HTTP/1.1 200 OK\r\nx-a: ');
      const t = setInterval(() => (s.destroyed ? clearInterval(t) : s.write('a')), 20);
      s.on('close', () => clearInterval(t));
    });
    const x = exchangeTo(base, 600);
    const a = await x.send({ label: 'GET /flows', op: 'listFlows', method: 'GET', path: '/flows' });
    await x.close();
    expect(a.status).toBe(0);
    expect(a.transportError).toBe('TIMEOUT');
  });

  it('the battery ends at its own deadline against a target that never answers, and says so', async () => {
    const base = await rawServer(() => undefined);
    const groups: string[] = [];
    const report = await runConformance({ baseUrl: base, token: 'fg_t', clock, timeoutMs: 60_000, deadlineMs: 700, onProgress: (p) => groups.push(p.group) });
    expect(report.reachable).toBe(false);
    expect(report.passed).toBe(false);
    expect(report.deadline?.ms).toBe(700);
    expect(groups).toEqual(['reachability']);
  });

  it('a 200 that is not a flow list is another protocol, not a reachable interface', async () => {
    const base = await rawServer((s) => s.end('HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 15\r\nconnection: close\r\n\r\n<html>hi</html>'));
    const report = await runConformance({ baseUrl: base, token: 'fg_t', clock, deadlineMs: 10_000 });
    expect(report.protocol).toMatch(/not a flow list/);
    expect(report.requests).toBe(1);
    expect(report.passed).toBe(false);
  });

  it('keeps a token the target echoes (in error codes, details, headers) out of the report', async () => {
    const token = 'fg_echoed_secret_token_1234';
    const base = await rawServer((s) => {
      const body = JSON.stringify({ error: { code: token, message: `bad ${token}`, details: { [token]: token } } });
      s.end(`HTTP/1.1 401 No\r\ncontent-type: application/json\r\nx-request-id: ${token}\r\nx-ratelimit-limit: ${token}\r\nx-ratelimit-remaining: Bearer ${token}\r\nx-ratelimit-reset: ${token}\r\nretry-after: ${token}\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`);
    });
    const report = await runConformance({ baseUrl: base, token, clock, deadlineMs: 10_000 });
    expect(report.tokenAccepted).toBe(false);
    expect(report.violations.length).toBeGreaterThan(0);
    expect(JSON.stringify(report)).not.toContain(token);
  });
});
