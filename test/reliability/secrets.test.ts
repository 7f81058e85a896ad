/**
 * The token is a secret (DESIGN "Security"): it must not appear in anything flowgauge
 * produces. A full scenario (every operation, stream and trigger included) runs through the
 * CLI as a real process with `--token` and `--metrics-port`, against a service that fails in
 * many ways; everything it wrote, served and printed is searched for the token. The client's
 * errors are checked against a server that echoes the token back in every field it can, and
 * OpenTelemetry spans through an in-memory exporter.
 */
import { readdirSync, readFileSync, mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type ApiResult, type Client, type StreamResult } from '../../src/api/index.js';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { safeProcessTitle } from '../../src/cli/process-title.js';
import { createRequestTracer, createRunMetrics } from '../../src/export/index.js';
import { createMetricsOutput, createTracingOutput, executeRun, type RunOutput } from '../../src/run/index.js';
import { resolveScenario } from '../../src/scenario/index.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';
import { killIfRunning, spawnCli, until, type CliProcess } from './cli-process.js';
import { sseEvent, startFaultServer, type FaultServer } from './fault-server.js';

const SECRET = 'fgSECRET7f3a9c1e5bd0notleak';
/** A part of the token long enough to be unmistakable, to catch a truncated or re-encoded leak. */
const SECRET_CORE = '7f3a9c1e5bd0';

