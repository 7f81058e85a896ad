import { describe, expect, it } from 'vitest';
import { parseRateLimitHeaders, type Client } from '../../src/api/index.js';
import * as fx from './fixtures.js';
import { sendJson, serveEach, type TestServer } from './test-server.js';

describe('parseRateLimitHeaders', () => {
  it('parses the three integer headers and keeps the raw strings', () => {
    expect(parseRateLimitHeaders({ 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '998', 'x-ratelimit-reset': '1767225600' })).toEqual({
      limit: 1000,
      remaining: 998,
      reset: 1767225600,
      raw: { limit: '1000', remaining: '998', reset: '1767225600', retryAfter: undefined },
    });
  });

  it('returns undefined when none of the four headers is present', () => {
    expect(parseRateLimitHeaders({ 'content-type': 'application/json' })).toBeUndefined();
  });

  it('keeps Retry-After alone', () => {
    const info = parseRateLimitHeaders({ 'retry-after': '30' });
    expect(info).toEqual({ limit: undefined, remaining: undefined, reset: undefined, raw: { limit: undefined, remaining: undefined, reset: undefined, retryAfter: '30' } });
  });

  it('leaves values that are not plain integers undefined but keeps their raw text', () => {
    const info = parseRateLimitHeaders({ 'x-ratelimit-limit': '10.5', 'x-ratelimit-remaining': '1e3', 'x-ratelimit-reset': 'soon' });
    expect(info?.limit).toBeUndefined();
    expect(info?.remaining).toBeUndefined();
    expect(info?.reset).toBeUndefined();
    expect(info?.raw).toEqual({ limit: '10.5', remaining: '1e3', reset: 'soon', retryAfter: undefined });
  });

  it('reads an integer between spaces, and nothing from a bare sign, a plus or an empty value', () => {
    const read = (v: string): number | undefined => parseRateLimitHeaders({ 'x-ratelimit-limit': v })?.limit;
    expect([' 42 ', '\t7', '-', '+5', '', ' ', '4 2', '0x10'].map(read)).toEqual([42, 7, undefined, undefined, undefined, undefined, undefined, undefined]);
  });

  it('accepts a negative integer and rejects one beyond the safe range', () => {
    const info = parseRateLimitHeaders({ 'x-ratelimit-remaining': '-1', 'x-ratelimit-reset': '99999999999999999999' });
    expect(info?.remaining).toBe(-1);
    expect(info?.reset).toBeUndefined();
  });

  it('treats a repeated header as not an integer, keeping both values', () => {
    const info = parseRateLimitHeaders({ 'x-ratelimit-limit': ['100', '200'] });
    expect(info?.limit).toBeUndefined();
    expect(info?.raw.limit).toBe('100, 200');
  });
});

describe('rate-limit headers on responses', () => {
  let server: TestServer;
  let client: Client;
  serveEach((s, c) => {
    server = s;
    client = c;
  });

  it('are parsed on a success', async () => {
    server.handler = (_req, res) =>
      sendJson(res, 200, fx.runStatus, { 'X-RateLimit-Limit': '1000', 'X-RateLimit-Remaining': '999', 'X-RateLimit-Reset': '60' });
    const r = await client.getRun('r');
    expect(r.meta.rateLimit).toMatchObject({ limit: 1000, remaining: 999, reset: 60 });
  });

  it('are parsed on an error, with Retry-After', async () => {
    server.handler = (_req, res) =>
      sendJson(res, 429, fx.errorBody('RATE_LIMITED'), { 'X-RateLimit-Limit': '100', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': 'x', 'Retry-After': '12' });
    const r = await client.getRun('r');
    expect(r.ok).toBe(false);
    expect(r.meta.rateLimit).toEqual({ limit: 100, remaining: 0, reset: undefined, raw: { limit: '100', remaining: '0', reset: 'x', retryAfter: '12' } });
  });

  it('are undefined when the response has none', async () => {
    server.handler = (_req, res) => sendJson(res, 200, fx.runStatus);
    const r = await client.getRun('r');
    expect(r.meta.status).toBe(200);
    expect(r.meta.rateLimit).toBeUndefined();
  });
});

describe('retryWaitSeconds, the one reading of Retry-After and Reset for retries', () => {
  it('takes Retry-After seconds, else a small Reset as a delta, else nothing', async () => {
    const { parseRateLimitHeaders, retryWaitSeconds } = await import('../../src/api/rate-limit-headers.js');
    expect(retryWaitSeconds(parseRateLimitHeaders({ 'retry-after': ' 7 ' }))).toBe(7);
    expect(retryWaitSeconds(parseRateLimitHeaders({ 'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT', 'x-ratelimit-reset': '12' }))).toBe(12);
    expect(retryWaitSeconds(parseRateLimitHeaders({ 'x-ratelimit-reset': '1795000000' }))).toBeUndefined();
    expect(retryWaitSeconds(parseRateLimitHeaders({ 'retry-after': '99999999999' }))).toBeUndefined();
    expect(retryWaitSeconds(parseRateLimitHeaders({ 'retry-after': '-5' }))).toBeUndefined();
    expect(retryWaitSeconds(undefined)).toBeUndefined();
  });
});
