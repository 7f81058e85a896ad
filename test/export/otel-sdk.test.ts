import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FlowgaugeError, InvalidArgumentError } from '../../src/core/errors.js';
import { enableOtlpExport } from '../../src/export/otel-sdk.js';
import { createRequestTracer } from '../../src/export/tracing.js';
import { BAD, makeSample } from './helpers/samples.js';

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
});
