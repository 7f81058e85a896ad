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
import { GENERATOR_CORE, resultOf, SERVER_CORE } from '../lib/proc.js';
import { median, ratio, type Percentiles } from '../lib/stats.js';
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
  /** flowgauge only: the client's event-loop delay (1 ms timer) during the run. */
  readonly eventLoopDelayMs?: { readonly p50: number; readonly p99: number; readonly max: number };
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
  /** The raw-socket floor at the paced load, once per round, alternating with flowgauge. */
  readonly floorRuns: readonly StreamRun[];
  /** The flowgauge run with the median TTFT error p99. */
  readonly paced: StreamRun | undefined;
  /** TTFT error p99 in ms at the paced load (median over rounds): target ≤ 1. */
  readonly ttftErrorP99Ms: number | undefined;
  /** The same for the raw-socket floor: what the machine costs any client. */
  readonly floorTtftErrorP99Ms: number | undefined;
}

async function withServer<T>(args: readonly string[], body: (base: string) => Promise<T>): Promise<T> {
  const server = await spawnScript('servers/sse-server.ts', args, SERVER_CORE);
  try {
    const ready = await server.waitFor(/READY (.*)/);
    const { port } = JSON.parse(ready[1] as string) as { port: number };
    return await body(`http://127.0.0.1:${port}/v1`);
  } finally {
    await server.stop();
  }
}

async function drive(base: string, mode: string, seconds: number, warmupS: number, concurrency: number): Promise<StreamRun> {
  const args = ['--base-url', base, '--mode', mode, '--concurrency', String(concurrency), '--duration-s', String(seconds), '--warmup-s', String(warmupS)];
  return resultOf<StreamRun>(await spawnScript('drivers/stream-driver.ts', args, GENERATOR_CORE), 300_000);
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
  await withServer(['--tokens', String(tokens), '--interval-ms', String(intervalMs), '--first-ms', '20'], async (base) => {
    // An odd number of rounds, so the median p99 is one run's (the machine's stalls make it jumpy).
    const rounds = plan.rounds % 2 === 0 ? plan.rounds + 1 : plan.rounds;
    for (let round = 0; round < rounds; round++) {
      ctx.log(`streaming: paced tokens, TTFT error, round ${round + 1}/${rounds}: flowgauge, raw-socket floor`);
      pacedRuns.push(await drive(base, 'flowgauge', pacedS, plan.warmupS, plan.streamConcurrency));
      floorRuns.push(await drive(base, 'floor', pacedS, plan.warmupS, plan.streamConcurrency));
    }
  });
  const p99 = (runs: readonly StreamRun[]): number | undefined => {
    const v = runs.map((r) => r.ttftErrorMs?.p99).filter((x): x is number => x !== undefined);
    return v.length > 0 ? median(v) : undefined;
  };
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
    floorTtftErrorP99Ms: p99(floorRuns),
  };
}
