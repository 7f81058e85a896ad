import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FlowgaugeError, InvalidArgumentError } from '../../src/core/errors.js';
import { enableOtlpExport } from '../../src/export/otel-sdk.js';
import { createRequestTracer } from '../../src/export/tracing.js';
import { BAD, makeSample } from './helpers/samples.js';
import { startSilentServer } from './helpers/silent-server.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A loopback OTLP/HTTP collector that keeps the request bodies. */
async function fakeCollector() {
  const bodies: { path: string; contentType: string | undefined; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      bodies.push({ path: req.url ?? '', contentType: req.headers['content-type'], body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`, bodies };
}

describe('enableOtlpExport', () => {
  it('exports request spans over OTLP/HTTP with the service name', async () => {
    const collector = await fakeCollector();
    const otel = await enableOtlpExport({ endpoint: collector.url, serviceName: 'flowgauge-test', immediate: true });
    const span = createRequestTracer(otel.tracer).startSpan('run', 'flow-a');
    span.end(makeSample({ status: 500, errorCode: 'INTERNAL_ERROR' }), BAD);
    await otel.shutdown();
    expect(collector.bodies.length).toBeGreaterThanOrEqual(1);
    const all = collector.bodies.map((b) => b.body).join('\n');
    expect(collector.bodies[0]?.path).toBe('/v1/traces');
    expect(all).toContain('flowgauge-test');
    expect(all).toContain('flowgauge.operation');
    expect(all).toContain('INTERNAL_ERROR');
    const traceId = /^00-([0-9a-f]{32})-/.exec(span.traceparent ?? '')?.[1];
    expect(traceId).toBeDefined();
    // OTLP/JSON carries ids as hex strings.
    expect(all).toContain(traceId as string);
  });

  it('says which packages to install when the optional SDK is missing', async () => {
    const missing = () => Promise.reject(Object.assign(new Error("Cannot find package '@opentelemetry/sdk-trace-base'"), { code: 'ERR_MODULE_NOT_FOUND' }));
    const err = await enableOtlpExport({ serviceName: 'x' }, missing).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FlowgaugeError);
    expect((err as FlowgaugeError).code).toBe('FG_CONFIG_INVALID');
    expect((err as FlowgaugeError).message).toMatch(/@opentelemetry\/sdk-trace-base.*@opentelemetry\/exporter-trace-otlp-http/);
  });

  it('rejects a bad endpoint or an empty service name', async () => {
    await expect(enableOtlpExport({ endpoint: 'localhost:4318', serviceName: 'x' })).rejects.toThrow(InvalidArgumentError);
    await expect(enableOtlpExport({ serviceName: '' })).rejects.toThrow(InvalidArgumentError);
  });

  it('a collector that accepts and never answers: shutdown gives up after the export timeout, says how many spans were not delivered, and lets the connection go', async () => {
    const silent = await startSilentServer();
    cleanups.push(silent.close);
    const said: string[] = [];
    const otel = await enableOtlpExport({ endpoint: `${silent.url}/v1/traces`, serviceName: 'x', exportTimeoutMs: 200 }, undefined, (m) => said.push(m));
    const tracer = createRequestTracer(otel.tracer);
    for (let i = 0; i < 3; i++) tracer.startSpan('run', 'flow-a').end(makeSample({ status: 500, errorCode: 'INTERNAL_ERROR' }), BAD);
    await otel.shutdown();
    expect(silent.connections()).toBeGreaterThanOrEqual(1);
    // One warning, naming the endpoint and what was lost; the run goes on without it.
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(new RegExp(`^flowgauge: warning: spans could not be exported to ${silent.url}/v1/traces \\(.+\\): 3 spans not delivered; the run's result does not depend on them\\n$`));
    // The attempt was abandoned: its connection closed by the exporter, nothing left to hold the process.
    await vi.waitFor(() => expect(silent.closedByClient()).toBe(silent.connections()), { timeout: 5000 });
    // A second shutdown is the same one.
    await otel.shutdown();
    expect(said).toHaveLength(1);
  });

  it('a collector that is down: one warning with the count, after one attempt', async () => {
    const silent = await startSilentServer();
    const url = `${silent.url}/v1/traces`;
    await silent.close();
    const said: string[] = [];
    const otel = await enableOtlpExport({ endpoint: url, serviceName: 'x' }, undefined, (m) => said.push(m));
    createRequestTracer(otel.tracer).startSpan('run', 'flow-a').end(makeSample({ status: 200 }), BAD);
    await otel.shutdown();
    expect(said).toEqual([`flowgauge: warning: spans could not be exported to ${url} (connect ECONNREFUSED ${url.replace(/^http:\/\/|\/v1\/traces$/g, '')}): 1 span not delivered; the run's result does not depend on them\n`]);
    expect(otel.undelivered()).toBe(1);
  });
});
