import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import {
  createClientMeasure,
  describeCapacity,
  judgeStep,
  renderCapacityAscii,
  renderCapacityHtml,
  renderCapacityMarkdown,
  renderCapacityTable,
  sweepCapacity,
  type StepMeasurement,
  type StepStreamFigures,
} from '../../src/capacity/index.js';
import type { Pct } from '../../src/collect/histogram.js';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { OpName } from '../../src/core/ops.js';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { createRecentIds } from '../../src/run/recent-ids.js';
import { resolveScenario } from '../../src/scenario/index.js';
import { startScheduledStreamServer } from '../helpers/scheduled-stream-server.js';

/** A fake target: latency and errors as functions of concurrency; records what was measured. */
function fakeTarget(shape: (c: number) => Partial<StepMeasurement>) {
  const seen: number[] = [];
  const measure = async (c: number): Promise<StepMeasurement> => {
    seen.push(c);
    const rate = Math.min(c * 100, 1000);
    return { concurrency: c, requests: rate * 5, requestsPerS: rate, goodPerS: rate, p50Ms: 1, p99Ms: 10, errorRatio: 0, ratio429: 0, ...shape(c) };
  };
  return { seen, measure };
}

const OBJ = { p99Ms: 200, maxErrorRatio: 0.01 };

describe('sweepCapacity', () => {
  it('doubles until the latency objective breaks, then bisects to the edge', async () => {
    const t = fakeTarget((c) => ({ p99Ms: 10 * c }));
    const r = await sweepCapacity({ ...OBJ, measure: t.measure });
    expect(t.seen).toEqual([1, 2, 4, 8, 16, 32, 24, 20, 22]);
    expect(r.stoppedBy).toBe('latency');
    expect(r.firstBad?.concurrency).toBe(22);
    expect(r.steps.filter((s) => s.meets).map((s) => s.concurrency)).toEqual([1, 2, 4, 8, 16, 20]);
    // 16 and 20 both reach the 1000/s plateau: the first (lower concurrency) is kept.
    expect(r.best?.concurrency).toBe(16);
    expect(r.best?.goodPerS).toBe(1000);
    expect(r.steps.slice(6).every((s) => s.phase === 'bisect')).toBe(true);
  });

  it('picks the step with the most good throughput, not the highest concurrency', async () => {
    // Throughput falls past 8 (contention) while latency still meets the objective.
    const t = fakeTarget((c) => ({ goodPerS: c <= 8 ? c * 100 : 800 - (c - 8) * 10, p99Ms: c > 40 ? 500 : 50 }));
    const r = await sweepCapacity({ ...OBJ, measure: t.measure });
    expect(r.best?.concurrency).toBe(8);
    expect(r.stoppedBy).toBe('latency');
  });

  it('stops at rate limiting without bisecting when 429s dominate the failures', async () => {
    const t = fakeTarget((c) => (c >= 8 ? { errorRatio: 0.5, ratio429: 0.5, goodPerS: 400 } : {}));
    const r = await sweepCapacity({ ...OBJ, measure: t.measure });
    expect(t.seen).toEqual([1, 2, 4, 8]);
    expect(r.stoppedBy).toBe('rate-limit');
    expect(r.best?.concurrency).toBe(4);
  });

  it('stops at service capacity when other errors break the error objective', async () => {
    const t = fakeTarget((c) => (c >= 4 ? { errorRatio: 0.05, ratio429: 0.001 } : {}));
    const r = await sweepCapacity({ ...OBJ, measure: t.measure });
    expect(r.stoppedBy).toBe('errors');
    expect(t.seen).toEqual([1, 2, 4, 3]);
    expect(r.best?.concurrency).toBe(3);
    expect(r.firstBad?.concurrency).toBe(4);
  });

  it('reports max-concurrency when every step meets the objectives, ending exactly at the maximum', async () => {
    const t = fakeTarget(() => ({}));
    const r = await sweepCapacity({ ...OBJ, maxConcurrency: 20, measure: t.measure });
    expect(t.seen).toEqual([1, 2, 4, 8, 16, 20]);
    expect(r.stoppedBy).toBe('max-concurrency');
    expect(r.firstBad).toBeUndefined();
  });

  it('has no capacity when the first step already fails', async () => {
    const t = fakeTarget(() => ({ p99Ms: 999 }));
    const r = await sweepCapacity({ ...OBJ, startConcurrency: 2, measure: t.measure });
    expect(t.seen).toEqual([2]);
    expect(r.best).toBeUndefined();
    expect(describeCapacity(r, { op: 'run', ...OBJ })).toMatch(/^no concurrency met the objectives/);
  });

  it('rejects bad options before measuring anything', async () => {
    const t = fakeTarget(() => ({}));
    const bad = [{ p99Ms: 0 }, { maxErrorRatio: 1 }, { startConcurrency: 0 }, { maxConcurrency: 0 }, { startConcurrency: 1.5 }, { resolution: 0 }];
    for (const b of bad) await expect(sweepCapacity({ ...OBJ, measure: t.measure, ...b })).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(t.seen).toEqual([]);
  });

  it('calls onStep once per measured step, in order', async () => {
    const t = fakeTarget((c) => ({ p99Ms: 10 * c }));
    const order: number[] = [];
    await sweepCapacity({ ...OBJ, maxConcurrency: 64, measure: t.measure, onStep: (s) => order.push(s.concurrency) });
    expect(order).toEqual(t.seen);
  });
});

