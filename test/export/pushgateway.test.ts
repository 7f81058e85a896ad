import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFakeClock } from '../../src/core/clock.js';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { createPushgatewayPusher, pushgatewayGroupUrl, type PushgatewayPusher } from '../../src/export/pushgateway.js';
import { createRunMetrics } from '../../src/export/run-metrics.js';
import { GOOD, makeSample } from './helpers/samples.js';
import { startSilentServer } from './helpers/silent-server.js';

interface Received {
  method: string;
  path: string;
  contentType: string | undefined;
  body: string;
}

/** A loopback stand-in for a Pushgateway that records every request and answers `status`. */
async function fakePushgateway(status = 200) {
  const received: Received[] = [];
  const waiters: ((r: Received) => void)[] = [];
  const state = { status };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const r = { method: req.method ?? '', path: req.url ?? '', contentType: req.headers['content-type'], body };
      received.push(r);
      res.writeHead(state.status).end();
      waiters.splice(0).forEach((w) => w(r));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    state,
    next: () => new Promise<Received>((resolve) => waiters.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function track(p: PushgatewayPusher): PushgatewayPusher {
  cleanups.push(() => p.stop());
  return p;
}

describe('pushgateway group URL', () => {
  it('encodes the job and grouping labels, with @base64 for values containing a slash', () => {
    expect(pushgatewayGroupUrl('http://pg:9091/', 'flowgauge', { instance: 'ci-1', shard: '2' })).toBe(
      'http://pg:9091/metrics/job/flowgauge/instance/ci-1/shard/2',
    );
    expect(pushgatewayGroupUrl('http://pg:9091', 'a/b', { path: '/v1/x', empty: '', space: 'a b' })).toBe(
      `http://pg:9091/metrics/job@base64/${Buffer.from('a/b').toString('base64url')}/path@base64/${Buffer.from('/v1/x').toString('base64url')}/empty@base64/=/space/a%20b`,
    );
  });

  it('rejects bad URLs and label names', () => {
    expect(() => pushgatewayGroupUrl('not a url', 'j')).toThrow(InvalidArgumentError);
    expect(() => pushgatewayGroupUrl('ftp://x', 'j')).toThrow(InvalidArgumentError);
    expect(() => pushgatewayGroupUrl('http://x', 'j', { job: 'again' })).toThrow(InvalidArgumentError);
    expect(() => pushgatewayGroupUrl('http://x', 'j', { 'bad-name': 'v' })).toThrow(InvalidArgumentError);
  });
});

describe('createPushgatewayPusher', () => {
  it('PUTs the registry exposition to the group path', async () => {
    const pg = await fakePushgateway();
    cleanups.push(pg.close);
    const m = createRunMetrics({ scenario: 's', tier: 'pro' });
    m.observe(makeSample(), GOOD);
    const p = track(
      createPushgatewayPusher({ url: pg.url, job: 'flowgauge', grouping: { instance: 'ci', shard: '0' }, registry: m.registry, intervalMs: 1000, clock: createFakeClock() }),
    );
    const out = await p.pushNow();
    expect(out).toEqual({ ok: true, status: 200 });
    expect(pg.received).toHaveLength(1);
    const r = pg.received[0] as Received;
    expect(r.method).toBe('PUT');
    expect(r.path).toBe('/metrics/job/flowgauge/instance/ci/shard/0');
    expect(r.contentType).toBe(m.registry.contentType);
    expect(r.body).toBe(await m.registry.metrics());
  });

  it('pushes on the clock interval, and once more on stop', async () => {
    const pg = await fakePushgateway();
    cleanups.push(pg.close);
    const clock = createFakeClock();
    const p = createPushgatewayPusher({ url: pg.url, job: 'j', registry: new Registry(), intervalMs: 5000, clock });
    p.start();
    clock.advance(4_999e6);
    expect(clock.pending()).toBe(1);
    let next = pg.next();
    clock.advance(1e6);
    await next;
    expect(pg.received).toHaveLength(1);
    // The next push is scheduled only after this one finished, so pushes never overlap.
    await vi.waitFor(() => expect(clock.pending()).toBe(1));
    next = pg.next();
    clock.advance(5_000e6);
    await next;
    expect(pg.received).toHaveLength(2);
    await vi.waitFor(() => expect(clock.pending()).toBe(1));
    const final = await p.stop();
    expect(final.ok).toBe(true);
    expect(pg.received).toHaveLength(3);
    expect(clock.pending()).toBe(0);
    expect(p.stats()).toMatchObject({ pushes: 3, failures: 0 });
  });

  it('counts and returns failures instead of throwing', async () => {
    const pg = await fakePushgateway(500);
    cleanups.push(pg.close);
    const p = track(createPushgatewayPusher({ url: pg.url, job: 'j', registry: new Registry(), intervalMs: 1000, clock: createFakeClock() }));
    expect(await p.pushNow()).toEqual({ ok: false, status: 500, error: 'HTTP 500' });
    pg.state.status = 202;
    expect(await p.pushNow()).toEqual({ ok: true, status: 202 });
    expect(p.stats()).toMatchObject({ pushes: 2, failures: 1 });
  });

  it('reports an unreachable Pushgateway as a failed push with an error code', async () => {
    const pg = await fakePushgateway();
    const url = pg.url;
    await pg.close();
    const p = track(createPushgatewayPusher({ url: `http://user:secret@${url.slice(7)}`, job: 'j', registry: new Registry(), intervalMs: 1000, clock: createFakeClock() }));
    const out = await p.pushNow();
    expect(out.ok).toBe(false);
    expect(out.status).toBe(0);
    expect(out.error).toBe('ECONNREFUSED');
    expect(JSON.stringify(p.stats())).not.toContain('secret');
  });

  it('refuses pushes once stopped, and a second stop is harmless', async () => {
    const pg = await fakePushgateway();
    cleanups.push(pg.close);
    const p = createPushgatewayPusher({ url: pg.url, job: 'j', registry: new Registry(), intervalMs: 1000, clock: createFakeClock() });
    await p.stop();
    expect((await p.pushNow()).error).toBe('STOPPED');
    await expect(p.stop()).resolves.toBeDefined();
    expect(pg.received).toHaveLength(1);
  });

  it('a Pushgateway that accepts and never answers: the final push is one attempt of finalTimeoutMs, then abandoned, an in-flight push with it', async () => {
    const silent = await startSilentServer();
    cleanups.push(silent.close);
    const clock = createFakeClock();
    // The periodic timeout (60 s) would hold stop() for a minute; the final bound is 200 ms.
    const p = createPushgatewayPusher({ url: silent.url, job: 'j', registry: new Registry(), intervalMs: 1000, clock, timeoutMs: 60_000, finalTimeoutMs: 200 });
    p.start();
    clock.advance(1000e6);
    await silent.firstRequest();
    const stopping = p.stop();
    const final = await stopping;
    expect(final).toEqual({ ok: false, status: 0, error: 'TIMEOUT' });
    // The periodic push was abandoned and the final one made and given up: both counted as failed.
    expect(p.stats()).toMatchObject({ pushes: 2, failures: 2 });
    // Its connections are let go: nothing of the attempt outlives stop().
    await vi.waitFor(() => expect(silent.closedByClient()).toBe(silent.connections()));
    expect(silent.connections()).toBeGreaterThanOrEqual(1);
  });

  it('names the group without credentials for warnings', () => {
    const p = createPushgatewayPusher({ url: 'http://user:secret@pg:9091', job: 'j', grouping: { target: 'api' }, registry: new Registry(), intervalMs: 1000, clock: createFakeClock() });
    expect(p.shownUrl).toBe('http://pg:9091/metrics/job/j/target/api');
    expect(() => createPushgatewayPusher({ url: 'http://pg', job: 'j', registry: new Registry(), intervalMs: 1000, clock: createFakeClock(), finalTimeoutMs: 0 })).toThrow(InvalidArgumentError);
  });
});
