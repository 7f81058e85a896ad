/**
 * Case 5: what a journey costs the generator. The same listFlows requests at the same rate,
 * sent as a mix, as a journey of five calls in code, and as five compiled steps; modes
 * alternate within each round. Target: a journey's CPU per request at most 1.2× the mix's.
 */
import { spawnScript } from '../lib/bundle.js';
import { GENERATOR_CORE, resultOf, SERVER_CORE } from '../lib/proc.js';
import type { BenchContext } from './context.js';

/** One mode's mean over the rounds. */
export interface JourneyModeResult {
  readonly mode: 'mix' | 'journey' | 'steps';
  readonly requests: number;
  readonly cpuPer10kS: number;
}

/** Case 5 results. */
export interface JourneyCostResult {
  readonly requestRatePerS: number;
  readonly durationS: number;
  readonly rounds: number;
  readonly modes: readonly JourneyModeResult[];
  /** Journey CPU per request ÷ mix CPU per request. */
  readonly journeyRatio: number | undefined;
  readonly stepsRatio: number | undefined;
}

const MODES = ['mix', 'journey', 'steps'] as const;

/** Runs case 5. */
export async function runJourneyCost(ctx: BenchContext): Promise<JourneyCostResult> {
  const rate = 2000;
  const seconds = ctx.plan.saturationS;
  const server = await spawnScript('servers/json-server.ts', [], SERVER_CORE);
  const sums = new Map<string, { requests: number; cpu: number; n: number }>();
  try {
    const ready = await server.waitFor(/READY (.*)/);
    const { port } = JSON.parse(ready[1] as string) as { port: number };
    const base = `http://127.0.0.1:${port}/v1`;
    for (let round = 0; round < ctx.plan.rounds; round++) {
      for (const mode of MODES) {
        ctx.log(`journey: ${mode} at ${rate} requests/s for ${seconds}s (round ${round + 1})`);
        const p = await spawnScript('drivers/flowgauge-journey.ts', ['--base-url', base, '--rate', String(rate), '--duration-s', String(seconds), '--mode', mode], GENERATOR_CORE);
        const r = await resultOf<{ requests: number; cpuPer10kS: number | null }>(p, 120_000);
        const acc = sums.get(mode) ?? { requests: 0, cpu: 0, n: 0 };
        if (r.cpuPer10kS !== null) sums.set(mode, { requests: acc.requests + r.requests, cpu: acc.cpu + r.cpuPer10kS, n: acc.n + 1 });
      }
    }
  } finally {
    await server.stop();
  }
  const modes = MODES.flatMap((mode) => {
    const s = sums.get(mode);
    return s === undefined || s.n === 0 ? [] : [{ mode, requests: Math.round(s.requests / s.n), cpuPer10kS: s.cpu / s.n }];
  });
  const cpu = (m: string): number | undefined => modes.find((x) => x.mode === m)?.cpuPer10kS;
  const ratio = (m: string): number | undefined => {
    const a = cpu(m);
    const b = cpu('mix');
    return a === undefined || b === undefined || b === 0 ? undefined : a / b;
  };
  return { requestRatePerS: rate, durationS: seconds, rounds: ctx.plan.rounds, modes, journeyRatio: ratio('journey'), stepsRatio: ratio('steps') };
}
