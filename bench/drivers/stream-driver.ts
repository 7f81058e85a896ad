/**
 * Streaming generators (a child of bench/run.ts), `--mode flowgauge` or `--mode bare`:
 *
 * - flowgauge: the closed-model executor, the client's `stream()` (chunks stamped on arrival,
 *   events decoded, stream state kept) and the full collectors (TTFT, ITL, TPOT, tokens/s
 *   histograms), as a run does. Also the TTFT error: the client's arrival stamp of the first
 *   token against the server's own send stamp (`sent_ns`, CLOCK_MONOTONIC; the client's clock
 *   is tied to it once through a paired reading).
 * - bare: undici `request()` + eventsource-parser + `JSON.parse` of each event, counting tokens,
 *   with no timing at all: the floor a streaming client cannot go below.
 * - floor: the least a client can do to stamp a first token: raw keep-alive sockets, a prebuilt
 *   request, one `performance.now()` per read and a substring search for the send stamp. Its
 *   TTFT error is what the machine itself (scheduling, loopback) costs any user-space tool.
 *
 * Both start `--concurrency` streams and keep that many open for `--duration-s`, then let the
 * open ones finish; tokens/s = tokens received / elapsed. Measured after a warm-up pass on
 * the same connections.
 */
import { connect } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createParser } from 'eventsource-parser';
import { Pool } from 'undici';
import { createClient, errorCodeOf } from '../../src/api/index.js';
import { createCollectors } from '../../src/collect/index.js';
import { createSystemClock, NS_PER_S } from '../../src/core/clock.js';
import type { RequestSample } from '../../src/core/types.js';
import { createExecutor } from '../../src/load/index.js';
import { STARTS_AT_ONCE, STARTS_PER_SECOND } from '../../src/load/closed-executor.js';
import { flag, numFlag, printResult } from '../lib/args.js';
import { percentiles } from '../lib/stats.js';

const baseUrl = flag('base-url', 'http://127.0.0.1:8080/v1');
const mode = flag('mode', 'flowgauge');
const concurrency = numFlag('concurrency', 200);
const durationS = numFlag('duration-s', 10);
const warmupS = numFlag('warmup-s', 2);
const FLOW = 'flow_bench';
const body = { input: 'Stream a benchmark answer.' };

/** A simultaneous reading of the client clock (ns) and CLOCK_MONOTONIC (bigint ns). */
function pairedReading(): { perfNs: number; hr: bigint } {
  let best = { perfNs: 0, hr: 0n, spread: Infinity };
  for (let i = 0; i < 50; i++) {
    const a = process.hrtime.bigint();
    const p = performance.now() * 1e6;
    const b = process.hrtime.bigint();
    const spread = Number(b - a);
    if (spread < best.spread) best = { perfNs: p, hr: a + (b - a) / 2n, spread };
  }
  return best;
}

const client = createClient({ baseUrl, token: 'fg_bench_token', connections: concurrency });

