/**
 * OTLP export as the OpenTelemetry specifications say (issue 29, items 5 and 6): the endpoint
 * resolved as the OTLP exporter spec resolves it, the resource from OTEL_SERVICE_NAME and
 * OTEL_RESOURCE_ATTRIBUTES, spans with the stable HTTP client conventions and nanosecond
 * times, and an export that fails is a warning, never the run's exit code.
 *
 * The receiver is a plain node:http server on 127.0.0.1 that checks every request against the
 * encoding the installed exporter uses (@opentelemetry/exporter-trace-otlp-http: OTLP/JSON).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { otlpTracesEndpoint } from '../../src/export/otel-sdk.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';
import { startSilentServer } from './helpers/silent-server.js';
import { freePort } from '../helpers/free-port.js';

const SECRET = 'fg_otel_secret_token_0123456789';
let dir: string;
let service: ReferenceService;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-otel-book-'));
  service = await startReferenceService({ latency: 'none', tokens: { [SECRET]: { account: 'acct_otel', tier: 'pro' } } });
});
afterAll(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

/** OTLP/JSON AnyValue, as much of it as spans carry here. */
interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes: KeyValue[];
}
interface ExportRequest {
  resourceSpans: { resource: { attributes: KeyValue[] }; scopeSpans: { scope?: { name: string }; spans: OtlpSpan[] }[] }[];
}

/** A loopback OTLP/HTTP receiver: records every request, answers `status`. */
async function receiver(status = 200) {
  const requests: { method: string; path: string; contentType: string | undefined; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', path: req.url ?? '', contentType: req.headers['content-type'], body });
      res.writeHead(status, { 'content-type': 'application/json' }).end(status === 200 ? '{}' : '{"code":5,"message":"not here"}');
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
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

/** Checks one request against OTLP/HTTP with the JSON encoding and decodes it. */
function decode(r: { method: string; contentType: string | undefined; body: string }): ExportRequest {
  expect(r.method).toBe('POST');
  expect(r.contentType).toMatch(/^application\/json\b/);
  const msg = JSON.parse(r.body) as ExportRequest;
  expect(Array.isArray(msg.resourceSpans)).toBe(true);
  for (const rs of msg.resourceSpans) {
    expect(Array.isArray(rs.resource.attributes)).toBe(true);
    for (const ss of rs.scopeSpans) {
      for (const s of ss.spans) {
        // OTLP/JSON: ids as lower-case hex (not base64), times as decimal nanoseconds.
        expect(s.traceId).toMatch(/^[0-9a-f]{32}$/);
        expect(s.spanId).toMatch(/^[0-9a-f]{16}$/);
        expect(String(s.startTimeUnixNano)).toMatch(/^\d+$/);
        expect(String(s.endTimeUnixNano)).toMatch(/^\d+$/);
        for (const a of s.attributes) expect(Object.keys(a.value)).toHaveLength(1);
      }
    }
  }
  return msg;
}

const valueOf = (v: AnyValue | undefined): string | number | boolean | undefined =>
  v === undefined ? undefined : v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.boolValue ?? v.doubleValue);
const attrs = (kvs: KeyValue[]): Record<string, string | number | boolean | undefined> => Object.fromEntries(kvs.map((kv) => [kv.key, valueOf(kv.value)]));

function scenarioFile(name: string): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      name,
      tier: 'pro',
      load: { executor: 'constant-arrival-rate', rate: '40/s', duration: '500ms' },
      mix: [
        { op: 'run', weight: 1 },
        { op: 'listFlows', weight: 1, query: { limit: 5 } },
      ],
      thresholds: { availability: '>=99%' },
    }),
  );
  return path;
}

async function runWithOtel(name: string, otel: string[], env: Record<string, string> = {}) {
  const io = memoryIo({ cwd: dir, env: { FLOWGAUGE_TOKEN: SECRET, ...env } });
  const code = await main(['run', scenarioFile(name), '--base-url', service.baseUrl, '--out', join(dir, name), '--quiet', ...otel], io);
  return { code, err: io.err(), out: io.out() };
}

