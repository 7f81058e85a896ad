import { afterEach, describe, expect, it } from 'vitest';
import { createFakeClock, type FakeClock } from '../../src/core/clock.js';
import type { ReferenceService } from '../../src/target/index.js';
import { call, closeAll, ms, start, untilPending } from './helpers.js';

afterEach(closeAll);

const WALL = Date.UTC(2026, 0, 1, 10, 0, 0); // a Thursday
const LATENCY = { ttftMs: 100, itlMs: 10, jitter: 0, runOverheadMs: 0, tokens: { min: 10, max: 10 } };

async function runOnce(s: ReferenceService, clock: FakeClock, flow: string, input: string) {
  const p = call(s.baseUrl, 'POST', `/flows/${flow}/run`, { token: s.tokens.pro, body: { input } });
  await untilPending(clock);
  clock.advance(ms(190));
  return (await p).json;
}

async function setup() {
  const clock = createFakeClock({ wallStartMs: WALL });
  const s = await start({ clock, latency: LATENCY, pricePer1kTokens: 0.5 });
  const flows = (await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro })).json.flows.map((f: { id: string }) => f.id);
  const runs = [];
  runs.push(await runOnce(s, clock, flows[0], 'one two'));
  runs.push(await runOnce(s, clock, flows[0], 'three'));
  clock.advance(ms(3_600_000));
  runs.push(await runOnce(s, clock, flows[1], 'four five six'));
  return { s, clock, flows, runs };
}

describe('GET /analytics/usage', () => {
  it('sums the runs served to the account, with cost and avg_response_time in ms', async () => {
    const { s, runs } = await setup();
    const r = await call(s.baseUrl, 'GET', '/analytics/usage?start_date=2026-01-01&end_date=2026-01-01', { token: s.tokens.pro });
    expect(r.status).toBe(200);
    const tokens = runs.reduce((n, x) => n + x.usage.total_tokens, 0);
    expect(r.json.period).toEqual({ start: '2026-01-01T00:00:00.000Z', end: '2026-01-02T00:00:00.000Z' });
    expect(r.json.metrics).toEqual({ total_runs: 3, successful_runs: 3, failed_runs: 0, total_tokens: tokens, avg_response_time: 190, cost: (tokens / 1000) * 0.5 });
    expect(r.json.daily_breakdown).toEqual([{ date: '2026-01-01', runs: 3, tokens, cost: (tokens / 1000) * 0.5 }]);
  });

  it('breaks down by hour, week and month', async () => {
    const { s, runs } = await setup();
    const q = (g: string) => call(s.baseUrl, 'GET', `/analytics/usage?start_date=2026-01-01&end_date=2026-01-01&granularity=${g}`, { token: s.tokens.pro });
    const hours = (await q('hour')).json.daily_breakdown;
    expect(hours).toHaveLength(24);
    expect(hours[10]).toMatchObject({ date: '2026-01-01T10:00:00Z', runs: 2, tokens: runs[0].usage.total_tokens + runs[1].usage.total_tokens });
    expect(hours[11]).toMatchObject({ date: '2026-01-01T11:00:00Z', runs: 1 });
    expect(hours.reduce((n: number, b: { runs: number }) => n + b.runs, 0)).toBe(3);
    expect((await q('week')).json.daily_breakdown).toEqual([expect.objectContaining({ date: '2025-12-29', runs: 3 })]);
    expect((await q('month')).json.daily_breakdown).toEqual([expect.objectContaining({ date: '2026-01-01', runs: 3 })]);
  });

  it('filters by flow_id and counts failed runs', async () => {
    const { s, flows } = await setup();
    const r = await call(s.baseUrl, 'GET', `/analytics/usage?flow_id=${flows[1]}`, { token: s.tokens.pro });
    expect(r.json.metrics.total_runs).toBe(1);
    const failing = await start({ latency: 'none', failureRate: 1 });
    const f = (await call(failing.baseUrl, 'GET', '/flows', { token: failing.tokens.pro })).json.flows[0].id;
    await call(failing.baseUrl, 'POST', `/flows/${f}/run`, { token: failing.tokens.pro, body: { input: 'x' } });
    const u = await call(failing.baseUrl, 'GET', '/analytics/usage', { token: failing.tokens.pro });
    expect(u.json.metrics).toMatchObject({ total_runs: 1, successful_runs: 0, failed_runs: 1 });
  });

  it('defaults to the last 30 days by day, and shows nothing of another account', async () => {
    const { s } = await setup();
    const mine = await call(s.baseUrl, 'GET', '/analytics/usage', { token: s.tokens.pro });
    expect(mine.json.daily_breakdown).toHaveLength(31);
    expect(mine.json.metrics.total_runs).toBe(3);
    const theirs = await call(s.baseUrl, 'GET', '/analytics/usage', { token: s.tokens.free });
    expect(theirs.json.metrics).toMatchObject({ total_runs: 0, total_tokens: 0, avg_response_time: 0, cost: 0 });
  });

  it.each([
    ['granularity=minute', 'granularity'],
    ['start_date=yesterday', 'start_date'],
    ['end_date=2026-02-30', 'end_date'],
    ['start_date=2026-02-01&end_date=2026-01-01', 'start_date'],
    ['start_date=2000-01-01&end_date=2026-01-01&granularity=hour', 'granularity'],
  ])('answers 400 for %s', async (query, field) => {
    const s = await start({ latency: 'none' });
    const r = await call(s.baseUrl, 'GET', `/analytics/usage?${query}`, { token: s.tokens.pro });
    expect(r.status).toBe(400);
    expect(r.json.error.details.field).toBe(field);
  });

  it('accepts date-times with offsets', async () => {
    const s = await start({ latency: 'none' });
    const r = await call(s.baseUrl, 'GET', '/analytics/usage?start_date=2026-01-01T00:00:00%2B02:00&end_date=2026-01-01T12:00:00Z', { token: s.tokens.pro });
    expect(r.json.period).toEqual({ start: '2025-12-31T22:00:00.000Z', end: '2026-01-01T12:00:00.000Z' });
  });

  it('answers 404/403 for a flow_id filter that is unknown or not the caller’s', async () => {
    const s = await start({ latency: 'none' });
    const other = (await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.free })).json.flows[0].id;
    expect((await call(s.baseUrl, 'GET', '/analytics/usage?flow_id=flow_x', { token: s.tokens.pro })).status).toBe(404);
    expect((await call(s.baseUrl, 'GET', `/analytics/usage?flow_id=${other}`, { token: s.tokens.pro })).status).toBe(403);
  });
});
