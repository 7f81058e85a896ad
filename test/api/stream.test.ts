import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/core/clock.js';
import { ApiError, createClient, errorCodeOf, type Client, type TimedStreamEvent } from '../../src/api/index.js';
import * as fx from './fixtures.js';
import { sendJson, serveEach, TEST_TRANSPORT, type TestServer } from './test-server.js';

let server: TestServer;
let client: Client;

serveEach((s, c) => {
  server = s;
  client = c;
});

const ev = (data: unknown): string => `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
const START = ev({ type: 'start', run_id: 'r1' });
const tok = (content: string): string => ev({ type: 'token', content });
const END = ev({ type: 'end', run_id: 'r1', usage: { total_tokens: 5, prompt_tokens: 2, completion_tokens: 3 } });

function sseHead(res: http.ServerResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'x-ratelimit-remaining': '7', ...headers });
}

function answerStream(parts: string[]): void {
  server.handler = (_req, res) => {
    sseHead(res);
    for (const p of parts) res.write(p);
    res.end();
  };
}

describe('stream', () => {
  it('POSTs to /flows/{id}/stream asking for text/event-stream and sums up a complete stream', async () => {
    answerStream([': hi\n\n', START, tok('Hel'), tok('lo'), tok('!'), END]);
    const seen: string[] = [];
    const r = await client.stream('flow 1', { input: 'hi', session_id: 's1' }, { onEvent: (e) => seen.push(e.type) });
    const req = server.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/v1/flows/flow%201/stream');
    expect(req.headers.accept).toBe('text/event-stream');
    expect(req.headers.authorization).toBe(`Bearer ${fx.TOKEN}`);
    expect(JSON.parse(req.body)).toEqual({ input: 'hi', session_id: 's1' });
    expect(seen).toEqual(['start', 'token', 'token', 'token', 'end']);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.output).toBe('Hello!');
    expect(r.value.runId).toBe('r1');
    expect(r.value.usage?.completion_tokens).toBe(3);
    expect(r.violations).toEqual([]);
    expect(r.meta.rateLimit?.remaining).toBe(7);
    const t = r.timing;
    expect(t.complete).toBe(true);
    expect(t.tokens).toBe(3);
    expect(t.itlNs).toHaveLength(2);
    expect(t.usageCompletionTokens).toBe(3);
    expect(t.firstByteNs).toBeGreaterThanOrEqual(r.meta.headersNs!);
    expect(t.startEventNs).toBeGreaterThanOrEqual(t.firstByteNs!);
    expect(t.firstTokenNs).toBeGreaterThanOrEqual(t.startEventNs!);
    expect(t.lastTokenNs).toBeGreaterThanOrEqual(t.firstTokenNs!);
    expect(t.endEventNs).toBeGreaterThanOrEqual(t.lastTokenNs!);
    expect(r.meta.endNs).toBeGreaterThanOrEqual(t.endEventNs!);
    expect(r.timing).toBe(r.value.timing);
  });

  it('stamps events with the fake clock at the instant their chunk arrived', async () => {
    const clock = createFakeClock({ startNs: 1_000 });
    const c = createClient({ baseUrl: `${server.origin}/v1`, token: fx.TOKEN, clock, transport: TEST_TRANSPORT });
    let res: http.ServerResponse | undefined;
    server.handler = (_req, r) => {
      sseHead(r);
      r.write(START);
      res = r;
    };
    try {
      const gen = c.streamEvents('f', { input: 'x' });
      const stamps: [string, number][] = [];
      const take = async (): Promise<void> => {
        const n = await gen.next();
        if (n.done === true) throw new Error('ended early');
        stamps.push([n.value.type, n.value.atNs]);
      };
      await take();
      clock.advance(500);
      res!.write(tok('a'));
      await take();
      clock.advance(250);
      res!.write(tok('b'));
      await take();
      clock.advance(100);
      res!.end(END);
      await take();
      const last = await gen.next();
      expect(stamps).toEqual([
        ['start', 1_000],
        ['token', 1_500],
        ['token', 1_750],
        ['end', 1_850],
      ]);
      expect(last.done).toBe(true);
      const result = last.value as Awaited<ReturnType<Client['stream']>>;
      expect(result.ok).toBe(true);
      expect(result.timing.itlNs).toEqual([250]);
      expect(result.timing.firstByteNs).toBe(1_000);
      expect(result.timing.firstTokenNs).toBe(1_500);
      expect(result.meta.endNs).toBe(1_850);
    } finally {
      await c.close();
    }
  });

  it('an error event fails the stream with STREAM_ERROR_EVENT even when end follows', async () => {
    answerStream([START, tok('a'), ev({ type: 'error', error: { code: 'OVERLOADED' } }), END]);
    const r = await client.stream('f', { input: 'x' });
    expect(errorCodeOf(r)).toBe('STREAM_ERROR_EVENT');
    if (!r.ok) expect(r.error.message).toContain('OVERLOADED');
    expect(r.timing.unknownEvents).toBe(1);
    expect(r.timing.complete).toBe(true);
  });

  it('a stream closed without end is STREAM_INCOMPLETE with its partial timing', async () => {
    answerStream([START, tok('a'), tok('b')]);
    const r = await client.stream('f', { input: 'x' });
    expect(errorCodeOf(r)).toBe('STREAM_INCOMPLETE');
    expect(r.meta.status).toBe(200);
    expect(r.timing.complete).toBe(false);
    expect(r.timing.tokens).toBe(2);
    expect(r.timing.startEventNs).toBeDefined();
  });

  it('unknown and malformed events are counted, not fatal', async () => {
    answerStream([START, ev({ type: 'progress', pct: 5 }), ev('{oops'), tok('a'), END]);
    const r = await client.stream('f', { input: 'x' });
    expect(r.ok).toBe(true);
    expect(r.timing.unknownEvents).toBe(1);
    expect(r.timing.malformedEvents).toBe(1);
  });

  it('a 429 JSON answer is the normal ApiError path with rate-limit headers and an empty timing', async () => {
    server.handler = (_req, res) =>
      sendJson(res, 429, fx.errorBody('RATE_LIMITED'), { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'retry-after': '30' });
    const r = await client.stream('f', { input: 'x' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toBeInstanceOf(ApiError);
    expect(r.error.code).toBe('RATE_LIMITED');
    expect(r.meta.rateLimit).toMatchObject({ limit: 100, remaining: 0, raw: { retryAfter: '30' } });
    expect(r.timing.tokens).toBe(0);
    expect(r.timing.firstByteNs).toBeUndefined();
  });

  it('a reset mid-stream is CONNECTION_RESET and keeps the tokens seen', async () => {
    server.handler = (req, res) => {
      sseHead(res);
      res.write(START + tok('a'), () => setImmediate(() => req.socket.destroy()));
    };
    const r = await client.stream('f', { input: 'x' });
    expect(errorCodeOf(r)).toBe('CONNECTION_RESET');
    expect(r.timing.startEventNs).toBeDefined();
    expect(r.timing.complete).toBe(false);
  });

  it('aborting from onEvent after the first token resolves ABORTED with status 200', async () => {
    server.handler = (_req, res) => {
      sseHead(res);
      res.write(START + tok('a'));
    };
    const ac = new AbortController();
    const r = await client.stream('f', { input: 'x' }, { signal: ac.signal, onEvent: (e) => e.type === 'token' && ac.abort() });
    expect(errorCodeOf(r)).toBe('ABORTED');
    expect(r.meta.status).toBe(200);
    expect(r.timing.tokens).toBe(1);
  });

  it('an onEvent that throws rejects the call (a programmer error)', async () => {
    answerStream([START, tok('a'), END]);
    const boom = new Error('consumer bug');
    await expect(
      client.stream('f', { input: 'x' }, { onEvent: () => {
        throw boom;
      } }),
    ).rejects.toBe(boom);
  });

  it('streamEvents yields every event and returns the result', async () => {
    answerStream([START, tok('x'), tok('y'), END]);
    const gen = client.streamEvents('f', { input: 'x' });
    const types: string[] = [];
    let n = await gen.next();
    while (n.done !== true) {
      types.push((n.value as TimedStreamEvent).type);
      n = await gen.next();
    }
    expect(types).toEqual(['start', 'token', 'token', 'end']);
    expect(n.value.ok && n.value.value.output).toBe('xy');
  });

  it('leaving streamEvents early cancels the request', async () => {
    const closed = new Promise<void>((resolve) => {
      server.handler = (req, res) => {
        sseHead(res);
        res.write(START);
        res.on('close', () => resolve());
        void req;
      };
    });
    for await (const e of client.streamEvents('f', { input: 'x' })) {
      expect(e.type).toBe('start');
      break;
    }
    await closed;
  });

  it('reports stream contract violations once per path', async () => {
    answerStream([
      ev({ type: 'start' }),
      ev({ type: 'token', content: 1 }),
      ev({ type: 'token', content: 2 }),
      ev({ type: 'end', run_id: 'r2', usage: { total_tokens: '5', prompt_tokens: 2, completion_tokens: 3 } }),
    ]);
    const r = await client.stream('f', { input: 'x' });
    expect(r.ok).toBe(true);
    expect(r.violations).toEqual([
      { op: 'stream', path: 'start.run_id', expected: 'string', got: 'missing' },
      { op: 'stream', path: 'token.content', expected: 'string', got: 'number' },
      { op: 'stream', path: 'end.usage.total_tokens', expected: 'integer', got: 'string' },
    ]);
  });

  it('a 2xx answer that is not an event stream is a violation and an incomplete stream', async () => {
    server.handler = (_req, res) => sendJson(res, 200, fx.run);
    const r = await client.stream('f', { input: 'x' });
    expect(errorCodeOf(r)).toBe('STREAM_INCOMPLETE');
    expect(r.violations).toEqual([{ op: 'stream', path: 'headers.content-type', expected: 'text/event-stream', got: 'application/json' }]);
  });
});

describe('stream endings', () => {
  it('a connection lost after the end event still counts as a complete stream', async () => {
    server.handler = (req, res) => {
      sseHead(res);
      res.write(START + tok('a') + END, () => setImmediate(() => req.socket.destroy()));
    };
    const r = await client.stream('f', { input: 'x' });
    expect(r.ok).toBe(true);
    expect(r.timing.complete).toBe(true);
  });

  it('CRLF and CR-only streams complete like LF ones', async () => {
    for (const eol of ['\r\n', '\r']) {
      server.handler = (_req, res) => {
        sseHead(res);
        res.end([START, tok('a'), END].join('').replaceAll('\n', eol));
      };
      const r = await client.stream('f', { input: 'x' });
      expect([eol, r.ok, r.ok && r.value.output]).toEqual([eol, true, 'a']);
    }
  });
});
