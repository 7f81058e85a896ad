import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFakeClock } from '../../src/core/clock.js';
import { verifySignature, type ReferenceService } from '../../src/target/index.js';
import { barrier, call, closeAll, ms, start } from './helpers.js';

interface Delivery {
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

const receivers: Server[] = [];

afterEach(async () => {
  await closeAll();
  await Promise.all(receivers.splice(0).map((r) => new Promise((res) => r.close(res))));
});

/** A loopback receiver answering `status` to every delivery. */
async function receiver(status = 200): Promise<{ url: string; got: Delivery[] }> {
  const got: Delivery[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.writeHead(status).end();
    });
  });
  receivers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got };
}

async function flowOf(s: ReferenceService): Promise<string> {
  return (await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro })).json.flows[0].id as string;
}

describe('outbound notifications', () => {
  it('delivers signed flow.run.started then flow.run.completed with run data', async () => {
    const rx = await receiver();
    const secret = 'whsec_test';
    const s = await start({ latency: 'none', notifications: [{ webhook_url: rx.url, events: ['flow.run.started', 'flow.run.completed'], secret }] });
    const flow = await flowOf(s);
    const run = (await call(s.baseUrl, 'POST', `/flows/${flow}/run`, { token: s.tokens.pro, body: { input: 'x' } })).json;
    await vi.waitFor(() => expect(rx.got).toHaveLength(2));
    const events = rx.got.map((d) => JSON.parse(d.body));
    expect(events.map((e) => e.event)).toEqual(['flow.run.started', 'flow.run.completed']);
    expect(events[1].data).toMatchObject({ run_id: run.id, flow_id: flow, status: 'completed', output: run.output, usage: { total_tokens: run.usage.total_tokens } });
    expect(new Date(events[1].timestamp).toISOString()).toBe(events[1].timestamp);
    for (const d of rx.got) {
      expect(verifySignature(secret, d.headers['x-flowgauge-signature'], d.body)).toEqual({ ok: true, t: expect.any(Number) });
      expect(verifySignature('wrong', d.headers['x-flowgauge-signature'], d.body)).toEqual({ ok: false, reason: 'mismatch' });
      expect(d.headers['x-flowgauge-event']).toBe(JSON.parse(d.body).event);
    }
  });

  it('uses flow.completed / flow.failed with the other name set and sends session.created', async () => {
    const rx = await receiver();
    const s = await start({ latency: 'none', eventNames: 'flow', failureRate: 0, notifications: [{ webhook_url: rx.url, events: ['*'], secret: 's' }] });
    const flow = await flowOf(s);
    await call(s.baseUrl, 'POST', '/sessions', { token: s.tokens.pro, body: { flow_id: flow, user_id: 'u' } });
    await call(s.baseUrl, 'POST', `/flows/${flow}/run`, { token: s.tokens.pro, body: { input: 'x' } });
    await vi.waitFor(() => expect(rx.got).toHaveLength(2));
    const events = rx.got.map((d) => JSON.parse(d.body));
    expect(events.map((e) => e.event).sort()).toEqual(['flow.completed', 'session.created']);
    expect(events.find((e) => e.event === 'session.created').data).toMatchObject({ flow_id: flow, user_id: 'u', status: 'active' });
  });

  it('delivers only subscribed events', async () => {
    const rx = await receiver();
    const s = await start({ latency: 'none', failureRate: 1, notifications: [{ webhook_url: rx.url, events: ['flow.run.failed'], secret: 's' }] });
    const flow = await flowOf(s);
    await call(s.baseUrl, 'POST', `/flows/${flow}/run`, { token: s.tokens.pro, body: { input: 'x' } });
    await call(s.baseUrl, 'POST', '/sessions', { token: s.tokens.pro, body: { flow_id: flow } });
    await vi.waitFor(() => expect(rx.got).toHaveLength(1));
    await barrier(s);
    const e = JSON.parse(rx.got[0]?.body ?? '{}');
    expect(e.event).toBe('flow.run.failed');
    expect(e.data.error).toEqual({ code: expect.any(String), message: expect.any(String) });
  });

  it('retries a failing receiver with exponential backoff on the clock, then gives up', async () => {
    const rx = await receiver(500);
    const clock = createFakeClock();
    const s = await start({
      clock,
      latency: 'none',
      delivery: { attempts: 3, backoffMs: 1000 },
      notifications: [{ webhook_url: rx.url, events: ['flow.run.completed'], secret: 's' }],
    });
    const flow = await flowOf(s);
    await call(s.baseUrl, 'POST', `/flows/${flow}/run`, { token: s.tokens.pro, body: { input: 'x' } });
    await vi.waitFor(() => expect(rx.got).toHaveLength(1));
    await vi.waitFor(() => expect(clock.pending()).toBe(1));
    clock.advance(ms(999));
    await barrier(s);
    expect(rx.got).toHaveLength(1);
    clock.advance(ms(1));
    await vi.waitFor(() => expect(rx.got).toHaveLength(2));
    await vi.waitFor(() => expect(clock.pending()).toBe(1));
    clock.advance(ms(1999));
    await barrier(s);
    expect(rx.got).toHaveLength(2);
    clock.advance(ms(1));
    await vi.waitFor(() => expect(rx.got).toHaveLength(3));
    await vi.waitFor(() => expect(s.stats().deliveries).toMatchObject({ attempts: 3, failed: 1, sent: 0, retries: 2 }));
    expect(rx.got.map((d) => d.headers['x-flowgauge-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set(rx.got.map((d) => d.headers['x-flowgauge-delivery'])).size).toBe(1);
    expect(new Set(rx.got.map((d) => d.body)).size).toBe(1);
  });
});