/** A percentile summary whose every percentile is `p50` up to p90 and `p95` from p95 on. */
const pctOf = (p50: number, p95: number, count = 100): Pct => ({ p50, p90: p50, p95, p99: p95, p999: p95, max: p95, mean: p50, count });

/** Stream figures of an LLM service that slows down with concurrency: TTFT and TPOT grow with it. */
function llm(c: number): StepStreamFigures {
  return { count: 100, deliveredAtOnce: 0, ttftMs: pctOf(40 * c, 60 * c), itlMs: pctOf(10 + c, 12 + c), tpotMs: pctOf(10 + c, 12 + c), tokensPerS: pctOf(80, 90), outputTokensPerS: 400 * Math.min(c, 16) };
}

describe('a sweep by the LLM objectives', () => {
  it('finds the knee by TTFT p95 with no request p99 objective, and names it', async () => {
    // Whole answers take seconds (p99 3 s): a request objective would stop at once; TTFT p95 is 60·c ms.
    const t = fakeTarget((c) => ({ p99Ms: 3000, stream: llm(c) }));
    const r = await sweepCapacity({ ttftP95Ms: 500, maxErrorRatio: 0.01, measure: t.measure });
    expect(r.stoppedBy).toBe('ttft');
    // 60·8 = 480 ms meets, 60·9 = 540 ms does not.
    expect(r.best?.concurrency).toBe(8);
    expect(r.firstBad?.concurrency).toBe(9);
    const o = { op: 'stream', ttftP95Ms: 500, maxErrorRatio: 0.01 };
    expect(describeCapacity(r, o)).toMatch(/at concurrency 8 \(p99 3000\.0 ms, TTFT p95 480\.0 ms, TPOT p95 20\.0 ms, 3200 output tokens\/s, errors 0\.0%; objectives TTFT p95 ≤ 500 ms, errors ≤ 1\.0%\); stopped by service capacity: TTFT p95 reached 540\.0 ms at concurrency 9$/);
  });

  it('finds the knee by TPOT p95 when TTFT still meets its objective', async () => {
    const t = fakeTarget((c) => ({ goodPerS: 10 * c, stream: llm(c) }));
    const r = await sweepCapacity({ ttftP95Ms: 10_000, tpotP95Ms: 30, maxErrorRatio: 0.01, measure: t.measure });
    // TPOT p95 is 12 + c ms: 18 meets, 19 does not.
    expect(r.stoppedBy).toBe('tpot');
    expect(r.best?.concurrency).toBe(18);
    expect(r.firstBad?.concurrency).toBe(19);
    expect(describeCapacity(r, { op: 'stream', ttftP95Ms: 10_000, tpotP95Ms: 30, maxErrorRatio: 0.01 })).toMatch(/stopped by service capacity: TPOT p95 reached 31\.0 ms at concurrency 19$/);
  });

  it('refuses a sweep with no latency objective, and a stream objective without streams is not met', async () => {
    const t = fakeTarget(() => ({}));
    await expect(sweepCapacity({ maxErrorRatio: 0.01, measure: t.measure })).rejects.toThrow(/a latency objective is needed/);
    await expect(sweepCapacity({ tpotP95Ms: -1, maxErrorRatio: 0.01, measure: t.measure })).rejects.toBeInstanceOf(InvalidArgumentError);
    const m: StepMeasurement = { concurrency: 1, requests: 10, requestsPerS: 10, goodPerS: 10, p50Ms: 1, p99Ms: 1, errorRatio: 0, ratio429: 0 };
    expect(judgeStep(m, { ttftP95Ms: 500, maxErrorRatio: 0.01 })).toBe('ttft');
    expect(judgeStep({ ...m, stream: { ...llm(1), tpotMs: pctOf(0, 0, 0) } }, { tpotP95Ms: 50, maxErrorRatio: 0.01 })).toBe('tpot');
    expect(judgeStep({ ...m, stream: llm(1) }, { ttftP95Ms: 500, tpotP95Ms: 50, maxErrorRatio: 0.01 })).toBeUndefined();
  });

  it('charts TTFT, TPOT, ITL and output tokens/s per step in the table, capacity.md and capacity.html', async () => {
    const t = fakeTarget((c) => ({ stream: llm(c) }));
    const r = await sweepCapacity({ ttftP95Ms: 500, maxErrorRatio: 0.01, maxConcurrency: 8, measure: t.measure });
    const o = { op: 'stream', ttftP95Ms: 500, maxErrorRatio: 0.01 };
    const table = renderCapacityTable(r).split('\n');
    expect(table[0]).toMatch(/^conc\s+phase\s+req\/s\s+good\/s\s+p50 ms\s+p99 ms\s+ttft p50\s+ttft p95\s+tpot p50\s+tpot p95\s+itl p95\s+out tok\/s\s+errors\s+429s\s+verdict$/);
    // Concurrency 4: TTFT 160/240 ms, TPOT 14/16 ms, ITL p95 16 ms, 1,600 output tokens/s.
    expect(table.find((l) => l.startsWith('4 '))).toMatch(/^4\s+double\s+400\s+400\s+1\.0\s+10\.0\s+160\.0\s+240\.0\s+14\.0\s+16\.0\s+16\.0\s+1600\s+0\.0%\s+0\.0%\s+ok$/);
    const md = renderCapacityMarkdown(r, o, 'sub');
    expect(md).toContain('| conc | phase | req/s | good/s | p50 ms | p99 ms | ttft p50 | ttft p95 | tpot p50 | tpot p95 | itl p95 | out tok/s | errors | 429s | verdict |');
    expect(md).toContain('| 4 | double | 400 | 400 | 1.0 | 10.0 | 160.0 | 240.0 | 14.0 | 16.0 | 16.0 | 1600 | 0.0% | 0.0% | ok |');
    expect(md).toContain(describeCapacity(r, o));
    const html = renderCapacityHtml(r, o, 'sub');
    expect(html.match(/<svg /g)).toHaveLength(3);
    for (const label of ['good requests/s', 'p99 latency', 'output tokens/s', 'TTFT p50', 'TTFT p95', 'TPOT p50', 'TPOT p95', 'ITL p95', 'objective: TTFT p95 500 ms']) expect(html).toContain(`>${label}</text>`);
    expect(html).not.toMatch(/<script|src=|href=/);
    // A sweep of another operation has neither the LLM columns nor their charts.
    const plain = await sweepCapacity({ ...OBJ, measure: fakeTarget((c) => ({ p99Ms: 10 * c })).measure });
    expect(renderCapacityTable(plain)).not.toContain('ttft');
    expect(renderCapacityHtml(plain, { op: 'run', ...OBJ }, 'sub').match(/<svg /g)).toHaveLength(1);
  });
});

