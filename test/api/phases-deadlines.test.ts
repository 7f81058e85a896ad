/**
 * Request phases and whole-request deadlines, on both transports (the `api-undici` project runs
 * this file again on undici). Assertions are on the order of the moments each request records,
 * never on how long anything took.
 */
import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import type { ApiResult, Client, StreamResult } from '../../src/api/index.js';
import * as fx from './fixtures.js';
import { sendJson, serveEach, type TestServer } from './test-server.js';

const LIST = { flows: [fx.flowItem(1)], total: 1 };
const codeOf = (r: ApiResult<unknown> | StreamResult): string | undefined => (r.ok ? undefined : r.error.code);

describe('request phases', () => {
  let server: TestServer;
  let client: Client;
  serveEach(
    (s, c) => {
      server = s;
      client = c;
    },
    { connections: 1 },
  );

  it('a first request opens the connection; the next reuses it and is sent only when the connection is free', async () => {
    let hold: (res: http.ServerResponse) => void = () => undefined;
    const held = new Promise<http.ServerResponse>((resolve) => (hold = resolve));
    let n = 0;
    server.handler = (_req, res) => {
      // The first answer is held until both requests were asked for, so the second must queue.
      if (n++ === 0) hold(res);
      else sendJson(res, 200, LIST);
    };
    const first = client.listFlows();
    const second = client.listFlows();
    sendJson(await held, 200, LIST);
    const [a, b] = await Promise.all([first, second]);
    expect(a.ok && b.ok).toBe(true);
    // The first waited for nobody but its own connect.
    expect(a.meta.connectNs).toBeGreaterThan(0);
    expect(a.meta.sentNs).toBeGreaterThanOrEqual(a.meta.startNs + a.meta.connectNs);
    expect(a.meta.headersNs).toBeGreaterThanOrEqual(a.meta.sentNs as number);
    // The second queued behind the first's whole answer on the one connection, then reused it.
    expect(b.meta.connectNs).toBe(0);
    expect(b.meta.tlsNs).toBe(0);
    expect(b.meta.sentNs).toBeGreaterThanOrEqual(a.meta.endNs);
    expect(b.meta.startNs).toBeLessThan(a.meta.endNs);
  });

  it('a request that never reached a connection has no sent moment', async () => {
    server.handler = () => undefined; // never answers: the second request waits in the queue
    const ac = new AbortController();
    const first = client.listFlows(undefined, { deadlineMs: 0, signal: ac.signal });
    const queued = client.listFlows(undefined, { deadlineMs: 100 });
    const r = await queued;
    ac.abort();
    await first;
    expect(codeOf(r)).toBe('TIMEOUT');
    expect(r.meta.sentNs).toBeUndefined();
    expect(r.meta.status).toBe(0);
  });
});

describe('whole-request deadlines', () => {
  let server: TestServer;
  let client: Client;
  serveEach(
    (s, c) => {
      server = s;
      client = c;
    },
    { timeouts: { requestMs: 150, bodyMs: 10_000 } },
  );

  it('cut a body that trickles forever (the stall timeout never fires): TIMEOUT, after the head', async () => {
    let timer: NodeJS.Timeout | undefined;
    server.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"flows": [');
      timer = setInterval(() => res.write(' '), 10);
      res.on('close', () => clearInterval(timer));
    };
    const r = await client.listFlows();
    clearInterval(timer);
    expect(codeOf(r)).toBe('TIMEOUT');
    expect(r.meta.headersNs).toBeDefined();
  });

  it('cut a stream that sends tokens forever: TIMEOUT, counted as an incomplete stream with its tokens', async () => {
    let timer: NodeJS.Timeout | undefined;
    server.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ type: 'start', run_id: 'run_1' })}\n\n`);
      timer = setInterval(() => res.write(`data: ${JSON.stringify({ type: 'token', content: 'x' })}\n\n`), 10);
      res.on('close', () => clearInterval(timer));
    };
    const r = await client.stream('flow_1', { input: 'hi' });
    clearInterval(timer);
    expect(codeOf(r)).toBe('TIMEOUT');
    expect(r.timing.complete).toBe(false);
    expect(r.timing.tokens).toBeGreaterThan(0);
  });

  // Needs a quiet core: "within 5 ms" is a wall-clock figure (beyond the plain timers' own
  // lateness, which it subtracts) that a starved machine can miss; retried once. Never early is
  // checked every time.
  it('fire at their instant, within 5 ms (the median of 20 spread deadlines), never before it, queued or not', { retry: 1 }, async () => {
    server.handler = () => undefined; // never answers
    const deadlines = Array.from({ length: 20 }, (_, i) => 200 + 7 * i);
    // A plain timer beside each request says how late this (possibly busy) event loop runs timers.
    const loopLate: number[] = [];
    const results = await Promise.all(
      deadlines.map((deadlineMs) => {
        const t0 = performance.now();
        setTimeout(() => loopLate.push(performance.now() - t0 - deadlineMs), deadlineMs);
        return client.listFlows(undefined, { deadlineMs });
      }),
    );
    const overshoot = results.map((r, i) => (r.meta.endNs - r.meta.startNs) / 1e6 - (deadlines[i] as number));
    for (const r of results) expect(codeOf(r)).toBe('TIMEOUT');
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    // A sweep every quarter of the deadline was 0–50 ms late (median ~25 ms); a timer at the
    // deadline is late only by the event loop's own delay, which the plain timers measure.
    expect(Math.min(...overshoot)).toBeGreaterThanOrEqual(-1);
    expect(median(overshoot) - Math.max(0, median(loopLate))).toBeLessThan(5);
  });

  it("a call's own deadline replaces the client's, and 0 turns it off", async () => {
    server.handler = (_req, res) => {
      setTimeout(() => sendJson(res, 200, LIST), 300);
    };
    const [cut, longer, none] = await Promise.all([
      client.listFlows(undefined, { deadlineMs: 50 }),
      client.listFlows(undefined, { deadlineMs: 5_000 }),
      client.listFlows(undefined, { deadlineMs: 0 }),
    ]);
    expect(codeOf(cut)).toBe('TIMEOUT');
    expect(longer.ok).toBe(true);
    expect(none.ok).toBe(true);
  });
});