let dir: string;
let service: ReferenceService | undefined;
let raw: FaultServer | undefined;
let cli: CliProcess | undefined;
const clients: Client[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-secrets-'));
});
afterEach(async () => {
  await killIfRunning(cli);
  cli = undefined;
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await service?.close();
  service = undefined;
  await raw?.close();
  raw = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function expectNoSecret(label: string, text: string): void {
  expect(text.length, `${label} is empty`).toBeGreaterThan(0);
  expect(text.includes(SECRET_CORE), `${label} contains the token`).toBe(false);
  expect(text.includes(encodeURIComponent(SECRET_CORE)), `${label} contains the token`).toBe(false);
  expect(text.includes(Buffer.from(SECRET).toString('base64').slice(0, 16)), `${label} contains the token in base64`).toBe(false);
}

const ALL_OPS = [
  { op: 'run', weight: 2 },
  { op: 'stream', weight: 2 },
  { op: 'getRun', weight: 1 },
  { op: 'listFlows', weight: 1 },
  { op: 'getFlow', weight: 1 },
  { op: 'createSession', weight: 1 },
  { op: 'getHistory', weight: 1 },
  { op: 'getUsage', weight: 1 },
  { op: 'trigger', weight: 1 },
  // A negative test: a flow that does not exist answers 404 with an error body.
  { op: 'getFlow', weight: 1, flowId: 'flow_missing', negative: true },
];

async function freePort(): Promise<number> {
  const s = await startFaultServer(() => undefined);
  const port = Number(new URL(s.baseUrl).port);
  await s.close();
  return port;
}

describe('secrets', () => {
  it('a full run through the CLI: the token is in no output, file, metric or process title', async () => {
    const svc = await startReferenceService({
      latency: { ttftMs: 2, itlMs: 1, tokens: { min: 3, max: 6 }, runOverheadMs: 1 },
      tokens: { [SECRET]: { account: 'acct_b', tier: { limitPerMinute: 10_000_000 } } },
      faults: { errors: { run: { rate: 0.3, status: 500 }, getFlow: { rate: 0.3, status: 503 } }, truncatedStreamRate: 0.3 },
      quirks: { errorExtraFields: true },
    });
    service = svc;
    const scenario = join(dir, 'full.json');
    writeFileSync(
      scenario,
      JSON.stringify({ name: 'secrets', tier: { limitPerMinute: 10_000_000 }, load: { rate: '150/s', duration: '2s', gracefulStop: '2s' }, mix: ALL_OPS, thresholds: {} }),
    );
    const port = await freePort();
    const out = join(dir, 'out');
    cli = spawnCli(['run', scenario, '--base-url', svc.baseUrl, '--token', SECRET, '--metrics-port', String(port), '--out', out], { cwd: dir });
    const proc = cli;

    await until(() => svc.stats().requests > 40 || proc.hasExited(), 'the run to start');
    // The process title: `ps` and /proc show a process's arguments to every local user.
    let cmdline = '';
    if (process.platform === 'linux' && proc.child.pid !== undefined) {
      try {
        cmdline = readFileSync(`/proc/${proc.child.pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      } catch {
        cmdline = '';
      }
    }

    if (process.platform === 'linux') expect(cmdline).toContain('flowgauge run');
    // Faults that would also hit the preparation are switched on once the run is going.
    svc.faults.set({ malformedJsonRate: 0.05, connectionResetRate: 0.05, premature429: { rate: 0.1 } });

    // What the metrics endpoint serves: scraped until it shows errors of several kinds.
    let metrics = '';
    const scrape = async (): Promise<void> => {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/metrics`);
        metrics = await res.text();
      } catch {
        // not up yet, or already closed
      }
    };
    while (!proc.hasExited() && !(/code="SERVICE_UNAVAILABLE"/.test(metrics) && /code="STREAM_INCOMPLETE"/.test(metrics))) {
      await scrape();
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(metrics, 'metrics were scraped during the run').toMatch(/flowgauge_/);

    const { code } = await proc.exited;
    expect(code, proc.stderr()).toBe(0);
    const files = readdirSync(out);
    expect(files).toEqual(expect.arrayContaining(['report.json', 'report.md']));
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { ops: Record<string, { errors: Record<string, number> }> };
    // The run did meet failures, so error paths were exercised.
    const codes = new Set(Object.values(report.ops).flatMap((s) => Object.keys(s.errors)));
    expect([...codes]).toEqual(expect.arrayContaining(['INTERNAL_ERROR', 'SERVICE_UNAVAILABLE', 'STREAM_INCOMPLETE', 'NOT_FOUND']));
    expect(Object.keys(report.ops).sort()).toEqual(['createSession', 'getFlow', 'getHistory', 'getRun', 'getUsage', 'listFlows', 'run', 'stream', 'trigger']);

    expectNoSecret('stdout', proc.stdout());
    expectNoSecret('stderr', proc.stderr() || ' ');
    expectNoSecret('/metrics', metrics);
    for (const f of files) expectNoSecret(f, readFileSync(join(out, f), 'utf8'));
    if (cmdline !== '') expectNoSecret('/proc/<pid>/cmdline', cmdline);
  });

  it('client errors never carry the token, even when the server echoes it back everywhere', async () => {
    // Echoes whatever Authorization header arrives into every field of every answer.
    raw = await startFaultServer((req, res: ServerResponse) => {
      const echo = String(req.headers.authorization ?? '');
      const url = req.url ?? '';
      if (url.includes('/stream')) {
        res.writeHead(200, { 'content-type': `text/event-stream; ${echo}`, 'x-request-id': echo });
        res.end(sseEvent({ type: 'start', run_id: echo }) + sseEvent({ type: 'token', content: 7 }) + sseEvent({ type: 'error', code: echo, message: echo }));
        return;
      }
      if (url.includes('/runs/')) {
        // A 200 that breaks the contract with the token in its values.
        const body = JSON.stringify({ id: echo, flow_id: 1, status: echo, progress: echo, output: 3, error: null, created_at: echo });
        res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': echo, 'x-ratelimit-limit': echo });
        res.end(body);
        return;
      }
      const body = JSON.stringify({
        error: { code: 'INVALID_REQUEST', message: `bad token ${echo}`, details: { field: echo, [echo]: [echo, { deep: echo }] } },
        request_id: echo,
      });
      res.writeHead(400, { 'content-type': 'application/json', 'x-request-id': echo, 'x-ratelimit-reset': echo });
      res.end(body);
    });
    const client = createClient({ baseUrl: raw.baseUrl, token: SECRET, triggerAuth: true });
    clients.push(client);
    const results: (ApiResult<unknown> | StreamResult)[] = await Promise.all([
      client.run('flow_1', { input: 'x' }),
      client.stream('flow_1', { input: 'x' }),
      client.getRun('run_1'),
      client.getFlow('flow_1'),
      client.createSession({ flow_id: 'flow_1', user_id: 'u', metadata: {} }),
      client.getHistory('s1'),
      client.getUsage({ granularity: 'day' }),
      client.trigger('flow_1', { a: 1 }),
    ]);
    // Transport failures too: refused, and a headers timeout.
    const refused = createClient({ baseUrl: 'http://127.0.0.1:1/v1', token: SECRET });
    clients.push(refused);
    results.push(await refused.listFlows());
    const stall = await startFaultServer(() => undefined);
    const slow = createClient({ baseUrl: stall.baseUrl, token: SECRET, timeouts: { headersMs: 200 } });
    clients.push(slow);
    results.push(await slow.run('flow_1', { input: 'x' }));
    await slow.close();
    await stall.close();

    expect(raw.measured()).toBe(8);
    const failures = results.filter((r) => !r.ok);
    expect(failures.length).toBeGreaterThanOrEqual(8);
    for (const r of results) {
      const label = `result of ${r.ok ? 'a success' : r.error.name}`;
      // A success's `value` is the service's own answer, handed over as it came; everything
      // the client derived from it (meta, violations, errors) is checked.
      const derived = r.ok ? { ...r, value: undefined } : r;
      expectNoSecret(`${label} (inspect)`, inspect(derived, { depth: 20, showHidden: true }));
      expectNoSecret(`${label} (JSON)`, JSON.stringify(derived));
      if (!r.ok) {
        const e = r.error;
        expectNoSecret(`${label} message`, e.message);
        expectNoSecret(`${label} String`, String(e));
        expectNoSecret(`${label} stack`, e.stack ?? String(e));
        expectNoSecret(`${label} inspect`, inspect(e, { depth: 20, showHidden: true }));
        expectNoSecret(`${label} JSON`, JSON.stringify(e, Object.getOwnPropertyNames(e)));
      }
    }
    expectNoSecret('client inspect', inspect(client, { depth: 20, showHidden: true }));
    expectNoSecret('client JSON', JSON.stringify(client));
    expectNoSecret('client String', `${String(client)} ${Object.keys(client).join(',')}`);
  });

  it('OpenTelemetry spans and the metrics registry of a run carry no token', async () => {
    const svc = await startReferenceService({
      latency: 'none',
      tokens: { [SECRET]: { account: 'acct_b', tier: { limitPerMinute: 10_000_000 } } },
      faults: { errors: { run: { rate: 0.5, status: 500 } }, truncatedStreamRate: 0.5 },
    });
    service = svc;
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const client = createClient({ baseUrl: svc.baseUrl, token: SECRET });
    clients.push(client);
    const metrics = createRunMetrics({ scenario: 'secrets-otel', tier: 'custom' });
    await executeRun({
      scenario: resolveScenario({ name: 'secrets-otel', tier: 'pro', load: { rate: '100/s', duration: '500ms' }, mix: ALL_OPS }),
      client,
      target: { baseUrl: svc.baseUrl, embedded: false },
      // As the CLI's run has them: following and the generator's watch on, metrics and spans fed.
      follow: true,
      generator: true,
      outputs: [createMetricsOutput(metrics), createTracingOutput(createRequestTracer(provider.getTracer('flowgauge')))].filter((o): o is RunOutput => o !== undefined),
    });
    const spans = exporter.getFinishedSpans();
    await provider.shutdown();
    expect(spans.length).toBe(50);
    expect(spans.some((s) => s.status.code === 2)).toBe(true);
    const dump = spans.map((s) =>
      JSON.stringify({ name: s.name, attributes: s.attributes, status: s.status, events: s.events, links: s.links, resource: s.resource.attributes }),
    );
    expectNoSecret('spans', dump.join('\n'));
    expectNoSecret('metrics registry', await metrics.registry.metrics());
  });

  it('a server that echoes the token into its headers does not get it into the report', async () => {
    const echoRun = (req: import('node:http').IncomingMessage, res: ServerResponse): void => {
      const echo = String(req.headers.authorization ?? '');
      const body = JSON.stringify({ id: 'run_1', flow_id: 'flow_1', status: 'completed', output: 'ok', created_at: '2026-01-01T00:00:00Z', completed_at: '2026-01-01T00:00:00Z', usage: { total_tokens: 2, prompt_tokens: 1, completion_tokens: 1 } });
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': echo, 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '999', 'x-ratelimit-reset': echo, 'retry-after': echo });
      res.end(body);
    };
    raw = await startFaultServer(echoRun);
    const client = createClient({ baseUrl: raw.baseUrl, token: SECRET });
    clients.push(client);
    const { report } = await executeRun({
      scenario: resolveScenario({ name: 'echo', tier: 'pro', load: { rate: '20/s', duration: '200ms' }, mix: [{ op: 'run' }] }),
      client,
      target: { baseUrl: raw.baseUrl, embedded: false },
    });
    expect(report.load.started).toBe(4);
    expect(report.rateLimit.windows.length).toBeGreaterThan(0);
    expectNoSecret('report.json', JSON.stringify(report));
    const direct = await client.run('flow_1', { input: 'x' });
    expectNoSecret('meta', JSON.stringify(direct.meta));
  });

  it('the process title hides secret flag values and URL credentials', () => {
    const argv = ['run', 's.json', '--token', SECRET, '--webhook-secret=' + SECRET, '--base-url', `http://u:${SECRET}@h:1/v1?k=${SECRET}`, '--quiet'];
    const title = safeProcessTitle(argv);
    expect(title).toBe('flowgauge run s.json --token *** --webhook-secret=*** --base-url http://h:1/v1 --quiet');
    expect(safeProcessTitle(['run', 'smoke', '--duration', '5s'])).toBe('flowgauge run smoke --duration 5s');
  });

  it('a token in the URL (userinfo or query) never reaches a report or a message', async () => {
    const svc = await startReferenceService({ latency: 'none', tokens: { [SECRET]: { account: 'acct_b', tier: 'pro' } } });
    service = svc;
    const scenario = join(dir, 'url.json');
    writeFileSync(scenario, JSON.stringify({ name: 'url', tier: 'pro', load: { rate: '20/s', duration: '200ms' }, mix: [{ op: 'listFlows' }] }));
    const port = new URL(svc.baseUrl).port;
    const urls = [`http://user:${SECRET}@127.0.0.1:${port}/v1`, `http://127.0.0.1:${port}/v1?token=${SECRET}`, `http://${SECRET}@127.0.0.1:${port}/v1`];
    for (const [i, url] of urls.entries()) {
      const io = memoryIo({ cwd: dir });
      const out = join(dir, `url-${i}`);
      const code = await main(['run', scenario, '--base-url', url, '--token', SECRET, '--out', out, '--quiet'], io);
      // Credentials in the URL are refused as bad input; if a run happened, its files are clean.
      expect([0, 2], io.err()).toContain(code);
      expectNoSecret(`stdout+stderr for ${i}`, `${io.out()}|${io.err()}`);
      if (existsSync(out)) for (const f of readdirSync(out)) expectNoSecret(f, readFileSync(join(out, f), 'utf8'));
    }

    // The engine strips a URL's credentials and query from the report whatever it is given.
    const client = createClient({ baseUrl: svc.baseUrl, token: SECRET });
    clients.push(client);
    const { report } = await executeRun({
      scenario: resolveScenario({ name: 'url', tier: 'pro', load: { rate: '20/s', duration: '200ms' }, mix: [{ op: 'listFlows' }] }),
      client,
      target: { baseUrl: urls[0] as string, embedded: false },
    });
    expect(report.target.baseUrl).toBe(`http://127.0.0.1:${port}/v1`);
    expectNoSecret('report.json', JSON.stringify(report));
  });
});
