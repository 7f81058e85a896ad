/**
 * Case 3b: 10,000 long-lived streams from one process (issue 31's targets). Streams of 20
 * tokens, one every 500 ms (10 s each, reopened as they end), from a closed model of 10,000
 * workers: the warm-up pass opens the 10,000 connections (the event loop's delay is recorded
 * until every worker's first stream has its first event: target, no stall over 50 ms), then the
 * measured pass times first tokens against the server's own send stamps. The raw-socket floor
 * alternates with it over the same server; both count only streams started once all of their
 * connections are open (flowgauge: once the executor's ramp has started every worker), and
 * the streams started on the ramp are reported apart. Target: TTFT error p99 ≤ 1.5× the
 * floor's, peak RSS ≤ 600 MB.
 *
 * Each round also runs flowgauge under `--single-threaded-gc`: pinned to one core, V8's GC
 * helper threads take the core from the event loop, and this pass shows how much of the error
 * that is (the targets are judged on the default pass: the product as it runs).
 */
import { STARTS_AT_ONCE, STARTS_PER_SECOND } from '../../src/load/closed-executor.js';
import { maxOf, medianOf } from '../lib/stats.js';
import type { BenchContext } from './context.js';
import { checkFloorRound, drive, FIRST_MS, serverName, withServer, type StreamRun } from './streaming.js';
import { fixedSseServer } from '../lib/c-server.js';

/** Case 3b results. */
export interface ManyStreamsResult {
  readonly concurrency: number;
  readonly pacing: { readonly tokens: number; readonly intervalMs: number };
  readonly rounds: number;
  readonly runs: readonly StreamRun[];
  /** flowgauge again with `--single-threaded-gc`, once per round. */
  readonly singleThreadedGcRuns: readonly StreamRun[];
  readonly singleThreadedGcTtftErrorP99Ms: number | undefined;
  readonly floorRuns: readonly StreamRun[];
  /** The longest event-loop stall while the 10,000 connections opened, worst round (ms). */
  readonly openingStallMaxMs: number | undefined;
  readonly openingLoopDelayP99Ms: number | undefined;
  /** Median over rounds of the TTFT error p99 (ms), steady streams only. */
  readonly ttftErrorP99Ms: number | undefined;
  readonly floorTtftErrorP99Ms: number | undefined;
  /** Median over rounds of the TTFT error p99 (ms) of the streams started on the ramp. */
  readonly rampTtftErrorP99Ms: number | undefined;
  readonly maxRssMb: number | undefined;
  /** Which server answered (the fixed-schedule C server unless there is no C compiler). */
  readonly server?: string;
  /** TTFT itself, p99 (median over rounds), flowgauge and the floor timed alike, connect included in both. */
  readonly ttftP99Ms?: number | undefined;
  readonly floorTtftP99Ms?: number | undefined;
}

const PACING = { tokens: 20, intervalMs: 500 };

/** Runs case 3b. */
export async function runManyStreams(ctx: BenchContext): Promise<ManyStreamsResult> {
  const concurrency = ctx.plan.manyStreams ?? 10_000;
  const rounds = ctx.plan.quick ? 1 : 2;
  // The warm-up pass runs past the ramp so that it opens every connection.
  const warmupS = Math.ceil((concurrency - STARTS_AT_ONCE) / STARTS_PER_SECOND) + 2;
  const measuredS = Math.ceil((2.5 * PACING.tokens * PACING.intervalMs) / 1000);
  const runs: StreamRun[] = [];
  const stgc: StreamRun[] = [];
  const floorRuns: StreamRun[] = [];
  // The fixed-schedule C server: the Node one saturated its core at 10,000 streams, and its lateness was in every figure.
  const fixed = fixedSseServer(ctx.log);
  await withServer(['--tokens', String(PACING.tokens), '--interval-ms', String(PACING.intervalMs), '--first-ms', String(FIRST_MS)], async (base) => {
    for (let round = 0; round < rounds; round++) {
      ctx.log(`many streams: ${concurrency} paced streams, round ${round + 1}/${rounds}: flowgauge, flowgauge --single-threaded-gc, raw-socket floor`);
      runs.push(await drive(base, 'flowgauge', measuredS, warmupS, concurrency));
      stgc.push(await drive(base, 'flowgauge', measuredS, warmupS, concurrency, ['--single-threaded-gc']));
      const floorRun = checkFloorRound(await drive(base, 'floor', measuredS, warmupS, concurrency), PACING, FIRST_MS);
      if (floorRun.invalid !== undefined) ctx.log(`many streams: the floor round ${round + 1} is invalid (${floorRun.invalid}); reported, not counted`);
      floorRuns.push(floorRun);
    }
  }, fixed);
  return {
    concurrency: concurrency,
    pacing: PACING,
    rounds,
    runs,
    singleThreadedGcRuns: stgc,
    singleThreadedGcTtftErrorP99Ms: medianOf(stgc.map((r) => r.ttftErrorMs?.p99)),
    floorRuns,
    openingStallMaxMs: maxOf(runs.map((r) => r.coldOpeningLoopDelayMs?.max)),
    openingLoopDelayP99Ms: maxOf(runs.map((r) => r.coldOpeningLoopDelayMs?.p99)),
    ttftErrorP99Ms: medianOf(runs.map((r) => r.ttftErrorMs?.p99)),
    floorTtftErrorP99Ms: medianOf(floorRuns.filter((r) => r.invalid === undefined).map((r) => r.ttftErrorMs?.p99)),
    rampTtftErrorP99Ms: medianOf(runs.map((r) => r.ttftErrorOpeningMs?.p99)),
    maxRssMb: maxOf(runs.map((r) => r.maxRssMb)),
    server: serverName(fixed),
    ttftP99Ms: medianOf(runs.map((r) => r.ttftSteadyMs?.p99)),
    floorTtftP99Ms: medianOf(floorRuns.filter((r) => r.invalid === undefined).map((r) => r.ttftSteadyMs?.p99)),
  };
}
