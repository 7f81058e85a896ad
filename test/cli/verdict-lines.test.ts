/**
 * The lines a person reads first, through `main`: an interrupted run is INTERRUPTED in the
 * console, report.md and report.json; an aborted run's console and report.md name the threshold;
 * a throttled closed-model run's console shows the excluded share and says it measured the limiter;
 * streams whose tokens all arrive together are said not to have been streamed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { Report } from '../../src/report/model.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';

let dir: string;
let service: ReferenceService;
const TOKEN = 'fg_verdict_lines_token';
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-cli-verdict-'));
  service = await startReferenceService({ latency: 'none', tokens: { [TOKEN]: { account: 'acct_v', tier: { limitPerMinute: 30 } } } });
});
afterAll(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

function scenario(name: string, body: Record<string, unknown>): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify({ name, tier: 'pro', mix: [{ op: 'listFlows', weight: 1 }], ...body }));
  return path;
}

const read = (out: string, f: string): string => readFileSync(join(dir, out, f), 'utf8');

describe('verdict lines through the CLI', () => {
  it('an interrupted run is INTERRUPTED in the console, report.md and report.json, exit 130', async () => {
    const file = scenario('long', { load: { executor: 'constant-arrival-rate', rate: '50/s', duration: '60s' } });
    // A terminal, so the progress line shows once the load is running (a stop before that is no run).
    const io = memoryIo({ cwd: dir, isTTY: true });
    const running = main(['run', file, '--out', join(dir, 'int'), '--no-audit'], io);
    const t0 = Date.now();
    while (!/\d+s\/60s/.test(io.out()) && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 20));
    // The run's own SIGINT listener is what a Ctrl-C reaches; emitting the event calls it in-process.
    process.emit('SIGINT', 'SIGINT');
    expect(await running).toBe(130);
    const out = io.out().replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
    const first = out.split(/[\r\n]/).find((l) => l.startsWith('flowgauge long:'));
    expect(first).toMatch(/^flowgauge long: INTERRUPTED in /);
    expect(out).toMatch(/interrupted after \d+\.\d s: this report covers only the part that ran/);
    expect(out).not.toMatch(/PASS/);
    expect(read('int', 'report.md')).toContain('## ⏹️ INTERRUPTED');
    expect((JSON.parse(read('int', 'report.json')) as Report).verdict).toBe('INTERRUPTED');
  });

  it('an aborted run names the threshold in the console and report.md', async () => {
    const file = scenario('abort', {
      load: { executor: 'constant-arrival-rate', rate: '50/s', duration: '30s' },
      thresholds: { 'listFlows.latency.p99': { expr: '< 0.001ms', abortOnFail: true } },
    });
    const io = memoryIo({ cwd: dir });
    const code = await main(['run', file, '--out', join(dir, 'abort'), '--quiet', '--no-audit'], io);
    expect(code, io.err()).toBe(1);
    expect(io.out()).toMatch(/^flowgauge abort: ABORTED in /m);
    expect(io.out()).toMatch(/^ABORTED by listFlows\.latency\.p99 < \S+ \(abortOnFail\) after \d+\.\d s$/m);
    expect(read('abort', 'report.md')).toMatch(/ABORTED by listFlows\.latency\.p99 < \S+ \(abortOnFail\) after \d+\.\d s/);
  });

  it('a throttled closed-model run shows the excluded share and says it measured the limiter', async () => {
    const file = scenario('throttled', { tier: { limitPerMinute: 30 }, load: { executor: 'constant-concurrency', concurrency: 4, duration: '1s' } });
    const io = memoryIo({ cwd: dir });
    const code = await main(['run', file, '--base-url', service.baseUrl, '--token', TOKEN, '--out', join(dir, 'thr'), '--quiet', '--no-audit'], io);
    expect([0, 1], io.err()).toContain(code);
    const report = JSON.parse(read('thr', 'report.json')) as Report;
    const ops = report.ops.listFlows!;
    expect(ops.excluded / ops.count).toBeGreaterThan(0.5);
    const share = ((ops.excluded / ops.count) * 100).toFixed(1);
    expect(io.out()).toMatch(/^op\s+count\s+ok\s+excluded\s+429/m);
    expect(io.out()).toMatch(new RegExp(`^listFlows\\s+${ops.count}\\s+\\S+\\s+${ops.excluded} \\(${share.replace('.', '\\.')}%\\)\\s+\\d+`, 'm'));
    expect(io.out()).toMatch(/\d+\.\d % of requests were rate-limited: the run measured the limiter, not the service/);
    // The service's own 429s carry its headers: no one else is blamed.
    expect(report.rateLimit.headerless429).toBe(0);
    expect(io.out()).not.toContain('no X-RateLimit headers');
  });

  it('streams whose whole answer arrives in one piece are said not to have been streamed; paced ones are not', async () => {
    const file = scenario('whole', { mix: [{ op: 'stream' }], load: { executor: 'constant-arrival-rate', rate: '20/s', duration: '500ms' } });
    // latency "none": the service writes every token of an answer at once.
    const whole = await startReferenceService({ latency: 'none' });
    const paced = await startReferenceService({ latency: { ttftMs: 5, itlMs: 15, jitter: 0, tokens: { min: 4, max: 4 } } });
    try {
      const io = memoryIo({ cwd: dir });
      expect(await main(['run', file, '--base-url', whole.baseUrl, '--token', whole.tokens.pro, '--out', join(dir, 'whole'), '--quiet', '--no-audit'], io), io.err()).toBe(0);
      const r = JSON.parse(read('whole', 'report.json')) as Report;
      expect(r.stream.count).toBe(10);
      expect(r.stream.deliveredAtOnce).toBe(10);
      expect(io.out()).toContain('10 of 10 streams delivered all their tokens at once: the answer was not streamed to flowgauge');
      // Bursts are no figures of generation: none of their gaps, TPOT or rate is in the percentiles.
      expect(r.stream.ttftMs.count).toBe(10);
      expect([r.stream.itlMs.count, r.stream.tpotMs.count, r.stream.tokensPerS.count]).toEqual([0, 0, 0]);
      expect(io.out()).toContain('bursts  10 of 10 streams delivered all their tokens in one read');
      // One that paces its tokens 15 ms apart is measured as streamed (a starved client may bunch
      // a stream's tokens now and then, which is why the note needs half of them).
      const io2 = memoryIo({ cwd: dir });
      expect(await main(['run', file, '--base-url', paced.baseUrl, '--token', paced.tokens.pro, '--out', join(dir, 'paced'), '--quiet', '--no-audit'], io2), io2.err()).toBe(0);
      const p = JSON.parse(read('paced', 'report.json')) as Report;
      expect(p.stream.count).toBe(10);
      expect(p.stream.deliveredAtOnce).toBeLessThan(5);
      expect(io2.out()).not.toContain('tokens at once');
    } finally {
      await whole.close();
      await paced.close();
    }
  });
});
