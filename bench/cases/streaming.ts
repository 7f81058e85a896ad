/**
 * Case 3: streaming. Throughput: 200 concurrent streams of 50 tokens written as fast as the
 * socket takes them; flowgauge (`stream()` + full stream collectors) against a bare undici +
 * eventsource-parser loop, tokens/s (target ratio ≥ 0.9). Timing: 200 concurrent streams of
 * paced tokens (first after 20 ms, then every 20 ms, about 10,000 tokens/s in all); the TTFT
 * error is flowgauge's arrival stamp of the first token minus the server's own send stamp
 * (target p99 ≤ 1 ms), over streams started after the run's first second (the closed run
 * opens all 200 at once; the server varies each paced stream ±50 % so they do not stay in
 * lockstep). Tools alternate over the rounds; figures are medians.
 */
import { spawnScript } from '../lib/bundle.js';
import { fixedSseServer, spawnFixedSseServer } from '../lib/c-server.js';
import { GENERATOR_CORE, resultOf, SERVER_CORE } from '../lib/proc.js';
import { median, medianOf, ratio, type Percentiles } from '../lib/stats.js';
import type { BenchContext } from './context.js';


/** What the stream driver reports. */
export interface StreamRun {
  readonly tool: string;
  readonly streams: number;
  readonly tokens: number;
  readonly elapsedS: number;
  readonly tokensPerS: number;
  readonly cpuS: number;
  readonly errors: number;
  /** Peak resident memory of the generator process (MB). */
  readonly maxRssMb?: number;
  /** Resident memory before the first stream (MB). */
  readonly baselineRssMb?: number;
  /** (peak − baseline) ÷ concurrent streams: what holding one open stream costs (bytes). */
  readonly bytesPerStream?: number;
  readonly ttftErrorMs?: Percentiles;
  /** TTFT itself over the same streams (ms): first token's arrival − the stream's start, a new connection's connect included, timed alike by flowgauge and the floor. */
  readonly ttftSteadyMs?: Percentiles;
  /** flowgauge only: the client's event-loop delay (1 ms timer) during the run. */
  readonly eventLoopDelayMs?: { readonly p50: number; readonly p99: number; readonly max: number };
  /** floor only: the connections it held and the seconds it was asked to run (for its validity). */
  readonly connections?: number;
  readonly plannedS?: number;
  /** floor only: why the round is not valid (set by `checkFloorRound`); such a round is reported, never averaged in. */
  readonly invalid?: string;
  /** flowgauge only: the executor's ramp (s) and the TTFT error of the streams started on it (left out of `ttftErrorMs`). */
  readonly rampS?: number;
  readonly ttftErrorOpeningMs?: Percentiles;
  /** flowgauge only: until every worker's first stream had its first event, and the event loop meanwhile; `cold…` is the warm-up pass, which opened the connections. */
  readonly openingS?: number;
  readonly openingLoopDelayMs?: { readonly p99: number; readonly max: number };
  readonly coldOpeningS?: number;
  readonly coldOpeningLoopDelayMs?: { readonly p99: number; readonly max: number };
  /** flowgauge only: up to 50 first tokens more than 2 ms late, with when they arrived. */
  readonly lateFirstTokens?: readonly { readonly atS: number; readonly errMs: number }[];
}

/** Case 3 results. */
export interface StreamingResult {
  readonly concurrency: number;
  readonly throughput: { readonly flowgauge: readonly StreamRun[]; readonly bare: readonly StreamRun[] };
  readonly flowgaugeTokensPerS: number | undefined;
  readonly bareTokensPerS: number | undefined;
  /** flowgauge ÷ bare tokens/s: target ≥ 0.9. */
  readonly ratioToBare: number | undefined;
  /** flowgauge at the paced load, once per round. */
  readonly pacedRuns: readonly StreamRun[];
  /** The raw-socket floor at the paced load, once per round, alternating with flowgauge (invalid rounds marked, left out of the median). */
  readonly floorRuns: readonly StreamRun[];
  /** The flowgauge run with the median TTFT error p99. */
  readonly paced: StreamRun | undefined;
  /** TTFT error p99 in ms at the paced load (median over rounds): target ≤ 1. */
  readonly ttftErrorP99Ms: number | undefined;
  /** The same for the raw-socket floor: what the machine costs any client. */
  readonly floorTtftErrorP99Ms: number | undefined;
  /** Which server answered the paced streams: the fixed-schedule C server, or the Node one without a C compiler. */
  readonly pacedServer?: string;
  /** TTFT itself, p99 (median over rounds), flowgauge and the floor timed alike (connect included): the ratio's target is ≤ 1.5. */
  readonly ttftP99Ms?: number | undefined;
  readonly floorTtftP99Ms?: number | undefined;
}

/** What the paced runs' server is called in the report. */
export const serverName = (fixed: unknown): string => (fixed === undefined ? 'Node (bench/servers/sse-server.ts)' : 'C, fixed schedule (bench/servers/sse-fixed.c)');

/**
 * A floor round measures the floor only if each connection carried streams back to back for
 * about the planned time: at least half the streams a connection fits in it, and done within
 * the plan plus two stream lengths and 5 s. A round that opened its connections so slowly that
 * each carried one stream (seen: 192 s for a 20 s plan at 2,000 streams) measured the
 * machine's stall, not the floor.
 */