async function flowgauge(seconds: number): Promise<Record<string, unknown>> {
  const clock = createSystemClock();
  const t0 = clock.nowNs();
  // The TTFT error counts streams started once every worker runs, and after the first second:
  // the start of a closed run is a burst no steady load has (a few hundred streams at once, then
  // the executor's ramp of STARTS_PER_SECOND). The streams started before are reported apart.
  const rampS = Math.max(0, concurrency - STARTS_AT_ONCE) / STARTS_PER_SECOND;
  const steadyNs = t0 + Math.max(Math.min(1, seconds / 4), rampS) * NS_PER_S;
  const openingErrorsMs: number[] = [];
  // The event loop from the start until the first `concurrency` streams (one per worker, as the
  // ramp starts them) have their first event.
  const opening = monitorEventLoopDelay({ resolution: 1 });
  opening.enable();
  let calls = 0;
  let headed = 0;
  let openingS: number | undefined;
  const collectors = createCollectors({ runStartNs: t0 });
  const ref = pairedReading();
  const ttftErrorsMs: number[] = [];
  // TTFT itself (first token's arrival − the call's start, a new connection's connect included), timed as the floor times it.
  const ttftsMs: number[] = [];
  const late: { atS: number; errMs: number }[] = [];
  // Event-loop delay while streaming: a stall shows here and in the TTFT error alike.
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const sample: RequestSample = {
    op: 'stream', flowId: FLOW, intendedNs: 0, startNs: 0, headersNs: undefined, endNs: 0, status: 0, errorCode: undefined,
    rateLimit: undefined, violations: [], negative: false, runStatus: undefined, stream: undefined,
  };
  const job = async (intendedNs: number, signal: AbortSignal): Promise<void> => {
    let sent: string | undefined;
    const firstOfWorker = calls++ < concurrency;
    const result = await client.stream(FLOW, body, {
      signal,
      onEvent: (e) => {
        if (sent === undefined) {
          if (firstOfWorker && e.type === 'start' && ++headed === concurrency) {
            openingS = (clock.nowNs() - t0) / NS_PER_S;
            opening.disable();
          }
          if (e.type === 'token') sent = (e.data as { sent_ns?: string }).sent_ns;
        }
      },
    });
    const m = result.meta;
    sample.intendedNs = intendedNs;
    sample.startNs = m.startNs;
    sample.headersNs = m.headersNs;
    sample.endNs = m.endNs;
    sample.status = m.status;
    sample.errorCode = errorCodeOf(result);
    sample.rateLimit = m.rateLimit;
    sample.violations = result.violations;
    sample.stream = result.timing;
    collectors.observe(sample);
    const first = result.timing.firstTokenNs;
    if (sent !== undefined && first !== undefined) {
      const errMs = (first - ref.perfNs - Number(BigInt(sent) - ref.hr)) / 1e6;
      if (intendedNs < steadyNs) {
        openingErrorsMs.push(errMs);
        return;
      }
      ttftErrorsMs.push(errMs);
      ttftsMs.push((first - m.startNs) / 1e6);
      if (errMs > 2 && late.length < 50) late.push({ atS: Math.round((first - t0) / 1e6) / 1000, errMs: Math.round(errMs * 100) / 100 });
    }
  };
  const executor = createExecutor(
    { executor: 'constant-concurrency', concurrency, durationMs: seconds * 1000, gracefulStopMs: 30_000 },
    { clock, job },
  );
  const cpu0 = process.cpuUsage();
  executor.start();
  await executor.finished;
  const elapsedS = (clock.nowNs() - t0) / NS_PER_S;
  const cpu = process.cpuUsage(cpu0);
  loop.disable();
  opening.disable();
  const snap = collectors.snapshot(clock.nowNs());
  return {
    tool: 'flowgauge',
    streams: snap.stream.count,
    completed: snap.stream.completed,
    tokens: snap.stream.tokens,
    elapsedS,
    tokensPerS: snap.stream.tokens / elapsedS,
    cpuS: (cpu.user + cpu.system) / 1e6,
    ttftMs: snap.stream.ttftMs,
    itlMs: snap.stream.itlMs,
    ttftErrorMs: percentiles(ttftErrorsMs),
    ttftSteadyMs: percentiles(ttftsMs),
    rampS,
    ttftErrorOpeningMs: openingErrorsMs.length > 0 ? percentiles(openingErrorsMs) : undefined,
    openingS,
    openingLoopDelayMs: opening.count > 0 ? { p99: opening.percentile(99) / 1e6, max: opening.max / 1e6 } : undefined,
    lateFirstTokens: late,
    eventLoopDelayMs: { p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
    errors: snap.totals.bad,
  };
}

const url = new URL(baseUrl);
const pool = new Pool(url.origin, { connections: concurrency });

async function bare(seconds: number): Promise<Record<string, unknown>> {
  const path = `${url.pathname}/flows/${FLOW}/stream`;
  const json = JSON.stringify(body);
  const headers = { 'content-type': 'application/json', accept: 'text/event-stream', authorization: 'Bearer fg_bench_token' };
  let tokens = 0;
  let streams = 0;
  let errors = 0;
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  const one = async (): Promise<void> => {
    const res = await pool.request({ path, method: 'POST', headers, body: json });
    const decoder = new TextDecoder();
    const parser = createParser({
      onEvent(ev) {
        const data = JSON.parse(ev.data) as { type?: string };
        if (data.type === 'token') tokens++;
      },
    });
    await new Promise<void>((resolve, reject) => {
      res.body.on('data', (chunk: Buffer) => parser.feed(decoder.decode(chunk, { stream: true })));
      res.body.once('end', resolve);
      res.body.once('error', reject);
    });
    streams++;
  };
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      try {
        await one();
      } catch {
        errors++;
      }
    }
  };
  const cpu0 = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsedS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { tool: 'bare', streams, tokens, elapsedS, tokensPerS: tokens / elapsedS, cpuS: (cpu.user + cpu.system) / 1e6, errors };
}

