import { afterEach, describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/core/clock.js';
import { call, closeAll, header, ms, start } from './helpers.js';

afterEach(closeAll);

const WALL = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('rate limiting', () => {
  it('accepts exactly N per window, answers the N+1st with 429 and recovers when the window ends', async () => {
    const clock = createFakeClock({ wallStartMs: WALL });
    const s = await start({ clock, latency: 'none' });
    const remaining: number[] = [];
    for (let i = 0; i < 100; i++) {
      const r = await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.free });
      expect(r.status).toBe(200);
      expect(header(r, 'x-ratelimit-limit')).toBe('100');
      remaining.push(Number(header(r, 'x-ratelimit-remaining')));
    }
    expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => 99 - i));
    const over = await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.free });
    expect(over.status).toBe(429);
    expect(over.json.error.code).toBe('RATE_LIMITED');
    expect(over.json.request_id).toBe(header(over, 'x-request-id'));
    expect(header(over, 'x-ratelimit-limit')).toBe('100');
    expect(header(over, 'x-ratelimit-remaining')).toBe('0');
    expect(header(over, 'x-ratelimit-reset')).toBe('60');
    expect(header(over, 'retry-after')).toBe('60');

    clock.advance(ms(30_500));
    const later = await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.free });
    expect(later.status).toBe(429);
    expect(header(later, 'x-ratelimit-reset')).toBe('30');

    clock.advance(ms(29_500));
    const next = await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.free });
    expect(next.status).toBe(200);
    expect(header(next, 'x-ratelimit-remaining')).toBe('99');
    expect(header(next, 'x-ratelimit-reset')).toBe('60');
    expect(s.stats().rateLimited).toBe(2);
  });

  it('counts every authenticated /v1 request, errors included, per token', async () => {
    const clock = createFakeClock();
    const s = await start({ clock, latency: 'none', rateLimit: { windowMs: 1000 }, tokens: { t1: { account: 'a', tier: 'free' }, t2: { account: 'a', tier: 'free' } } });
    // 100/min scaled to a 1 s window is 2 requests.
    expect((await call(s.baseUrl, 'GET', '/flows/flow_missing', { token: 't1' })).status).toBe(404);
    expect((await call(s.baseUrl, 'GET', '/nowhere', { token: 't1' })).status).toBe(404);
    expect((await call(s.baseUrl, 'GET', '/flows', { token: 't1' })).status).toBe(429);
    expect((await call(s.baseUrl, 'GET', '/flows', { token: 't2' })).status).toBe(200);
    expect((await call(s.baseUrl, 'GET', '/flows')).status).toBe(401);
  });

  it('sends Reset as epoch seconds when switched', async () => {
    const clock = createFakeClock({ wallStartMs: WALL });
    const s = await start({ clock, latency: 'none', rateLimit: { reset: 'epoch-seconds' } });
    clock.advance(ms(250));
    const r = await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro });
    expect(header(r, 'x-ratelimit-reset')).toBe(String(Math.ceil((WALL + 250 + 60_000) / 1000)));
    clock.advance(ms(10_000));
    const r2 = await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro });
    expect(header(r2, 'x-ratelimit-reset')).toBe(header(r, 'x-ratelimit-reset'));
  });

  it('puts the headers on unauthenticated and trigger responses without counting them', async () => {
    const s = await start({ latency: 'none' });
    const unauth = await call(s.baseUrl, 'GET', '/flows');
    expect(header(unauth, 'x-ratelimit-limit')).toBe('100');
    expect(header(unauth, 'x-ratelimit-remaining')).toBe('100');
    expect(header(unauth, 'x-ratelimit-reset')).toBe('60');
    const trig = await call(s.webhookHost, 'POST', '/api/v1/webhook/flow_missing', { body: {} });
    expect(trig.status).toBe(404);
    expect(header(trig, 'x-ratelimit-remaining')).toBe('100');
  });

  it('leaves the headers out when headers: false', async () => {
    const s = await start({ latency: 'none', rateLimit: { headers: false } });
    const r = await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro });
    expect(r.status).toBe(200);
    expect(Object.keys(r.headers).filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);
  });

  it('gives the enterprise token its custom limit', async () => {
    const s = await start({ latency: 'none' });
    const r = await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.enterprise });
    expect(header(r, 'x-ratelimit-limit')).toBe('100000');
  });
});