describe('judgeStep', () => {
  const m: StepMeasurement = { concurrency: 1, requests: 100, requestsPerS: 10, goodPerS: 10, p50Ms: 1, p99Ms: 10, errorRatio: 0, ratio429: 0 };
  it('names the broken objective, errors before latency, 429-dominated errors as rate limiting', () => {
    const o = { p99Ms: 200, maxErrorRatio: 0.01 };
    expect(judgeStep(m, o)).toBeUndefined();
    expect(judgeStep({ ...m, p99Ms: 300 }, o)).toBe('latency');
    expect(judgeStep({ ...m, p99Ms: 300, errorRatio: 0.4, ratio429: 0.3 }, o)).toBe('rate-limit');
    expect(judgeStep({ ...m, errorRatio: 0.4, ratio429: 0.1 }, o)).toBe('errors');
    expect(judgeStep({ ...m, errorRatio: 0.01 }, o)).toBeUndefined();
  });
});

describe('capacity rendering', () => {
  it('draws the table, the ASCII chart and a self-contained HTML page with the verdict', async () => {
    const t = fakeTarget((c) => ({ p99Ms: 10 * c }));
    const r = await sweepCapacity({ ...OBJ, measure: t.measure });
    const o = { op: 'getFlow<x>', ...OBJ };
    expect(renderCapacityTable(r).trimEnd().split('\n')).toHaveLength(r.steps.length + 1);
    const ascii = renderCapacityAscii(r);
    expect(ascii.trimEnd().split('\n')).toHaveLength(r.steps.length + 1);
    expect(ascii).toMatch(/22 │.*✗ latency/);
    const html = renderCapacityHtml(r, o, 'GET http://127.0.0.1/v1');
    expect(html).toContain('<svg');
    expect(html).toContain('getFlow&lt;x&gt;');
    expect(html).not.toMatch(/<script|src=|href=/);
    expect(describeCapacity(r, o)).toMatch(/1000 good requests\/s at concurrency 16.*stopped by service capacity: p99 reached 220\.0 ms at concurrency 22/);
  });

  it('says rate limiting, with the advertised limit, when 429s stopped the sweep', async () => {
    const t = fakeTarget((c) => (c >= 4 ? { errorRatio: 0.9, ratio429: 0.9 } : {}));
    const r = await sweepCapacity({ ...OBJ, measure: t.measure });
    expect(describeCapacity(r, { op: 'run', ...OBJ, advertisedLimit: 1000 })).toMatch(/stopped by rate limiting: 429s were 90\.0% .*1000 requests per window/);
  });
});

