/**
 * The generator's own limits, said in the report: a pool too small for the scenario shows as
 * `blocked` time and a POOL_SATURATED warning naming --connections; the default pool (sized from
 * the scenario) blocks nobody. And a scenario's per-operation deadline cuts a stream that never
 * ends: TIMEOUT, an incomplete stream, and the default objective fails.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { Report } from '../../src/report/index.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-pool-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function scenario(name: string, body: Record<string, unknown>): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify({ name, tier: 'pro', ...body }));
  return path;
}

async function run(args: string[]): Promise<{ code: number; out: string; report: Report }> {
  const out = join(dir, `out-${Math.random().toString(36).slice(2)}`);
  const io = memoryIo({ cwd: dir });
  const code = await main(['run', ...args, '--quiet', '--out', out], io);
  return { code, out: io.out(), report: JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report };
}

describe('the client pool', () => {
  const streams = { load: { executor: 'constant-concurrency', concurrency: 300, duration: '1500ms' }, mix: [{ op: 'stream' }], thresholds: {} };

  it('is sized from the scenario by default: 300 concurrent streams each get a connection, none waits', async () => {
    const { code, report } = await run([scenario('pool-default', streams)]);
    expect(code).toBe(0);
    const phases = report.ops.stream?.phases;
    expect(phases?.blockedMs.count).toBeGreaterThanOrEqual(300);
    // Nothing queued: blocked is the code between the call and the write. The 300 start at once,
    // so the last waits for the CPU time of the starts before it (a few ms on a busy machine);
    // one queued for a connection waits for a whole stream, hundreds of ms (the next test).
    expect(phases?.blockedMs.p99).toBeLessThan(25);
    expect(phases?.connectMs.max).toBeGreaterThan(0);
    expect(report.warnings?.map((w) => w.code) ?? []).not.toContain('POOL_SATURATED');
  });

  it('capped by --connections 8: blocked p50 above 100 ms, a POOL_SATURATED warning, and the summary names --connections', async () => {
    const { code, out, report } = await run([scenario('pool-capped', streams), '--connections', '8']);
    expect(code).toBe(0);
    const phases = report.ops.stream?.phases;
    expect(phases?.blockedMs.p50).toBeGreaterThan(100);
    // The time went to waiting for a connection, not to the service.
    expect(phases?.blockedMs.p50).toBeGreaterThan(phases?.waitMs.p50 ?? Infinity);
    const warning = report.warnings?.find((w) => w.code === 'POOL_SATURATED');
    expect(warning?.message).toMatch(/--connections/);
    expect(out).toMatch(/WARNING POOL_SATURATED: .*--connections/);
    expect(out).toMatch(/phases p50\/p95\s+blocked\s+connect\s+tls\s+wait\s+receive/);
  });
});

describe('a scenario deadline', () => {
  let server: Server;
  let baseUrl = '';
  const open = new Set<ServerResponse>();
  beforeAll(async () => {
    // Flows to prepare with, and streams that send a token every 20 ms and never end.
    server = createServer((req, res) => {
      if (req.method === 'GET' && req.url?.startsWith('/v1/flows') === true) {
        const flow = { id: 'flow_1', name: 'f', description: '', status: 'published', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ flows: [flow], total: 1 }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ type: 'start', run_id: 'run_1' })}\n\n`);
      const t = setInterval(() => res.write(`data: ${JSON.stringify({ type: 'token', content: 'x' })}\n\n`), 20);
      open.add(res);
      res.on('close', () => {
        clearInterval(t);
        open.delete(res);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    for (const r of open) r.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('cuts a stream that never ends at timeouts.stream: TIMEOUT, incomplete, and the default objective fails (exit 1)', async () => {
    const path = scenario('never-ends', { load: { executor: 'constant-concurrency', concurrency: 2, duration: '1s' }, mix: [{ op: 'stream' }], timeouts: { stream: '200ms' } });
    const { code, report } = await run([path, '--base-url', baseUrl, '--token', 'fg_test_token_0123456789', '--no-audit']);
    expect(code).toBe(1);
    const s = report.ops.stream;
    expect(s?.errors.TIMEOUT).toBeGreaterThanOrEqual(4);
    expect(s?.errors.TIMEOUT).toBe(s?.bad);
    expect(report.stream.incomplete).toBe(report.stream.count);
    expect(report.stream.tokens).toBeGreaterThan(0);
    // Cut at its own deadline, long before the run's: each stream lasted about 200 ms.
    expect(s?.latencyMs.max).toBeLessThan(1000);
  });

  it('refuses an unknown operation in timeouts, naming the allowed keys (exit 2)', async () => {
    const path = scenario('bad-timeouts', { load: { rate: '1/s', duration: '1s' }, mix: [{ op: 'stream' }], timeouts: { strem: '1s' } });
    const io = memoryIo({ cwd: dir });
    expect(await main(['run', path], io)).toBe(2);
    expect(io.err()).toMatch(/timeouts.*allowed: request, run, stream/);
  });
});
