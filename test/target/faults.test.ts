import { request } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFakeClock } from '../../src/core/clock.js';
import { ConfigError } from '../../src/core/errors.js';
import type { ReferenceService } from '../../src/target/index.js';
import { barrier, call, closeAll, header, ms, openStream, start, untilPending } from './helpers.js';

afterEach(closeAll);

async function flowOf(s: ReferenceService): Promise<string> {
  return (await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro })).json.flows[0].id as string;
}

const FIXED = { ttftMs: 100, itlMs: 20, jitter: 0, runOverheadMs: 0, tokens: { min: 6, max: 6 } };

describe('faults', () => {
  it('adds latency to one endpoint, on the clock', async () => {
    const clock = createFakeClock();
    const s = await start({ clock, latency: 'none', faults: { latencyMs: { getFlow: '500ms' } } });
    const flow = await flowOf(s);
    let answered = false;
    const p = call(s.baseUrl, 'GET', `/flows/${flow}`, { token: s.tokens.pro }).then((r) => {
      answered = true;
      return r;
    });
    await untilPending(clock);
    clock.advance(ms(499));
    await barrier(s);
    expect(answered).toBe(false);
    clock.advance(ms(1));
    expect((await p).status).toBe(200);
    expect(s.stats().faults.delayed).toBe(1);
  });

  it('injects 500 INTERNAL_ERROR or 503 SERVICE_UNAVAILABLE at a rate, per endpoint', async () => {
    const s = await start({ latency: 'none' });
    s.faults.set({ errors: { listFlows: { rate: 1, status: 503 }, '*': { rate: 1 } } });
    const list = await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro });
    expect(list.status).toBe(503);
    expect(list.json.error.code).toBe('SERVICE_UNAVAILABLE');
    const usage = await call(s.baseUrl, 'GET', '/analytics/usage', { token: s.tokens.pro });
    expect(usage.status).toBe(500);
    expect(usage.json.error.code).toBe('INTERNAL_ERROR');
    s.faults.set({ errors: { listFlows: { rate: 0.5 }, '*': null } });
    let errors = 0;
    for (let i = 0; i < 200; i++) if ((await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.enterprise })).status === 500) errors++;
    expect(errors).toBeGreaterThan(60);
    expect(errors).toBeLessThan(140);
  });

  it('answers 503 everywhere during an outage, until cleared or for a duration', async () => {
    const clock = createFakeClock();
    const s = await start({ clock, latency: 'none' });
    const flow = await flowOf(s);
    s.faults.set({ outage: true });
    for (const [base, method, path] of [
      [s.baseUrl, 'GET', '/flows'],
      [s.baseUrl, 'POST', `/flows/${flow}/run`],
      [s.webhookHost, 'POST', `/api/v1/webhook/${flow}`],
    ] as const) {
      const r = await call(base, method, path, { token: s.tokens.pro, body: { input: 'x' } });
      expect(r.status).toBe(503);
      expect(r.json.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(header(r, 'x-ratelimit-limit')).toBeDefined();
    }
    s.faults.clear();
    expect((await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro })).status).toBe(200);
    s.faults.set({ outage: { durationMs: '5s' } });
    const during = await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro });
    expect(during.status).toBe(503);
    expect(header(during, 'retry-after')).toBe('5');
    expect(s.faults.get().outage).toEqual({ durationMs: 5000 });
    clock.advance(ms(5000));
    expect((await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro })).status).toBe(200);
    expect(s.faults.get().outage).toBeUndefined();
  });

  it('stalls a stream after k tokens', async () => {
    const clock = createFakeClock();
    const s = await start({ clock, latency: FIXED, faults: { streamStall: { afterTokens: 2, pauseMs: 1000 } } });
    const flow = await flowOf(s);
    const st = await openStream(s.baseUrl, `/flows/${flow}/stream`, s.tokens.pro, { input: 'x' });
    const tokens = () => st.events().filter((e) => e.type === 'token').length;
    clock.advance(ms(120));
    await vi.waitFor(() => expect(tokens()).toBe(2));
    clock.advance(ms(1019));
    await barrier(s);
    expect(tokens()).toBe(2);
    clock.advance(ms(1));
    await vi.waitFor(() => expect(tokens()).toBe(3));
    clock.advance(ms(100));
    await st.done;
    expect(st.events().at(-1).type).toBe('end');
    expect(s.stats().streams.stalled).toBe(1);
  });

  it('resets connections at a rate', async () => {
    const s = await start({ latency: 'none', faults: { connectionResetRate: 1 } });
    await expect(request(`${s.baseUrl}/flows`, { headers: { authorization: `Bearer ${s.tokens.pro}` } })).rejects.toThrow();
    expect(s.stats().faults.connectionResets).toBe(1);
    expect(s.stats().byRoute.listFlows).toEqual({ 0: 1 });
  });

  it('garbles JSON bodies at a rate', async () => {
    const s = await start({ latency: 'none', faults: { malformedJsonRate: 1 } });
    const r = await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro });
    expect(r.status).toBe(200);
    expect(header(r, 'content-type')).toContain('application/json');
    expect(r.text.length).toBeGreaterThan(0);
    expect(() => JSON.parse(r.text)).toThrow();
    expect(s.stats().faults.malformedBodies).toBe(1);
  });

  it('truncates streams without an end event at a rate', async () => {
    const s = await start({ latency: { ...FIXED, ttftMs: 0, itlMs: 0 }, faults: { truncatedStreamRate: 1 } });
    const flow = await flowOf(s);
    const st = await openStream(s.baseUrl, `/flows/${flow}/stream`, s.tokens.pro, { input: 'x' });
    await st.done;
    const types = st.events().map((e) => e.type);
    expect(types).toEqual(['start', 'token', 'token', 'token']);
    expect(s.stats().streams.truncated).toBe(1);
  });

  it('throttles prematurely while requests remain', async () => {
    const s = await start({ latency: 'none', faults: { premature429: { rate: 1, aboveRemaining: 500 } } });
    const r = await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro });
    expect(r.status).toBe(429);
    expect(r.json.error.code).toBe('RATE_LIMITED');
    expect(Number(header(r, 'x-ratelimit-remaining'))).toBe(1000);
    const ok = await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.free });
    expect(ok.status).toBe(200);
    expect(s.stats().faults.premature429).toBe(1);
  });

  it('leaves out the rate-limit headers at a rate', async () => {
    const s = await start({ latency: 'none', faults: { missingRateLimitHeadersRate: 1 } });
    const r = await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro });
    expect(r.status).toBe(200);
    expect(header(r, 'x-request-id')).toBeDefined();
    expect(Object.keys(r.headers).filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);
  });

  it('is driven over /admin/faults with the admin token', async () => {
    const s = await start({ latency: 'none', adminToken: 'adm_test_token' });
    const admin = { token: 'adm_test_token' };
    expect((await call(s.webhookHost, 'GET', '/admin/faults')).status).toBe(401);
    expect((await call(s.webhookHost, 'GET', '/admin/faults', { token: s.tokens.pro })).status).toBe(401);
    const put = await call(s.webhookHost, 'PUT', '/admin/faults', { ...admin, body: { errors: { run: { rate: 0.25, status: 503 } }, latencyMs: { '*': 5 } } });
    expect(put.status).toBe(200);
    expect(put.json).toEqual({ errors: { run: { rate: 0.25, status: 503 } }, latencyMs: { '*': 5 } });
    expect((await call(s.webhookHost, 'GET', '/admin/faults', admin)).json).toEqual(s.faults.get());
    const bad = await call(s.webhookHost, 'PUT', '/admin/faults', { ...admin, body: { errors: { run: { rate: 2 } }, bogus: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['bogus', 'errors.run.rate']);
    expect((await call(s.webhookHost, 'DELETE', '/admin/faults', admin)).json).toEqual({});
    expect(s.faults.get()).toEqual({});
    expect(() => s.faults.set({ connectionResetRate: 3 })).toThrow(ConfigError);
  });
});