export function checkFloorRound(run: StreamRun, pacing: { readonly tokens: number; readonly intervalMs: number }, firstMs: number): StreamRun {
  const streamS = (firstMs + pacing.tokens * pacing.intervalMs) / 1000;
  const planned = run.plannedS;
  const connections = run.connections;
  if (planned === undefined || connections === undefined || connections <= 0) return run;
  const fits = Math.max(1, Math.floor(planned / streamS));
  const perConnection = run.streams / connections;
  const problems: string[] = [];
  if (perConnection < fits / 2) problems.push(`${perConnection.toFixed(2)} streams per connection, where ${fits} fit in ${planned} s`);
  if (run.elapsedS > planned + 2 * streamS + 5) problems.push(`ran ${run.elapsedS.toFixed(1)} s for a ${planned} s plan`);
  return problems.length === 0 ? run : { ...run, invalid: problems.join('; ') };
}

/**
 * Runs `body` against a streaming server on the server core: the fixed-schedule C server when
 * `fixed` gives it (paced streams only: it cannot be the bottleneck), else the Node server.
 */
export async function withServer<T>(args: readonly string[], body: (base: string) => Promise<T>, fixed?: { bin: string; list: string }): Promise<T> {
  const server = fixed === undefined ? await spawnScript('servers/sse-server.ts', args, SERVER_CORE) : spawnFixedSseServer(fixed, args, SERVER_CORE);
  try {
    const ready = await server.waitFor(/READY (.*)/);
    const { port } = JSON.parse(ready[1] as string) as { port: number };
    return await body(`http://127.0.0.1:${port}/v1`);
  } finally {
    await server.stop();
  }
}

/** The paced server's delay before the first token (ms). */
export const FIRST_MS = 20;

export async function drive(base: string, mode: string, seconds: number, warmupS: number, concurrency: number, nodeArgs: readonly string[] = []): Promise<StreamRun> {
  const args = ['--base-url', base, '--mode', mode, '--concurrency', String(concurrency), '--duration-s', String(seconds), '--warmup-s', String(warmupS)];
  return resultOf<StreamRun>(await spawnScript('drivers/stream-driver.ts', args, GENERATOR_CORE, nodeArgs), 300_000);
}

/** Runs case 3. */
export async function runStreaming(ctx: BenchContext): Promise<StreamingResult> {
  const { plan } = ctx;
  const fg: StreamRun[] = [];
  const bare: StreamRun[] = [];
  await withServer(['--tokens', '50', '--batch', '4'], async (base) => {
    for (let round = 0; round < plan.rounds; round++) {
      ctx.log(`streaming: throughput round ${round + 1}/${plan.rounds}: flowgauge, bare`);
      fg.push(await drive(base, 'flowgauge', plan.streamS, plan.warmupS, plan.streamConcurrency));
      bare.push(await drive(base, 'bare', plan.streamS, plan.warmupS, plan.streamConcurrency));
    }
  });
  const pacedRuns: StreamRun[] = [];
  const floorRuns: StreamRun[] = [];
  const { tokens, intervalMs } = plan.pacing;
  // Long-lived streams (a token every 500 ms) must be measured to their end, several times over.
  const pacedS = Math.max(plan.streamS, Math.ceil((2.5 * tokens * intervalMs) / 1000));
  const fixed = fixedSseServer(ctx.log);
  await withServer(['--tokens', String(tokens), '--interval-ms', String(intervalMs), '--first-ms', String(FIRST_MS)], async (base) => {
    // An odd number of rounds, so the median p99 is one run's (the machine's stalls make it jumpy).
    const rounds = plan.rounds % 2 === 0 ? plan.rounds + 1 : plan.rounds;
    for (let round = 0; round < rounds; round++) {
      ctx.log(`streaming: paced tokens, TTFT error, round ${round + 1}/${rounds}: flowgauge, raw-socket floor`);
      pacedRuns.push(await drive(base, 'flowgauge', pacedS, plan.warmupS, plan.streamConcurrency));
      const floorRun = checkFloorRound(await drive(base, 'floor', pacedS, plan.warmupS, plan.streamConcurrency), plan.pacing, FIRST_MS);
      if (floorRun.invalid !== undefined) ctx.log(`streaming: the floor round ${round + 1} is invalid (${floorRun.invalid}); reported, not counted`);
      floorRuns.push(floorRun);
    }
  }, fixed);
  const p99 = (runs: readonly StreamRun[]): number | undefined => medianOf(runs.map((r) => r.ttftErrorMs?.p99));
  const ttftErrorP99Ms = p99(pacedRuns);
  const paced = pacedRuns.find((r) => r.ttftErrorMs?.p99 === ttftErrorP99Ms) ?? pacedRuns[0];
  const fgRate = fg.length > 0 ? median(fg.map((r) => r.tokensPerS)) : undefined;
  const bareRate = bare.length > 0 ? median(bare.map((r) => r.tokensPerS)) : undefined;
  return {
    concurrency: plan.streamConcurrency,
    throughput: { flowgauge: fg, bare },
    flowgaugeTokensPerS: fgRate,
    bareTokensPerS: bareRate,
    ratioToBare: ratio(fgRate, bareRate),
    pacedRuns,
    floorRuns,
    paced,
    ttftErrorP99Ms,
    floorTtftErrorP99Ms: p99(floorRuns.filter((r) => r.invalid === undefined)),
    pacedServer: serverName(fixed),
    ttftP99Ms: medianOf(pacedRuns.map((r) => r.ttftSteadyMs?.p99)),
    floorTtftP99Ms: medianOf(floorRuns.filter((r) => r.invalid === undefined).map((r) => r.ttftSteadyMs?.p99)),
  };
}
