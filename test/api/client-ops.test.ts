import { describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../src/api/index.js';
import * as fx from './fixtures.js';
import { sendJson, serveEach, startServer, TEST_TRANSPORT, type TestServer } from './test-server.js';

let server: TestServer;
let client: Client;

serveEach((s, c) => {
  server = s;
  client = c;
});

function answer(status: number, body: unknown, headers: Record<string, string> = {}): void {
  server.handler = (_req, res) => sendJson(res, status, body, headers);
}

function only(): (typeof server.requests)[number] {
  expect(server.requests).toHaveLength(1);
  return server.requests[0]!;
}

describe('client operations', () => {
  it('run: POSTs JSON with bearer, accept and user-agent, and returns the Run', async () => {
    answer(200, fx.run, { 'x-request-id': 'hdr-1' });
    const r = await client.run('flow/1 a', { input: 'hi', variables: { x: 1 } });
    const req = only();
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/v1/flows/flow%2F1%20a/run');
    expect(req.headers.authorization).toBe(`Bearer ${fx.TOKEN}`);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers.accept).toBe('application/json');
    expect(req.headers['user-agent']).toBe('flowgauge/0.1.0');
    expect(JSON.parse(req.body)).toEqual({ input: 'hi', variables: { x: 1 } });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.status).toBe('completed');
    expect(r.value.usage?.completion_tokens).toBe(20);
    expect(r.violations).toEqual([]);
    expect(r.meta.status).toBe(200);
    expect(r.meta.requestId).toBe('hdr-1');
    expect(r.meta.headersNs).toBeGreaterThanOrEqual(r.meta.startNs);
    expect(r.meta.endNs).toBeGreaterThanOrEqual(r.meta.headersNs!);
  });

  it('run: a running run without completed_at or usage is a clean success', async () => {
    answer(200, { ...fx.run, status: 'running', completed_at: undefined, usage: undefined });
    const r = await client.run('f', { input: 'x' });
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.value.status).toBe('running');
    expect(r.violations).toEqual([]);
  });

  it('run: a completed run without usage is a violation but still ok', async () => {
    answer(200, { ...fx.run, usage: undefined });
    const r = await client.run('f', { input: 'x' });
    expect(r.ok).toBe(true);
    expect(r.violations).toEqual([{ op: 'run', path: 'usage', expected: 'object', got: 'missing' }]);
  });

  it('getRun: GETs /runs/{id} without a body', async () => {
    answer(200, fx.runStatus);
    const r = await client.getRun('run 1');
    const req = only();
    expect(req.method).toBe('GET');
    expect(req.url).toBe('/v1/runs/run%201');
    expect(req.headers['content-type']).toBeUndefined();
    expect(req.body).toBe('');
    expect(r.ok && r.value.progress).toBe(40);
    expect(r.violations).toEqual([]);
  });

  it('listFlows: encodes the query and parses the page', async () => {
    answer(200, { flows: [fx.flowItem(0), fx.flowItem(1)], total: 2, limit: 5, offset: 0 });
    const r = await client.listFlows({ limit: 5, offset: 0, status: 'published' });
    expect(only().url).toBe('/v1/flows?limit=5&offset=0&status=published');
    expect(r.ok && r.value.flows.map((f) => f.id)).toEqual(['flow_0', 'flow_1']);
    expect(r.violations).toEqual([]);
  });

  it('listFlows: no query sends no query string', async () => {
    answer(200, { flows: [], total: 0, limit: 20, offset: 0 });
    await client.listFlows();
    expect(only().url).toBe('/v1/flows');
  });

  it('listAllFlows: walks every page until total is reached', async () => {
    const all = Array.from({ length: 5 }, (_, i) => fx.flowItem(i));
    server.handler = (req, res) => {
      const u = new URL(req.url ?? '', 'http://x');
      const limit = Number(u.searchParams.get('limit'));
      const offset = Number(u.searchParams.get('offset'));
      sendJson(res, 200, { flows: all.slice(offset, offset + limit), total: all.length, limit, offset });
    };
    const ids: string[] = [];
    for await (const page of client.listAllFlows({ pageSize: 2, status: 'draft' })) {
      expect(page.ok).toBe(true);
      if (page.ok) ids.push(...page.value.flows.map((f) => f.id));
    }
    expect(ids).toEqual(all.map((f) => f.id));
    expect(server.requests.map((r) => r.url)).toEqual([
      '/v1/flows?limit=2&offset=0&status=draft',
      '/v1/flows?limit=2&offset=2&status=draft',
      '/v1/flows?limit=2&offset=4&status=draft',
    ]);
  });

  it('listAllFlows: stops after an error page', async () => {
    answer(503, fx.errorBody('SERVICE_UNAVAILABLE'));
    const pages = [];
    for await (const page of client.listAllFlows()) pages.push(page);
    expect(pages).toHaveLength(1);
    expect(pages[0]!.ok).toBe(false);
  });

  it('listAllFlows: an empty page ends the walk even when total says more', async () => {
    answer(200, { flows: [], total: 50, limit: 100, offset: 0 });
    const pages = [];
    for await (const page of client.listAllFlows()) pages.push(page);
    expect(pages).toHaveLength(1);
    expect(only().url).toBe('/v1/flows?limit=100&offset=0');
  });

  it('getFlow: parses config schemas', async () => {
    answer(200, fx.flow);
    const r = await client.getFlow('flow_1');
    expect(only().url).toBe('/v1/flows/flow_1');
    expect(r.ok && r.value.config.input_schema.properties?.message?.type).toBe('string');
    expect(r.violations).toEqual([]);
  });

  it('createSession: POSTs the body to /sessions', async () => {
    answer(201, fx.session);
    const r = await client.createSession({ flow_id: 'flow_1', user_id: 'u1', metadata: { plan: 'pro' } });
    const req = only();
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/v1/sessions');
    expect(JSON.parse(req.body)).toEqual({ flow_id: 'flow_1', user_id: 'u1', metadata: { plan: 'pro' } });
    expect(r.ok && r.value.status).toBe('active');
    expect(r.meta.status).toBe(201);
  });

  it('getHistory: GETs the history of a session', async () => {
    answer(200, fx.history);
    const r = await client.getHistory('sess_1');
    expect(only().url).toBe('/v1/sessions/sess_1/history');
    expect(r.ok && r.value.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(r.violations).toEqual([]);
  });

  it('getUsage: encodes every query parameter', async () => {
    answer(200, fx.usageStats);
    const r = await client.getUsage({ start_date: '2026-01-01T00:00:00+01:00', flow_id: 'a&b', granularity: 'day' });
    expect(only().url).toBe('/v1/analytics/usage?start_date=2026-01-01T00%3A00%3A00%2B01%3A00&flow_id=a%26b&granularity=day');
    expect(r.ok && r.value.metrics.total_runs).toBe(10);
    expect(r.violations).toEqual([]);
  });

  it('trigger: POSTs to the webhook address without the bearer by default', async () => {
    answer(202, fx.triggerAck);
    const r = await client.trigger('flow_1', { name: 'x' });
    const req = only();
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/api/v1/webhook/flow_1');
    expect(req.headers.authorization).toBeUndefined();
    expect(req.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req.body)).toEqual({ name: 'x' });
    expect(r.ok && r.value.status).toBe('in progress');
  });

  it('trigger: sends the bearer with triggerAuth, to a separate webhook host', async () => {
    const hook = await startServer((_req, res) => sendJson(res, 200, fx.triggerAck));
    const c = createClient({ baseUrl: `${server.origin}/v1`, token: fx.TOKEN, webhookHost: `${hook.origin}/prefix/`, triggerAuth: true, transport: TEST_TRANSPORT });
    try {
      expect(c.webhookHost).toBe(`${hook.origin}/prefix`);
      const r = await c.trigger('f', {});
      expect(r.ok).toBe(true);
      expect(hook.requests[0]?.url).toBe('/prefix/api/v1/webhook/f');
      expect(hook.requests[0]?.headers.authorization).toBe(`Bearer ${fx.TOKEN}`);
      expect(server.requests).toHaveLength(0);
    } finally {
      await c.close();
      await hook.close();
    }
  });

  it('call headers are added (traceparent) and can replace or remove ours', async () => {
    answer(200, fx.runStatus);
    await client.getRun('r', { headers: { traceparent: '00-abc-def-01', Authorization: 'Bearer other' } });
    await client.getRun('r', { headers: { authorization: '' } });
    expect(server.requests[0]?.headers.traceparent).toBe('00-abc-def-01');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer other');
    expect(server.requests[1]?.headers.authorization).toBeUndefined();
  });

  it('exposes the addresses, defaulting webhookHost to the origin', () => {
    expect(client.baseUrl).toBe(`${server.origin}/v1`);
    expect(client.webhookHost).toBe(server.origin);
  });

  it('a call after close resolves ABORTED', async () => {
    await client.close();
    const r = await client.getRun('r');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe('ABORTED');
  });
});
