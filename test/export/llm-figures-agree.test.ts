/**
 * The LLM figures (TTFT, ITL, TPOT, output tokens/s, bursts) agree in report.json, the console and
 * the Prometheus metrics, against a stream target whose schedule is known exactly: 5 tokens 30 ms
 * apart, `end` 5 ms after the last, and every fourth stream a burst of 20 tokens in one write (a
 * buffering proxy), `end` 5 ms after it, which would read 4,000 tokens/s if it counted. Run
 * through the CLI (`main`, as `flowgauge run` does); the metrics are the run's last Pushgateway
 * push (the registry's final exposition).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { fmtDuration, fmtNumber, type Report } from '../../src/report/index.js';
import { RUN_METRICS } from '../../src/slo/metric-names.js';
import { startScheduledStreamServer, type ScheduledStreamServer } from '../helpers/scheduled-stream-server.js';
import { parseExposition, sumOf } from './helpers/exposition.js';

const TOKENS = 5;
let dir = '';
let sink: Server;
let sinkUrl = '';
let target: ScheduledStreamServer;
const pushes: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-llm-agree-'));
  sink = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.method === 'PUT') pushes.push(body);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  sinkUrl = `http://127.0.0.1:${(sink.address() as { port: number }).port}`;
  target = await startScheduledStreamServer({ tokens: TOKENS, gapMs: 30, endMs: 5, burstEvery: 4, burstTokens: 20, burstAfterMs: 40 });
});

afterAll(async () => {
  await target?.close();
  await new Promise<void>((r) => sink.close(() => r()));
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

/** Within HDR's 3 significant digits (a mean of bucket midpoints against a sum of exact values). */
const near = (got: number, want: number): void => expect(Math.abs(got - want)).toBeLessThanOrEqual(Math.abs(want) * 0.002 + 1e-9);

describe('TTFT, ITL, TPOT, output tokens/s and bursts in report.json, the console and /metrics', () => {
  it('agree, and leave the bursts out of ITL, TPOT and tokens/s in all three', async () => {
    const scenario = join(dir, 'llm.json');
    writeFileSync(
      scenario,
      JSON.stringify({ name: 'llm', tier: 'pro', load: { executor: 'constant-arrival-rate', rate: '10/s', duration: '2s' }, mix: [{ op: 'stream', input: 'hello' }] }),
    );
    const io = memoryIo({ cwd: dir });
    const code = await main(['run', scenario, '--base-url', target.baseUrl, '--token', 't', '--out', join(dir, 'out'), '--quiet', '--no-audit', '--pushgateway', sinkUrl], io);
    expect([0, 1], io.err()).toContain(code);
    const r = JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8')) as Report;
    const s = r.stream;

    // The truth the target knows: every stream it answered, every token and burst it sent.
    expect(target.sent.streams).toBe(20);
    expect(target.sent.bursts).toBe(5);
    expect(s.count).toBe(target.sent.streams);
    expect(s.completed).toBe(s.count);
    expect(s.tokens).toBe(target.sent.tokens);
    // A client stalled past a whole paced stream would read it in one go too: at least the bursts sent.
    const atOnce = s.deliveredAtOnce ?? -1;
    expect(atOnce).toBeGreaterThanOrEqual(target.sent.bursts);
    const streamed = s.count - atOnce;
    expect(streamed).toBeGreaterThan(0);
    expect(s.ttftMs.count).toBe(s.count);
    expect(s.itlMs.count).toBe(streamed * (TOKENS - 1));
    expect(s.tpotMs.count).toBe(streamed);
    expect(s.tokensPerS.count).toBe(streamed);

    // /metrics: the same populations, and the same values within HDR's precision.
    const last = pushes.at(-1);
    if (last === undefined) throw new Error('nothing was pushed');
    const series = parseExposition(last);
    const m = (name: string): number => sumOf(series, name);
    expect(m(`${RUN_METRICS.streamTtft.name}_count`)).toBe(s.ttftMs.count);
    expect(m(`${RUN_METRICS.streamItl.name}_count`)).toBe(s.itlMs.count);
    expect(m(`${RUN_METRICS.streamTpot.name}_count`)).toBe(s.tpotMs.count);
    expect(m(`${RUN_METRICS.streamTokensPerSecond.name}_count`)).toBe(s.tokensPerS.count);
    expect(m(RUN_METRICS.streamTokens.name)).toBe(s.tokens);
    near(m(`${RUN_METRICS.streamTpot.name}_sum`), (s.tpotMs.mean / 1000) * s.tpotMs.count);
    near(m(`${RUN_METRICS.streamTokensPerSecond.name}_sum`), s.tokensPerS.mean * s.tokensPerS.count);
    near(m(`${RUN_METRICS.streamItl.name}_sum`), (s.itlMs.mean / 1000) * s.itlMs.count);

    // The console: the report's figures, as the summary formats them, and the bursts named.
    const out = io.out();
    expect(out).toContain(`TTFT p50 ${fmtDuration(s.ttftMs.p50)} p99 ${fmtDuration(s.ttftMs.p99)}; ITL p50 ${fmtDuration(s.itlMs.p50)} p99 ${fmtDuration(s.itlMs.p99)}`);
    expect(out).toContain(`TPOT p50 ${fmtDuration(s.tpotMs.p50)} p99 ${fmtDuration(s.tpotMs.p99)}`);
    expect(out).toContain(`output tokens/s per stream p50 ${fmtNumber(s.tokensPerS.p50)} p99 ${fmtNumber(s.tokensPerS.p99)} mean ${fmtNumber(s.tokensPerS.mean)}`);
    expect(out).toContain(`bursts  ${atOnce} of ${s.count} streams delivered all their tokens in one read`);
  }, 60_000);
});
