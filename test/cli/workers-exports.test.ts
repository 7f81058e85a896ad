/**
 * The exporters of a run split over worker threads: the Pushgateway gets the workers' series
 * combined (counters and histograms exact: they equal the merged report), OTLP gets a span per
 * request from the workers, `/metrics` serves the combined series during the run, the live
 * dashboard gets merged ticks and the end, and `--shard i/N` splits again over the workers so
 * two shards of two workers each send exactly the schedule once.
 */
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createParser } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { Report } from '../../src/report/index.js';
import type { DashboardMessage } from '../../src/run/outputs/dashboard-output.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';
import { parseExposition, sumOf } from '../export/helpers/exposition.js';
import { until } from '../reliability/cli-process.js';

const TOKEN = 'fg_workers_exports_token_X';
const TIER = { limitPerMinute: 10_000_000 };
/** A guard against a hang, not a timing: two runs of 2 s over worker threads took 17-30 s on a loaded machine. */
const RUN_GUARD_MS = 120_000;
let dir: string;
let service: ReferenceService;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-workers-exports-'));
  service = await startReferenceService({ latency: 'none', tokens: { [TOKEN]: { account: 'acct_x', tier: TIER } } });
});
afterAll(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

function scenario(name: string, rate: string, duration: string): string {
  const path = join(dir, `${name}.json`);
  const body = { name, tier: TIER, load: { executor: 'constant-arrival-rate', rate, duration }, mix: [{ op: 'listFlows' }], thresholds: {} };
  writeFileSync(path, JSON.stringify(body));
  return path;
}

function start(args: readonly string[], out: string): { io: ReturnType<typeof memoryIo>; done: Promise<number> } {
  const io = memoryIo({ cwd: dir });
  const done = main(['run', ...args, '--base-url', service.baseUrl, '--token', TOKEN, '--quiet', '--no-audit', '--out', out], io);
  return { io, done };
}

const reportAt = (out: string): Report => JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;

/** Spans in OTLP/HTTP JSON bodies. */
function spanCount(bodies: readonly string[]): number {
  let n = 0;
  for (const b of bodies) {
    const j = JSON.parse(b) as { resourceSpans?: { scopeSpans?: { spans?: unknown[] }[] }[] };
    for (const rs of j.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) n += ss.spans?.length ?? 0;
  }
  return n;
}

describe('--workers with exporters', () => {
  it('pushes the combined series (equal to the merged report), a span per request from every worker, and splits a shard again', async () => {
    const received: { method: string; url: string; body: string }[] = [];
    const sink: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ method: req.method ?? '', url: req.url ?? '', body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(sink.address() as { port: number }).port}`;
    try {
      const file = scenario('pushed', '200/s', '2s');
      const outs = [join(dir, 'shard1'), join(dir, 'shard2')];
      const reports: Report[] = [];
      for (const [i, out] of outs.entries()) {
        const extra = i === 0 ? ['--pushgateway', base, '--otel', `${base}/v1/traces`] : [];
        const { io, done } = start([file, '--workers', '2', '--shard', `${i + 1}/2`, ...extra], out);
        const code = await done;
        expect(code, io.err()).toBe(0);
        expect(io.err()).not.toContain('Pushgateway push failed');
        expect(existsSync(join(out, 'report.json'))).toBe(true);
        reports.push(reportAt(out));
      }
      const [one, two] = reports as [Report, Report];
      // Shard i of 2, each over 2 workers (shards i, i+2 of 4): together the 400 arrivals once.
      expect(one.load.started).toBe(200);
      expect(two.load.started).toBe(200);
      expect((one.ops.listFlows?.count ?? 0) + (two.ops.listFlows?.count ?? 0)).toBe(400);

      const puts = received.filter((r) => r.method === 'PUT' && r.url.startsWith('/metrics/job/flowgauge/'));
      expect(puts.length).toBeGreaterThan(0);
      expect(puts.at(-1)?.url).toMatch(/\/shard\/1$/);
      // The last push is of every worker's final registry: counts equal the merged report's.
      const series = parseExposition(puts.at(-1)?.body ?? '');
      expect(sumOf(series, 'flowgauge_requests_total')).toBe(one.ops.listFlows?.count);
      expect(sumOf(series, 'flowgauge_request_duration_seconds_count', { operation: 'listFlows' })).toBe(one.ops.listFlows?.latencyMs.count);
      expect(sumOf(series, 'flowgauge_sli_events_total', { sli: 'good' })).toBe(one.slo.good);
      expect(sumOf(series, 'flowgauge_scheduled_total')).toBe(200);
      // Histogram buckets add across workers: +Inf holds every request once.
      expect(sumOf(series, 'flowgauge_request_duration_seconds_bucket', { operation: 'listFlows', le: '+Inf' })).toBe(200);

      const traces = received.filter((r) => r.method === 'POST' && r.url === '/v1/traces').map((r) => r.body);
      expect(spanCount(traces)).toBe(200);
      for (const r of received) expect(r.body + r.url).not.toContain(TOKEN);
    } finally {
      await new Promise<void>((r) => sink.close(() => r()));
    }
  }, RUN_GUARD_MS);

  it('serves the combined series at /metrics and feeds one live dashboard during the run', async () => {
    const out = join(dir, 'live');
    const { io, done } = start([scenario('live', '100/s', '4s'), '--workers', '2', '--metrics-port', '0', '--dashboard', '0'], out);
    const messages: DashboardMessage[] = [];
    let scraped = 0;
    try {
      await until(() => /live dashboard at (\S+)/.test(io.out()) && /Prometheus metrics at (\S+)/.test(io.out()), 'the servers to start');
      const dashboard = /live dashboard at (\S+)/.exec(io.out())?.[1] as string;
      const metrics = /Prometheus metrics at (\S+)/.exec(io.out())?.[1] as string;
      expect(io.out()).toContain("2 workers' series combined");
      const feed = await fetch(new URL('/events', dashboard));
      const parser = createParser({ onEvent: (e) => messages.push(JSON.parse(e.data) as DashboardMessage) });
      const reading = (async () => {
        const decoder = new TextDecoder();
        for await (const chunk of feed.body as AsyncIterable<Uint8Array>) {
          parser.feed(decoder.decode(chunk, { stream: true }));
          if (messages.some((m) => m.type === 'end')) break;
        }
      })();
      // Scrape until both workers' requests show (their snapshots come about once a second).
      const scraping = (async () => {
        while (scraped < 150) {
          const text = await (await fetch(metrics)).text();
          scraped = sumOf(parseExposition(text), 'flowgauge_requests_total');
          await new Promise((r) => setTimeout(r, 50));
        }
      })();
      await scraping;
      expect(await done).toBe(0);
      await reading;
    } finally {
      await done.catch(() => undefined);
    }
    const report = reportAt(out);
    expect(scraped).toBeGreaterThanOrEqual(150);
    expect(scraped).toBeLessThanOrEqual(report.ops.listFlows?.count ?? 0);
    expect(messages[0]).toMatchObject({ type: 'start', name: 'live', scenarios: ['live'] });
    const ticks = messages.filter((m): m is Extract<DashboardMessage, { type: 'tick' }> => m.type === 'tick');
    expect(ticks.length).toBeGreaterThanOrEqual(2);
    // Windows of both workers merged: a tick's rate is the run's (100/s), not one worker's 50/s.
    expect(Math.max(...ticks.map((t) => t.rps))).toBeGreaterThan(70);
    expect(ticks.some((t) => t.p50Ms > 0)).toBe(true);
    expect(messages.at(-1)).toMatchObject({ type: 'end', requests: report.slo.good + report.slo.bad + report.slo.excluded });
  }, RUN_GUARD_MS);
});
