import { describe, expect, it } from 'vitest';
import { API_ERROR_CODES, API_ERROR_STATUS } from '../../src/core/codes.js';
import { ApiError, TransportError, createClient, errorCodeOf, type Client } from '../../src/api/index.js';
import * as fx from './fixtures.js';
import { closedPort, sendJson, serveEach, TEST_TRANSPORT, type TestServer } from './test-server.js';

let server: TestServer;
let client: Client;

serveEach((s, c) => {
  server = s;
  client = c;
}, { timeouts: { headersMs: 200, bodyMs: 200 } });

describe('HTTP errors', () => {
  for (const code of API_ERROR_CODES) {
    it(`${code}: resolves ok:false with an ApiError carrying code, status, details and request id`, async () => {
      const status = API_ERROR_STATUS[code];
      server.handler = (_req, res) => sendJson(res, status, fx.errorBody(code, `msg ${code}`, { field: 'input', reason: 'missing' }));
      const r = await client.run('f', { input: 'x' });
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error).toBeInstanceOf(ApiError);
      const e = r.error as ApiError;
      expect(e.code).toBe(code);
      expect(e.status).toBe(status);
      expect(e.message).toContain(`msg ${code}`);
      expect(e.details).toEqual({ field: 'input', reason: 'missing' });
      expect(e.requestId).toBe(`req_${code}`);
      expect(r.meta.status).toBe(status);
      expect(r.meta.requestId).toBe(`req_${code}`);
      expect(r.violations).toEqual([]);
      expect(errorCodeOf(r)).toBe(code);
    });
  }

  it('a code outside the seven is UNKNOWN, without a violation', async () => {
    server.handler = (_req, res) => sendJson(res, 409, fx.errorBody('CONFLICT'));
    const r = await client.getFlow('f');
    expect(errorCodeOf(r)).toBe('UNKNOWN');
    expect(r.violations).toEqual([]);
    // The interface's error object, with a code it does not list: still the service's own answer.
    expect(r.ok ? undefined : (r.error as ApiError).foreignBody).toBeUndefined();
  });

  it('a non-JSON error body is an ApiError coded from the status, with a violation', async () => {
    server.handler = (_req, res) => {
      res.writeHead(503, { 'content-type': 'text/html', 'x-request-id': 'hdr-9' });
      res.end('<html>Service Unavailable</html>');
    };
    const r = await client.getFlow('f');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toBeInstanceOf(ApiError);
    expect(r.error.code).toBe('SERVICE_UNAVAILABLE');
    expect((r.error as ApiError).requestId).toBe('hdr-9');
    // Not the service's answer: a page of something in front of it.
    expect((r.error as ApiError).foreignBody).toBe('non-JSON text');
    expect(r.violations).toEqual([{ op: 'getFlow', path: 'error', expected: 'error body', got: 'non-JSON text' }]);
  });

  it('an unmapped status with an empty body is UNKNOWN', async () => {
    server.handler = (_req, res) => {
      res.writeHead(502);
      res.end();
    };
    const r = await client.getFlow('f');
    expect(errorCodeOf(r)).toBe('UNKNOWN');
    expect(r.ok ? undefined : (r.error as ApiError).foreignBody).toBe('empty');
    expect(r.violations).toEqual([{ op: 'getFlow', path: 'error', expected: 'error body', got: 'empty' }]);
  });

  it('an error body whose code disagrees with the status is a violation', async () => {
    server.handler = (_req, res) => sendJson(res, 429, fx.errorBody('INTERNAL_ERROR'));
    const r = await client.getFlow('f');
    expect(errorCodeOf(r)).toBe('INTERNAL_ERROR');
    expect(r.violations).toEqual([{ op: 'getFlow', path: 'error.code', expected: 'RATE_LIMITED for HTTP 429', got: '"INTERNAL_ERROR"' }]);
  });

  it('an error body without request_id is a violation and falls back to the header', async () => {
    server.handler = (_req, res) => sendJson(res, 404, { error: { code: 'NOT_FOUND', message: 'x' } }, { 'x-request-id': 'hdr-2' });
    const r = await client.getFlow('f');
    expect(r.meta.requestId).toBe('hdr-2');
    expect(r.violations).toEqual([{ op: 'getFlow', path: 'request_id', expected: 'string', got: 'missing' }]);
  });

  it('a 2xx body that is not JSON is MALFORMED_BODY', async () => {
    server.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id": ');
    };
    const r = await client.run('f', { input: 'x' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toBeInstanceOf(TransportError);
    expect(r.error.code).toBe('MALFORMED_BODY');
    expect(r.meta.status).toBe(200);
  });

  it('a 2xx JSON body that is not an object is MALFORMED_BODY', async () => {
    server.handler = (_req, res) => sendJson(res, 200, [1, 2]);
    const r = await client.getFlow('f');
    expect(errorCodeOf(r)).toBe('MALFORMED_BODY');
    expect(r.violations).toEqual([{ op: 'getFlow', path: '(root)', expected: 'object', got: 'array' }]);
  });

  it('a body past maxBodyBytes is MALFORMED_BODY, whether its length is stated or chunked, and the pool goes on', async () => {
    const c = createClient({ baseUrl: `${server.origin}/v1`, token: fx.TOKEN, maxBodyBytes: 2_000, transport: TEST_TRANSPORT });
    const big = { ...fx.flow, description: 'x'.repeat(5_000) };
    try {
      server.handler = (_req, res) => sendJson(res, 200, big);
      const stated = await c.getFlow('f');
      expect(errorCodeOf(stated)).toBe('MALFORMED_BODY');
      expect((stated as { error: TransportError }).error.causeCode).toBe('FG_BODY_TOO_LARGE');
      server.handler = (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const text = JSON.stringify(big);
        for (let i = 0; i < text.length; i += 500) res.write(text.slice(i, i + 500));
        res.end();
      };
      expect(errorCodeOf(await c.getFlow('f'))).toBe('MALFORMED_BODY');
      server.handler = (_req, res) => sendJson(res, 200, fx.flow);
      expect((await c.getFlow('f')).ok).toBe(true);
    } finally {
      await c.close();
    }
  });
});

