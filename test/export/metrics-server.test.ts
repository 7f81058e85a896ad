import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { FlowgaugeError, ListenError } from '../../src/core/errors.js';
import { startMetricsServer, type MetricsServer } from '../../src/export/metrics-server.js';
import { createRunMetrics } from '../../src/export/run-metrics.js';
import { GOOD, makeSample } from './helpers/samples.js';

const servers: MetricsServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('startMetricsServer', () => {
  it('serves the registry at GET /metrics with its content type', async () => {
    const m = createRunMetrics({ scenario: 's', tier: 'pro' });
    m.observe(makeSample(), GOOD);
    const server = await startMetricsServer({ port: 0, registry: m.registry });
    servers.push(server);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/metrics`);
    const res = await fetch(server.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(m.registry.contentType);
    const body = await res.text();
    expect(body).toBe(await m.registry.metrics());
    expect(body).toContain('flowgauge_requests_total{');
  });

  it('answers 404 to other paths and methods', async () => {
    const server = await startMetricsServer({ port: 0, registry: new Registry() });
    servers.push(server);
    const base = server.url.replace('/metrics', '');
    expect((await fetch(`${base}/`)).status).toBe(404);
    expect((await fetch(`${base}/metrics/extra`)).status).toBe(404);
    expect((await fetch(server.url, { method: 'POST', body: 'x' })).status).toBe(404);
    expect((await fetch(`${server.url}?name=x`)).status).toBe(200);
  });

  it('reports a port in use as a ListenError (FG_LISTEN_FAILED, exit 2) and stops accepting after close', async () => {
    const first = await startMetricsServer({ port: 0, registry: new Registry() });
    await expect(startMetricsServer({ port: first.port, registry: new Registry() })).rejects.toSatisfy(
      (e: unknown) =>
        e instanceof ListenError && e instanceof FlowgaugeError && e.code === 'FG_LISTEN_FAILED' && e.reason === 'EADDRINUSE' && e.port === first.port && /EADDRINUSE/.test(e.message),
    );
    await first.close();
    await expect(fetch(first.url)).rejects.toThrow();
  });
});
