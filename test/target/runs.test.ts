import { afterEach, describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/core/clock.js';
import type { ReferenceService } from '../../src/target/index.js';
import { call, closeAll, header, ms, openStream, start, untilPending } from './helpers.js';

afterEach(closeAll);

async function firstFlow(s: ReferenceService, token: string, status = 'published'): Promise<string> {
  return (await call(s.baseUrl, 'GET', `/flows?status=${status}`, { token })).json.flows[0].id as string;
}

describe('POST /flows/{id}/run', () => {
  it('answers a completed run with output, completed_at and consistent usage', async () => {
    const s = await start({ latency: 'none' });
    const id = await firstFlow(s, s.tokens.pro);
    const r = await call(s.baseUrl, 'POST', `/flows/${id}/run`, { token: s.tokens.pro, body: { input: 'summarise these four words' } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ flow_id: id, status: 'completed', error: null, progress: 100 });
    expect(r.json.id).toMatch(/^run_/);
    expect(r.json.output.length).toBeGreaterThan(0);
    expect(Date.parse(r.json.completed_at)).toBeGreaterThanOrEqual(Date.parse(r.json.created_at));
    const u = r.json.usage;
    expect(u.prompt_tokens).toBe(4);
    expect(u.completion_tokens).toBeGreaterThanOrEqual(8);
    expect(u.completion_tokens).toBeLessThanOrEqual(32);
    expect(u.total_tokens).toBe(u.prompt_tokens + u.completion_tokens);
  });

  it('generates the same output for the same input', async () => {
    const s = await start({ latency: { ttftMs: 0, itlMs: 0, runOverheadMs: 0, tokens: { min: 12, max: 12 } } });
    const id = await firstFlow(s, s.tokens.pro);
    const a = await call(s.baseUrl, 'POST', `/flows/${id}/run`, { token: s.tokens.pro, body: { input: 'same' } });
    const b = await call(s.baseUrl, 'POST', `/flows/${id}/run`, { token: s.tokens.pro, body: { input: 'same' } });
    const c = await call(s.baseUrl, 'POST', `/flows/${id}/run`, { token: s.tokens.pro, body: { input: 'different' } });
    expect(a.json.output).toBe(b.json.output);
    expect(a.json.id).not.toBe(b.json.id);
    expect(c.json.output).not.toBe(a.json.output);
  });

  it('waits for the run to finish on the clock in sync mode', async () => {
    const clock = createFakeClock();
    const s = await start({ clock, latency: { ttftMs: 100, itlMs: 10, jitter: 0, runOverheadMs: 5, tokens: { min: 10, max: 10 } } });
    const id = await firstFlow(s, s.tokens.pro);
    let answered = false;
    const p = call(s.baseUrl, 'POST', `/flows/${id}/run`, { token: s.tokens.pro, body: { input: 'hi' } }).then((r) => {
      answered = true;
      return r;
    });
    await untilPending(clock);
    clock.advance(ms(194));
    expect(answered).toBe(false);
    clock.advance(ms(1));
    const r = await p;
    expect(r.json.status).toBe('completed');
    expect(Date.parse(r.json.completed_at) - Date.parse(r.json.created_at)).toBe(195);
  });

  it.each([
    [{}, 'input'],
    [{ input: 42 }, 'input'],
    [{ input: 'x', stream: 'yes' }, 'stream'],
    [{ input: 'x', variables: [1] }, 'variables'],
    [{ input: 'x', session_id: 7 }, 'session_id'],
  ])('answers 400 INVALID_REQUEST for body %j with details.field %s', async (body, field) => {
    const s = await start({ latency: 'none' });
    const id = await firstFlow(s, s.tokens.pro);
    const r = await call(s.baseUrl, 'POST', `/flows/${id}/run`, { token: s.tokens.pro, body });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field } });
  });

  it('answers 400 for a body that is not JSON or not an object', async () => {
    const s = await start({ latency: 'none' });
    const id = await firstFlow(s, s.tokens.pro);
    for (const rawBody of ['{"input":', '[1,2]', '']) {
      const r = await call(s.baseUrl, 'POST', `/flows/${id}/run`, { token: s.tokens.pro, rawBody });
      expect(r.status).toBe(400);
      expect(r.json.error.details.field).toBe('body');
    }
  });

  it('refuses to run a draft flow with 400 INVALID_REQUEST on flow_id', async () => {
    const s = await start({ latency: 'none' });
    const draft = await firstFlow(s, s.tokens.pro, 'draft');
    const r = await call(s.baseUrl, 'POST', `/flows/${draft}/run`, { token: s.tokens.pro, body: { input: 'x' } });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'flow_id' } });
  });

  it('answers 404 for an unknown flow and 403 for another account’s flow', async () => {
    const s = await start({ latency: 'none' });
    const other = await firstFlow(s, s.tokens.pro);
    expect((await call(s.baseUrl, 'POST', '/flows/flow_missing/run', { token: s.tokens.free, body: { input: 'x' } })).status).toBe(404);
    const r = await call(s.baseUrl, 'POST', `/flows/${other}/run`, { token: s.tokens.free, body: { input: 'x' } });
    expect(r.status).toBe(403);
    expect(r.json.error.code).toBe('FORBIDDEN');
  });

  it('ends runs failed with an { code, message } error at failureRate 1', async () => {
    const s = await start({ latency: 'none', failureRate: 1 });
    const id = await firstFlow(s, s.tokens.pro);
    const r = await call(s.baseUrl, 'POST', `/flows/${id}/run`, { token: s.tokens.pro, body: { input: 'x' } });
    expect(r.status).toBe(200);
    expect(r.json.status).toBe('failed');
    expect(r.json.error).toEqual({ code: expect.any(String), message: expect.any(String) });
    expect(r.json.usage.completion_tokens).toBeLessThan(32);
    expect(s.stats().runs).toMatchObject({ started: 1, failed: 1, completed: 0 });
  });

  it('answers a stream when the body says stream: true', async () => {
    const s = await start({ latency: 'none' });
    const id = await firstFlow(s, s.tokens.pro);
    const st = await openStream(s.baseUrl, `/flows/${id}/run`, s.tokens.pro, { input: 'x', stream: true });
    await st.done;
    expect(header(st, 'content-type')).toContain('text/event-stream');
    const types = st.events().map((e) => e.type);
    expect(types[0]).toBe('start');
    expect(types.at(-1)).toBe('end');
  });
});

