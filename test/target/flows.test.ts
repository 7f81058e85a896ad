import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_TOKENS } from '../../src/target/index.js';
import { call, closeAll, header, start } from './helpers.js';

afterEach(closeAll);

describe('GET /flows', () => {
  it('lists the caller’s published flows with endpoint, total, limit and offset', async () => {
    const s = await start({ latency: 'none' });
    const r = await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ total: 9, limit: 20, offset: 0 });
    expect(r.json.flows).toHaveLength(9);
    for (const f of r.json.flows) {
      expect(f.status).toBe('published');
      expect(f.id).toMatch(/^flow_/);
      expect(f.endpoint).toBe(`${s.baseUrl}/flows/${f.id}/run`);
      expect(Object.keys(f).sort()).toEqual(['created_at', 'description', 'endpoint', 'id', 'name', 'status', 'updated_at']);
      expect(new Date(f.created_at).toISOString()).toBe(f.created_at);
    }
  });

  it('pages with limit and offset and filters by status', async () => {
    const s = await start({ latency: 'none' });
    const all = (await call(s.baseUrl, 'GET', '/flows?limit=100', { token: s.tokens.free })).json.flows.map((f: { id: string }) => f.id);
    const page = await call(s.baseUrl, 'GET', '/flows?limit=2&offset=3', { token: s.tokens.free });
    expect(page.json).toMatchObject({ total: 9, limit: 2, offset: 3 });
    expect(page.json.flows.map((f: { id: string }) => f.id)).toEqual(all.slice(3, 5));
    const drafts = await call(s.baseUrl, 'GET', '/flows?status=draft', { token: s.tokens.free });
    expect(drafts.json.total).toBe(3);
    expect(drafts.json.flows.every((f: { status: string }) => f.status === 'draft')).toBe(true);
    const beyond = await call(s.baseUrl, 'GET', '/flows?offset=50', { token: s.tokens.free });
    expect(beyond.json).toMatchObject({ flows: [], total: 9, offset: 50 });
  });

  it('keeps each account’s flows apart', async () => {
    const s = await start({ latency: 'none' });
    const a = await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.free });
    const b = await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro });
    const idsA = new Set(a.json.flows.map((f: { id: string }) => f.id));
    expect(b.json.flows.some((f: { id: string }) => idsA.has(f.id))).toBe(false);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['offset=-1', 'offset'],
    ['status=archived', 'status'],
  ])('answers 400 INVALID_REQUEST for %s with details.field', async (query, field) => {
    const s = await start({ latency: 'none' });
    const r = await call(s.baseUrl, 'GET', `/flows?${query}`, { token: s.tokens.pro });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe('INVALID_REQUEST');
    expect(r.json.error.details.field).toBe(field);
    expect(r.json.request_id).toBe(header(r, 'x-request-id'));
  });

  it('accepts the limit bounds 1 and 100', async () => {
    const s = await start({ latency: 'none' });
    expect((await call(s.baseUrl, 'GET', '/flows?limit=1', { token: s.tokens.pro })).json.flows).toHaveLength(1);
    expect((await call(s.baseUrl, 'GET', '/flows?limit=100', { token: s.tokens.pro })).status).toBe(200);
  });
});

describe('GET /flows/{id}', () => {
  it('returns one flow with config.input_schema and output_schema, without endpoint', async () => {
    const s = await start({ latency: 'none' });
    const id = (await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro })).json.flows[0].id;
    const r = await call(s.baseUrl, 'GET', `/flows/${id}`, { token: s.tokens.pro });
    expect(r.status).toBe(200);
    expect(r.json.id).toBe(id);
    expect(r.json.config.input_schema.type).toBe('object');
    expect(r.json.config.output_schema.type).toBe('object');
    for (const p of Object.values(r.json.config.input_schema.properties)) expect(typeof (p as { type: unknown }).type).toBe('string');
    expect(r.json.endpoint).toBeUndefined();
  });

  it('answers 404 for an unknown id and 403 for another account’s flow', async () => {
    const s = await start({ latency: 'none' });
    const missing = await call(s.baseUrl, 'GET', '/flows/flow_nope', { token: s.tokens.pro });
    expect(missing.status).toBe(404);
    expect(missing.json.error).toMatchObject({ code: 'NOT_FOUND' });
    const other = (await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.free })).json.flows[0].id;
    const forbidden = await call(s.baseUrl, 'GET', `/flows/${other}`, { token: s.tokens.pro });
    expect(forbidden.status).toBe(403);
    expect(forbidden.json.error.code).toBe('FORBIDDEN');
    expect(typeof forbidden.json.error.message).toBe('string');
    expect(typeof forbidden.json.request_id).toBe('string');
  });
});

describe('authentication and routing', () => {
  it('answers 401 UNAUTHORIZED for a missing, malformed or unknown token', async () => {
    const s = await start({ latency: 'none' });
    const variants: Array<Record<string, string>> = [{}, { authorization: 'Basic abc' }, { authorization: 'Bearer nope' }];
    for (const headers of variants) {
      const r = await call(s.baseUrl, 'GET', '/flows', { headers });
      expect(r.status).toBe(401);
      expect(r.json.error.code).toBe('UNAUTHORIZED');
      expect(r.json.request_id).toMatch(/^req_/);
    }
  });

  it('never echoes a token in an error body', async () => {
    const s = await start({ latency: 'none' });
    const r = await call(s.baseUrl, 'GET', '/flows', { token: 'fg_secret_guess_123' });
    expect(r.text).not.toContain('fg_secret_guess_123');
  });

  it('answers 404 NOT_FOUND for unknown routes and wrong methods, inside and outside /v1', async () => {
    const s = await start({ latency: 'none' });
    const cases: Array<[string, string, string]> = [
      [s.baseUrl, 'GET', '/nothing'],
      [s.baseUrl, 'DELETE', '/flows'],
      [s.baseUrl, 'GET', '/flows/x/run'],
      [s.webhookHost, 'GET', '/'],
    ];
    for (const [base, method, path] of cases) {
      const r = await call(base, method, path, { token: DEFAULT_TOKENS.pro });
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.json.error.code).toBe('NOT_FOUND');
    }
  });

  it('puts x-request-id on every response, unique per request', async () => {
    const s = await start({ latency: 'none' });
    const ids = new Set<string | undefined>();
    for (const r of [
      await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro }),
      await call(s.baseUrl, 'GET', '/flows'),
      await call(s.webhookHost, 'GET', '/x'),
    ]) {
      expect(header(r, 'x-request-id')).toMatch(/^req_/);
      ids.add(header(r, 'x-request-id'));
    }
    expect(ids.size).toBe(3);
  });

  it('tells onRequest about every request with its traceparent and status', async () => {
    const seen: Array<{ path: string; status: number; traceparent: string | undefined }> = [];
    const s = await start({ latency: 'none', onRequest: (i) => seen.push({ path: i.path, status: i.status, traceparent: i.traceparent }) });
    const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro, headers: { traceparent: tp } });
    await call(s.baseUrl, 'GET', '/flows');
    expect(seen).toEqual([
      { path: '/v1/flows', status: 200, traceparent: tp },
      { path: '/v1/flows', status: 401, traceparent: undefined },
    ]);
    expect(s.stats().byRoute.listFlows).toEqual({ 200: 1, 401: 1 });
  });
});
