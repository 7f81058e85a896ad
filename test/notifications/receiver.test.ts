/**
 * The webhook receiver against hand-made deliveries: every kind of bad delivery is refused
 * with its status and counted, none crashes the server, and an accepted one is handed on.
 */
import { Readable } from 'node:stream';
import { inspect } from 'node:util';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../../src/export/webhook-receiver.js';
import { signPayload } from '../../src/core/index.js';

const SECRET = 'whsec_receiver_test_0123456789';
let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

const nowS = (): number => Math.floor(Date.now() / 1000);

function payload(runId = 'run_1', event = 'flow.run.completed'): string {
  return JSON.stringify({
    event,
    data: { run_id: runId, flow_id: 'flow_a', status: 'completed', output: 'hi', usage: { total_tokens: 12 } },
    timestamp: new Date().toISOString(),
  });
}

async function post(url: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<number> {
  const res = await request(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  await res.body.dump();
  return res.statusCode;
}

async function start(onDelivery?: (d: ReceivedDelivery) => void, maxBodyBytes?: number): Promise<WebhookReceiver> {
  receiver = await startWebhookReceiver({
    port: 0,
    secret: SECRET,
    ...(onDelivery !== undefined ? { onDelivery } : {}),
    ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}),
  });
  return receiver;
}

describe('webhook receiver', () => {
  it('accepts a correctly signed delivery and hands on its fields', async () => {
    const got: ReceivedDelivery[] = [];
    const r = await start((d) => got.push(d));
    const body = payload('run_abc');
    const status = await post(r.url, body, {
      'x-flowgauge-signature': signPayload(SECRET, nowS(), body),
      'x-flowgauge-delivery': 'dlv_1',
      'x-flowgauge-attempt': '2',
    });
    expect(status).toBe(204);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ event: 'flow.run.completed', runId: 'run_abc', flowId: 'flow_a', status: 'completed', totalTokens: 12, deliveryId: 'dlv_1', attempt: 2 });
    expect(r.stats()).toMatchObject({ requests: 1, accepted: 1 });
  });

  it('refuses a wrong, a missing and a malformed signature, and an expired timestamp', async () => {
    const got: ReceivedDelivery[] = [];
    const r = await start((d) => got.push(d));
    const body = payload();
    expect(await post(r.url, body, { 'x-flowgauge-signature': signPayload('another-secret', nowS(), body) })).toBe(401);
    expect(await post(r.url, body)).toBe(401);
    expect(await post(r.url, body, { 'x-flowgauge-signature': 'sha256=deadbeef' })).toBe(401);
    expect(await post(r.url, body, { 'x-flowgauge-signature': signPayload(SECRET, nowS() - 301, body) })).toBe(401);
    // The body changed after signing: the HMAC no longer matches.
    expect(await post(r.url, payload('run_other'), { 'x-flowgauge-signature': signPayload(SECRET, nowS(), body) })).toBe(401);
    const s = r.stats();
    expect(s.rejected).toMatchObject({ 'bad-signature': 2, 'missing-signature': 1, 'malformed-signature': 1, expired: 1 });
    expect(s.accepted).toBe(0);
    expect(got).toEqual([]);
  });

  it('refuses a replay of an accepted (t, signature) pair', async () => {
    const r = await start();
    const body = payload();
    const sig = signPayload(SECRET, nowS(), body);
    expect(await post(r.url, body, { 'x-flowgauge-signature': sig })).toBe(204);
    expect(await post(r.url, body, { 'x-flowgauge-signature': sig })).toBe(409);
    expect(await post(r.url, body, { 'x-flowgauge-signature': sig })).toBe(409);
    expect(r.stats()).toMatchObject({ accepted: 1, rejected: expect.objectContaining({ replay: 2 }) });
  });

  it('bounds the body: 413 for a declared or a streamed oversize body, and keeps serving', async () => {
    const got: ReceivedDelivery[] = [];
    const r = await start((d) => got.push(d), 4096);
    const big = Buffer.alloc(5000, 'x');
    expect(await post(r.url, big, { 'x-flowgauge-signature': signPayload(SECRET, nowS(), big) })).toBe(413);
    // Without a content-length (chunked), the bound is enforced while reading.
    const chunks = Readable.from([1, 2, 3, 4, 5].map(() => Buffer.alloc(1024, 'y')));
    const res = await request(r.url, { method: 'POST', body: chunks, headers: { 'x-flowgauge-signature': signPayload(SECRET, nowS(), 'y') } });
    await res.body.dump();
    expect(res.statusCode).toBe(413);
    expect(r.stats().rejected.oversize).toBe(2);
    const body = payload();
    expect(await post(r.url, body, { 'x-flowgauge-signature': signPayload(SECRET, nowS(), body) })).toBe(204);
    expect(got).toHaveLength(1);
  });

  it('refuses a signed body that is not a JSON object, other paths and other methods', async () => {
    const r = await start();
    const body = '[1,2,3]';
    expect(await post(r.url, body, { 'x-flowgauge-signature': signPayload(SECRET, nowS(), body) })).toBe(400);
    expect(await post(`${r.url}other`, payload())).toBe(404);
    const res = await request(r.url, { method: 'GET' });
    await res.body.dump();
    expect(res.statusCode).toBe(405);
    expect(r.stats().rejected).toMatchObject({ 'bad-body': 1, path: 1, method: 1 });
  });

  it('survives a callback that throws, and never shows its secret', async () => {
    const r = await start(() => {
      throw new Error('consumer bug');
    });
    const body = payload();
    expect(await post(r.url, body, { 'x-flowgauge-signature': signPayload(SECRET, nowS(), body) })).toBe(204);
    expect(r.stats().callbackErrors).toBe(1);
    expect(inspect(r, { showHidden: true, depth: 5 })).not.toContain(SECRET);
    expect(JSON.stringify(r)).not.toContain(SECRET);
  });

  it('rejects bad options with every problem named', async () => {
    await expect(startWebhookReceiver({ port: -1, secret: '', maxBodyBytes: 0 })).rejects.toThrow(/secret[\s\S]*port[\s\S]*maxBodyBytes/);
  });
});

describe('a sender that never finishes its head', () => {
  it('loses its connection at the headers timeout, not three times later', async () => {
    const { connect } = await import('node:net');
    receiver = await startWebhookReceiver({ port: 0, secret: SECRET, headersTimeoutMs: 300 });
    const url = new URL(receiver.url);
    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((r) => socket.once('connect', () => r()));
    socket.write(`POST ${url.pathname} HTTP/1.1\r\nHost: x\r\nX-Half: `);
    const t0 = performance.now();
    // The server closes it; the test's own timeout is the bound if it never does.
    await new Promise<void>((r) => {
      socket.on('close', () => r());
      socket.on('error', () => {});
      socket.resume();
    });
    // Closed by the receiver well before Node's default 30 s connections check.
    expect(performance.now() - t0).toBeLessThan(10_000);
  });
});