describe('OTLP export by the book', () => {
  it('posts to /v1/traces of a base URL, under OTEL_SERVICE_NAME, with HTTP client spans in nanoseconds', async () => {
    const rx = await receiver();
    const before = BigInt(Date.now()) * 1_000_000n;
    const r = await runWithOtel('book', ['--otel', rx.base], {
      OTEL_SERVICE_NAME: 'checkout-gate',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=staging,service.name=not-this-one',
    });
    const after = BigInt(Date.now()) * 1_000_000n;
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(rx.requests.length).toBeGreaterThanOrEqual(1);
    const spans: OtlpSpan[] = [];
    for (const req of rx.requests) {
      expect(req.path).toBe('/v1/traces');
      expect(req.body).not.toContain(SECRET);
      for (const rs of decode(req).resourceSpans) {
        const resource = attrs(rs.resource.attributes);
        expect(resource['service.name']).toBe('checkout-gate');
        expect(resource['deployment.environment.name']).toBe('staging');
        for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      }
    }
    expect(spans).toHaveLength(20);
    const base = new URL(service.baseUrl);
    const names = new Set<string>();
    let subMs = 0;
    for (const s of spans) {
      names.add(s.name);
      expect(s.kind).toBe(3); // SPAN_KIND_CLIENT
      const a = attrs(s.attributes);
      expect(a['server.address']).toBe(base.hostname);
      expect(a['server.port']).toBe(Number(base.port));
      expect(a['http.response.status_code']).toBe(200);
      expect(a['error.type']).toBeUndefined();
      // url.template is url.full's path, /v1 included, with the ids as placeholders.
      expect(`${base.origin}${String(a['url.template'])}`.replace('{flow_id}', encodeURIComponent(String(a['flowgauge.flow_id'])))).toBe(a['url.full']);
      if (a['flowgauge.operation'] === 'run') {
        expect(s.name).toBe('POST /v1/flows/{flow_id}/run');
        expect(a['http.request.method']).toBe('POST');
        expect(a['url.full']).toBe(`${service.baseUrl}/flows/${encodeURIComponent(String(a['flowgauge.flow_id']))}/run`);
      } else {
        expect(s.name).toBe('GET /v1/flows');
        expect(a['http.request.method']).toBe('GET');
        // The query (and any credentials) never reach url.full.
        expect(a['url.full']).toBe(`${service.baseUrl}/flows`);
      }
      const start = BigInt(String(s.startTimeUnixNano));
      const end = BigInt(String(s.endTimeUnixNano));
      expect(start >= before - 1_000_000n && end <= after + 1_000_000n).toBe(true);
      expect(end >= start).toBe(true);
      if (start % 1_000_000n !== 0n || end % 1_000_000n !== 0n) subMs++;
    }
    expect(names).toEqual(new Set(['POST /v1/flows/{flow_id}/run', 'GET /v1/flows']));
    // Nanosecond times, not milliseconds padded with zeros.
    expect(subMs).toBeGreaterThan(10);
  });

  it('puts failures in error.type: the status code of a 4xx', async () => {
    const rx = await receiver();
    const path = join(dir, 'missing-flow.json');
    writeFileSync(
      path,
      JSON.stringify({
        name: 'missing-flow',
        tier: 'pro',
        load: { executor: 'constant-arrival-rate', rate: '20/s', duration: '200ms' },
        mix: [{ op: 'getFlow', flowId: 'no-such-flow', weight: 1 }],
      }),
    );
    const io = memoryIo({ cwd: dir, env: { FLOWGAUGE_TOKEN: SECRET } });
    await main(['run', path, '--base-url', service.baseUrl, '--out', join(dir, 'missing-flow'), '--quiet', '--otel', `${rx.base}/`], io);
    const spans = rx.requests.flatMap((q) => decode(q).resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)));
    expect(rx.requests.every((q) => q.path === '/v1/traces')).toBe(true);
    expect(spans.length).toBeGreaterThan(0);
    for (const s of spans) {
      const a = attrs(s.attributes);
      expect(s.name).toBe('GET /v1/flows/{flow_id}');
      expect(a['http.response.status_code']).toBe(404);
      expect(a['error.type']).toBe('404');
      expect(a['url.full']).toBe(`${service.baseUrl}/flows/no-such-flow`);
    }
  });

  it('appends /v1/traces to OTEL_EXPORTER_OTLP_ENDPOINT and uses OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is', async () => {
    const generic = await receiver();
    const r1 = await runWithOtel('env-generic', ['--otel'], { OTEL_EXPORTER_OTLP_ENDPOINT: `${generic.base}/collector` });
    expect(r1.code).toBe(0);
    expect(generic.requests.length).toBeGreaterThan(0);
    expect(new Set(generic.requests.map((q) => q.path))).toEqual(new Set(['/collector/v1/traces']));

    const specific = await receiver();
    const r2 = await runWithOtel('env-traces', ['--otel'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: `${generic.base}/not-this`,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${specific.base}/custom/spans`,
    });
    expect(r2.code).toBe(0);
    expect(specific.requests.length).toBeGreaterThan(0);
    expect(new Set(specific.requests.map((q) => q.path))).toEqual(new Set(['/custom/spans']));
    // Without OTEL_SERVICE_NAME the service is flowgauge.
    expect(attrs(decode(specific.requests[0] as (typeof specific.requests)[number]).resourceSpans[0]?.resource.attributes ?? [])['service.name']).toBe('flowgauge');
  });

  it('resolves endpoints as the OTLP exporter specification does', () => {
    expect(otlpTracesEndpoint('http://host:4318', {})).toBe('http://host:4318/v1/traces');
    expect(otlpTracesEndpoint('http://host:4318/', {})).toBe('http://host:4318/v1/traces');
    expect(otlpTracesEndpoint('http://host:4318/v1/traces', {})).toBe('http://host:4318/v1/traces');
    expect(otlpTracesEndpoint('https://host/otlp/spans', {})).toBe('https://host/otlp/spans');
    expect(otlpTracesEndpoint('', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBe('http://c:4318/v1/traces');
    expect(otlpTracesEndpoint('', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/base/' })).toBe('http://c:4318/base/v1/traces');
    expect(otlpTracesEndpoint(undefined, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/x', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://d' })).toBe('http://c:4318/x');
    expect(otlpTracesEndpoint('http://flag:4318', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/x' })).toBe('http://flag:4318/v1/traces');
    expect(otlpTracesEndpoint('', {})).toBe('http://localhost:4318/v1/traces');
    expect(() => otlpTracesEndpoint('localhost:4318', {})).toThrow(InvalidArgumentError);
  });
});

describe('an export that fails never fails a passing run', () => {
  const oneWarning = (err: string, endpoint: string): void => {
    expect(err).not.toMatch(/internal error/);
    const lines = err.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('warning: spans could not be exported');
    expect(lines[0]).toContain(endpoint);
  };

  it('endpoint down: exit 0 and one warning naming the endpoint and the reason', async () => {
    const port = await freePort();
    const r = await runWithOtel('down', ['--otel', `http://127.0.0.1:${port}`]);
    expect(r.code).toBe(0);
    oneWarning(r.err, `http://127.0.0.1:${port}/v1/traces`);
    expect(r.err).toMatch(/ECONNREFUSED/);
    expect(r.out).toContain('PASS');
  });

  it('endpoint accepts and never answers: exit 0, one warning with the spans not delivered, the export given up and let go', async () => {
    const silent = await startSilentServer();
    try {
      const running = runWithOtel('hanging', ['--otel', silent.url]);
      const firstExportAt = await silent.firstRequest();
      const r = await running;
      const tookMs = performance.now() - firstExportAt;
      expect(r.code).toBe(0);
      oneWarning(r.err, `${silent.url}/v1/traces`);
      expect(r.err).toMatch(/: \d+ spans? not delivered; /);
      // Let go by the exporter (its close reaches this end a moment later), not left to hang the process.
      await vi.waitFor(() => expect(silent.closedByClient()).toBe(silent.connections()), { timeout: 1000 });
      // One bounded attempt of 1 s per export (the exporter's own default is 10 s of retries): generous.
      expect(tookMs).toBeLessThan(8000);
      expect(r.out).toContain('PASS');
    } finally {
      await silent.close();
    }
  });

  it('endpoint answers 404: exit 0 and one warning', async () => {
    const rx = await receiver(404);
    const r = await runWithOtel('not-found', ['--otel', `${rx.base}/wrong/path`]);
    expect(r.code).toBe(0);
    oneWarning(r.err, `${rx.base}/wrong/path`);
    expect(r.err).toMatch(/404/);
    expect(rx.requests.length).toBeGreaterThan(0);
  });

  it('a bad --otel value is bad input (2), not an internal error', async () => {
    const r = await runWithOtel('bad-otel', ['--otel', 'localhost:4318']);
    expect(r.code).toBe(2);
    expect(r.err).not.toMatch(/internal error/);
  });
});