describe('client measurement: answers judged as the run judges them', () => {
  const FLOW = { id: 'flow_1', name: 'f', description: 'd', status: 'published', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z', endpoint: 'http://127.0.0.1/v1/flows/flow_1/run' };
  const FLOWS = JSON.stringify({ flows: [FLOW], total: 1, limit: 20, offset: 0 });
  const SPACES = Buffer.alloc(100 * 2 ** 20, 0x20);
  let server: Server;
  let port = 0;
  let mode = 'ok';
  let hits = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits++;
      req.resume();
      req.on('end', () => {
        if (mode === 'throttle' && hits % 3 === 0) return res.writeHead(429, { 'content-type': 'application/json' }).end('{"error":{"code":"RATE_LIMITED","message":"slow"}}');
        if (mode === 'ok' || mode === 'throttle') return res.writeHead(200, { 'content-type': 'application/json' }).end(FLOWS);
        if (mode === 'wrong-shape') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"items":[1,2,3]}');
        if (mode === 'json-to-stream') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'run_1', status: 'completed', output: 'x' }));
        if (mode === 'spaces') return res.writeHead(200, { 'content-type': 'application/json' }).end(SPACES);
        if (mode === 'sse-line') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write('data: ');
          const piece = 'x'.repeat(1 << 20);
          let n = 0;
          const go = (): void => {
            while (n < 50 && !res.destroyed) {
              n++;
              if (!res.write(piece)) return;
            }
            if (n >= 50) res.end('\n\n');
          };
          res.on('drain', go);
          go();
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const addr = server.address();
    port = typeof addr === 'object' && addr !== null ? addr.port : 0;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  async function step(op: OpName, concurrency: number, durationS = 1, requestMs?: number): Promise<StepMeasurement> {
    const client = createClient({ baseUrl: `http://127.0.0.1:${port}/v1`, token: 't', connections: 4 });
    const entry = resolveScenario({ name: 'c', tier: { limitPerMinute: 1e9 }, load: { executor: 'constant-concurrency', concurrency: 1, duration: '1s' }, mix: [{ op }] }).mix[0];
    if (entry === undefined) throw new Error('no entry');
    try {
      return await createClientMeasure({ client, entry, targets: { defaultFlowId: 'flow_1', sessionId: undefined, runIds: createRecentIds() }, durationS, ...(requestMs !== undefined ? { requestMs } : {}) })(concurrency);
    } finally {
      await client.close();
    }
  }

  it('counts a healthy answer good, and a 429 as rate limiting', async () => {
    mode = 'ok';
    const ok = await step('listFlows', 2);
    expect(ok.requests).toBeGreaterThan(10);
    expect(ok.errorRatio).toBe(0);
    expect(ok.goodPerS).toBeGreaterThan(0);
    mode = 'throttle';
    hits = 0;
    const m = await step('listFlows', 2);
    expect(m.ratio429).toBeGreaterThan(0.25);
    expect(m.ratio429).toBeLessThan(0.4);
    expect(m.errorRatio).toBeCloseTo(m.ratio429, 5);
    expect(judgeStep(m, { p99Ms: 1000, maxErrorRatio: 0.01 })).toBe('rate-limit');
  });

  it('measures a stream step as an LLM benchmark does: TTFT, ITL, TPOT, tokens/s, bursts apart, against a known schedule', async () => {
    const target = await startScheduledStreamServer({ tokens: 4, gapMs: 20, endMs: 2, burstEvery: 3, burstTokens: 12, burstAfterMs: 30 });
    const client = createClient({ baseUrl: target.baseUrl, token: 't', connections: 4 });
    const entry = resolveScenario({ name: 'c', tier: { limitPerMinute: 1e9 }, load: { executor: 'constant-concurrency', concurrency: 1, duration: '1s' }, mix: [{ op: 'stream' }] }).mix[0];
    try {
      if (entry === undefined) throw new Error('no entry');
      const m = await createClientMeasure({ client, entry, targets: { defaultFlowId: 'flow_1', sessionId: undefined, runIds: createRecentIds() }, durationS: 1 })(2);
      const st = m.stream;
      if (st === undefined) throw new Error('no stream figures');
      // The target's truth: every stream it answered was measured, every third one a burst.
      expect(target.sent.bursts).toBeGreaterThan(0);
      expect(st.count).toBe(target.sent.streams);
      expect(m.requests).toBe(target.sent.streams);
      expect(m.errorRatio).toBe(0);
      expect(st.deliveredAtOnce).toBeGreaterThanOrEqual(target.sent.bursts);
      const streamed = st.count - st.deliveredAtOnce;
      expect(st.ttftMs.count).toBe(st.count);
      expect(st.itlMs.count).toBe(streamed * 3);
      expect(st.tpotMs.count).toBe(streamed);
      expect(st.tokensPerS.count).toBe(streamed);
      // Output tokens per good stream: exactly the tokens sent over the streams sent.
      expect(st.outputTokensPerS / m.goodPerS).toBeCloseTo(target.sent.tokens / target.sent.streams, 9);
    } finally {
      await client.close();
      await target.close();
    }
  });

  it.each([
    ['a body of another shape', 'wrong-shape', 'listFlows', 'CONTRACT_VIOLATION'],
    ['a JSON answer to a stream request', 'json-to-stream', 'stream', 'STREAM_INCOMPLETE'],
    ['a 100 MB body of spaces', 'spaces', 'listFlows', 'MALFORMED_BODY'],
    ['a 50 MB event line', 'sse-line', 'stream', 'MALFORMED_BODY'],
  ] as const)('%s is bad, never good throughput', async (_name, m, op, why) => {
    mode = m;
    // The request deadline only guards a hang here: reading up to the 16 MiB cap must end on the
    // cap (MALFORMED_BODY), not on the step's 1 s deadline, which a starved machine reached first.
    const s = await step(op, 1, 1, 40_000);
    expect(s.requests).toBeGreaterThan(0);
    expect(s.goodPerS).toBe(0);
    expect(s.errorRatio).toBe(1);
    expect(Object.keys(s.bad ?? {})).toContain(why);
  }, 90_000);
});

describe('capacity stream flags', () => {
  it.each([
    [['listFlows', '--ttft-p95', '500ms'], /--ttft-p95 judges streams: it applies to `capacity stream`, not listFlows/],
    [['run', '--tpot-p95', '50ms'], /--tpot-p95 judges streams: it applies to `capacity stream`, not run/],
    [['stream', '--ttft-p95', 'soon'], /--ttft-p95 "soon" is not/],
    [['stream', '--tpot-p95', '0ms'], /--tpot-p95 "0ms" is not/],
  ])('capacity %j is bad input (exit 2), before any request', async (args, message) => {
    const io = memoryIo({ cwd: process.cwd() });
    expect(await main(['capacity', ...args, '--base-url', 'http://127.0.0.1:9/v1', '--token', 't'], io)).toBe(2);
    expect(io.err()).toMatch(message);
  });
});