describe('transport errors', () => {
  it('connection refused', async () => {
    const port = await closedPort();
    const c = createClient({ baseUrl: `http://127.0.0.1:${port}/v1`, token: fx.TOKEN, transport: TEST_TRANSPORT });
    try {
      const r = await c.getRun('r');
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error).toBeInstanceOf(TransportError);
      expect(r.error.code).toBe('CONNECTION_REFUSED');
      expect(r.meta.status).toBe(0);
      expect(r.meta.headersNs).toBeUndefined();
      expect(r.meta.rateLimit).toBeUndefined();
    } finally {
      await c.close();
    }
  });

  it('reset mid-body keeps the status and rate-limit headers', async () => {
    server.handler = (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500', 'x-ratelimit-limit': '1000' });
      res.write('{"id": "run_1", ');
      setImmediate(() => req.socket.destroy());
    };
    const r = await client.run('f', { input: 'x' });
    expect(errorCodeOf(r)).toBe('CONNECTION_RESET');
    expect(r.meta.status).toBe(200);
    expect(r.meta.headersNs).toBeDefined();
    expect(r.meta.rateLimit?.limit).toBe(1000);
  });

  it('headers timeout when the server never answers', async () => {
    server.handler = () => undefined;
    const r = await client.getRun('r');
    expect(errorCodeOf(r)).toBe('HEADERS_TIMEOUT');
    expect(r.meta.status).toBe(0);
  });

  it('body timeout when the body stalls', async () => {
    server.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":');
    };
    const r = await client.getRun('r');
    expect(errorCodeOf(r)).toBe('BODY_TIMEOUT');
    expect(r.meta.status).toBe(200);
  });

  it('abort through the signal, before the headers and during the body', async () => {
    server.handler = (req, res) => {
      if (req.url?.includes('body')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"id":');
      }
    };
    const before = new AbortController();
    const p1 = client.getRun('r', { signal: before.signal });
    setImmediate(() => before.abort());
    expect(errorCodeOf(await p1)).toBe('ABORTED');

    const during = new AbortController();
    server.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":', () => setImmediate(() => during.abort(new Error('custom reason'))));
    };
    // Whether the head arrived before the abort is a race here; the stream tests pin that case.
    const r2 = await client.getRun('r', { signal: during.signal });
    expect(errorCodeOf(r2)).toBe('ABORTED');

    const pre = new AbortController();
    pre.abort();
    expect(errorCodeOf(await client.getRun('r', { signal: pre.signal }))).toBe('ABORTED');
  });

  it('a DNS failure is DNS_ERROR', async () => {
    const c = createClient({ baseUrl: 'http://flowgauge-test.invalid/v1', token: fx.TOKEN, transport: TEST_TRANSPORT });
    try {
      expect(errorCodeOf(await c.getRun('r'))).toBe('DNS_ERROR');
    } finally {
      await c.close();
    }
  });

  it('an HTTP server that closes before the head is CONNECTION_RESET', async () => {
    server.handler = (req) => req.socket.destroy();
    expect(errorCodeOf(await client.getRun('r'))).toBe('CONNECTION_RESET');
  });

  it('keeps working on the same pool after failures', async () => {
    server.handler = (req) => req.socket.destroy();
    await client.getRun('r');
    server.handler = (_req, res) => sendJson(res, 200, fx.runStatus);
    const r = await client.getRun('r');
    expect(r.ok).toBe(true);
  });
});