describe('GET /runs/{id}', () => {
  it('reads a finished run', async () => {
    const s = await start({ latency: 'none' });
    const id = await firstFlow(s, s.tokens.pro);
    const run = (await call(s.baseUrl, 'POST', `/flows/${id}/run`, { token: s.tokens.pro, body: { input: 'x' } })).json;
    const r = await call(s.baseUrl, 'GET', `/runs/${run.id}`, { token: s.tokens.enterprise });
    expect(r.status).toBe(200);
    expect(r.json).toEqual(run);
  });

  it('answers 404 for an unknown run and 403 for another account’s run', async () => {
    const s = await start({ latency: 'none' });
    const id = await firstFlow(s, s.tokens.pro);
    const run = (await call(s.baseUrl, 'POST', `/flows/${id}/run`, { token: s.tokens.pro, body: { input: 'x' } })).json;
    expect((await call(s.baseUrl, 'GET', '/runs/run_missing', { token: s.tokens.pro })).json.error.code).toBe('NOT_FOUND');
    const r = await call(s.baseUrl, 'GET', `/runs/${run.id}`, { token: s.tokens.free });
    expect(r.status).toBe(403);
    expect(r.json.error.code).toBe('FORBIDDEN');
  });

  it('shows progress 0–100 and partial output of an async run as the clock moves', async () => {
    const clock = createFakeClock();
    const s = await start({ clock, runMode: 'async', latency: { ttftMs: 100, itlMs: 100, jitter: 0, runOverheadMs: 0, tokens: { min: 10, max: 10 } } });
    const id = await firstFlow(s, s.tokens.pro);
    const created = await call(s.baseUrl, 'POST', `/flows/${id}/run`, { token: s.tokens.pro, body: { input: 'x' } });
    expect(created.json).toMatchObject({ status: 'running', progress: 0, output: '', completed_at: null });
    const read = async () => (await call(s.baseUrl, 'GET', `/runs/${created.json.id}`, { token: s.tokens.pro })).json;
    const seen: Array<[number, number]> = [];
    let last = '';
    for (let t = 0; t < 10; t++) {
      clock.advance(ms(100));
      const r = await read();
      seen.push([r.progress, r.usage.completion_tokens]);
      expect(r.output.startsWith(last)).toBe(true);
      last = r.output;
    }
    expect(seen.slice(0, 9)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9].map((k) => [k * 10, k]));
    const done = await read();
    expect(done).toMatchObject({ status: 'completed', progress: 100, error: null });
    expect(done.output).toBe(last);
    expect(typeof done.completed_at).toBe('string');
  });
});