/** The TTFT error of the first token from one `data` chunk's arrival stamp and the text read so far. */
function firstTokenError(text: string, atMs: number, ref: { perfNs: number; hr: bigint }): number | undefined {
  const i = text.indexOf('"sent_ns":"');
  if (i === -1) return undefined;
  const j = text.indexOf('"', i + 11);
  if (j === -1) return undefined;
  return (atMs * 1e6 - ref.perfNs - Number(BigInt(text.slice(i + 11, j)) - ref.hr)) / 1e6;
}

async function floor(seconds: number): Promise<Record<string, unknown>> {
  const json = JSON.stringify(body);
  const request =
    `POST ${url.pathname}/flows/${FLOW}/stream HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\n` +
    `accept: text/event-stream\r\nauthorization: Bearer fg_bench_token\r\ncontent-length: ${Buffer.byteLength(json)}\r\n\r\n${json}`;
  const ref = pairedReading();
  const t0 = performance.now();
  // Streams started once every connection has had its first answer, and after the first
  // second: opening them all at once is a burst no steady load has (as for flowgauge's ramp).
  let steady = Infinity;
  const firstSecond = t0 + Math.min(1, seconds / 4) * 1000;
  let answered = 0;
  const deadline = t0 + seconds * 1000;
  const errorsMs: number[] = [];
  const ttftsMs: number[] = [];
  let streams = 0;
  const connection = (): Promise<void> =>
    new Promise((resolve) => {
      // A connection's first stream starts before the connection exists: its connect counts in
      // its TTFT, as a new connection's does in flowgauge's (timed from the call).
      let startedAt = performance.now();
      const socket = connect({ host: url.hostname, port: Number(url.port) });
      socket.setNoDelay(true);
      let text = '';
      let found = false;
      let first = true;
      const send = (fresh: boolean): void => {
        text = '';
        found = false;
        if (!fresh) startedAt = performance.now();
        socket.write(request);
      };
      socket.on('connect', () => send(true));
      socket.on('data', (chunk: Buffer) => {
        const at = performance.now();
        if (first) {
          first = false;
          if (++answered === concurrency) steady = Math.max(firstSecond, at);
        }
        text += chunk.toString('latin1');
        if (!found) {
          const err = firstTokenError(text, at, ref);
          if (err !== undefined) {
            found = true;
            if (startedAt >= steady) {
              errorsMs.push(err);
              ttftsMs.push(at - startedAt);
            }
          }
        }
        // The chunked body's last chunk: the stream is over.
        if (text.endsWith('\r\n0\r\n\r\n')) {
          streams++;
          if (performance.now() < deadline) send(false);
          else socket.end();
        }
      });
      socket.on('error', () => resolve());
      socket.on('close', () => resolve());
    });
  await Promise.all(Array.from({ length: concurrency }, connection));
  // What bench/cases/streaming.ts checks a floor round's validity with: streams per connection and length.
  return { tool: 'floor', streams, connections: concurrency, plannedS: seconds, elapsedS: (performance.now() - t0) / 1000, ttftErrorMs: percentiles(errorsMs), ttftSteadyMs: percentiles(ttftsMs) };
}

const runOnce = mode === 'bare' ? bare : mode === 'floor' ? floor : flowgauge;
// Before any stream: what the process costs holding none.
const baselineRssMb = process.memoryUsage().rss / 2 ** 20;
const warm = warmupS > 0 ? await runOnce(warmupS) : undefined;
const result = await runOnce(durationS);
// The kernel's high-water mark of the whole process: what holding this many streams costs.
const maxRssMb = process.resourceUsage().maxRSS / 1024;
// The warm-up pass opened the connections: its opening is the one with cold connects.
const cold = warm === undefined ? {} : { coldOpeningS: warm.openingS, coldOpeningLoopDelayMs: warm.openingLoopDelayMs };
printResult({ ...result, ...cold, maxRssMb, baselineRssMb, bytesPerStream: ((maxRssMb - baselineRssMb) * 2 ** 20) / concurrency });
await client.close();
await pool.close();
