/**
 * Case 2: open-model precision at 5,000 requests/s. The node:http server records the arrival
 * instant of every request; each tool's arrivals are cut to their steady middle (the first
 * second and the last half second dropped, for every tool alike) and judged in 50 ms buckets:
 * achieved ÷ target rate, and the coefficient of variation of arrivals per bucket. flowgauge
 * also reports its own scheduling lag. Peers: autocannon `-R` (its `overallRate`) and hey `-q`.
 * Each tool's CPU time per arrival is its own process's (targets: flowgauge ≤ 1.5× hey's).
 *
 * Then flowgauge and hey again beside a competing busy process on the generator's core (a
 * Node process spinning for the whole pass): a generator that never sleeps loses its time
 * slices to it and its arrivals come in bursts (target: flowgauge's CV ≤ 0.05 there too).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { runHey } from '../lib/peers.js';
import { spawnScript } from '../lib/bundle.js';
import { canPin, GENERATOR_CORE, resultOf, SERVER_CORE } from '../lib/proc.js';
import { arrivalFigures, type ArrivalFigures } from '../lib/stats.js';
import type { BenchContext } from './context.js';

const BUCKET_MS = 50;
const TRIM_START_MS = 1000;
const TRIM_END_MS = 500;

/** One tool's open-model run. */
export interface OpenToolResult {
  readonly tool: string;
  /** False when the peer is not installed. */
  readonly available: boolean;
  /** What the server saw. */
  readonly atServer: ArrivalFigures | undefined;
  /** Server-measured rate ÷ target. */
  readonly achievedRatio: number | undefined;
  /** flowgauge only: its own view (schedule lag, dropped, achieved). */
  readonly generator: Record<string, unknown> | undefined;
  /** The tool's own CPU time (user + system) per arrival the server recorded, µs. */
  readonly cpuUsPerArrival?: number | undefined;
  /** Run beside a busy process on the generator's core. */
  readonly contended?: boolean;
}

/** Case 2 results. */
export interface OpenModelResult {
  readonly targetRatePerS: number;
  readonly durationS: number;
  readonly bucketMs: number;
  readonly tools: readonly OpenToolResult[];
}

async function stamps(control: string): Promise<number[]> {
  const res = await fetch(`${control}/__bench/record/stop`, { method: 'POST' });
  return ((await res.json()) as { stampsMs: number[] }).stampsMs;
}

async function startRecording(control: string): Promise<void> {
  const res = await fetch(`${control}/__bench/record/start`, { method: 'POST' });
  await res.arrayBuffer();
}

function judged(tool: string, all: number[], rate: number, seconds: number, cpuS: number | undefined, contended: boolean, generator?: Record<string, unknown>): OpenToolResult {
  const atServer = arrivalFigures(all, BUCKET_MS, TRIM_START_MS, TRIM_END_MS, seconds * 1000);
  const cpuUsPerArrival = cpuS === undefined || all.length === 0 ? undefined : (cpuS * 1e6) / all.length;
  return { tool, available: true, atServer, achievedRatio: atServer.ratePerS / rate, generator, cpuUsPerArrival, contended };
}

/** A Node process spinning on the generator's core for as long as it lives. */
function busyProcess(): ChildProcess {
  const spin = [process.execPath, '-e', 'for(;;){}'];
  return canPin() ? spawn('taskset', ['-c', String(GENERATOR_CORE), ...spin], { stdio: 'ignore' }) : spawn(spin[0] as string, spin.slice(1), { stdio: 'ignore' });
}

/** Runs case 2. */
export async function runOpenModel(ctx: BenchContext): Promise<OpenModelResult> {
  const { plan } = ctx;
  const rate = plan.openRatePerS;
  const seconds = plan.openS;
  const server = await spawnScript('servers/json-server.ts', [], SERVER_CORE);
  const tools: OpenToolResult[] = [];
  try {
    const ready = await server.waitFor(/READY (.*)/);
    const { port } = JSON.parse(ready[1] as string) as { port: number };
    const control = `http://127.0.0.1:${port}`;
    const base = `${control}/v1`;

    const flowgauge = async (contended: boolean): Promise<void> => {
      ctx.log(`open-model: flowgauge at ${rate}/s for ${seconds}s${contended ? ', beside a busy process' : ''}`);
      // The driver starts the recording itself, after its warm-up.
      const fg = await spawnScript('drivers/flowgauge-open.ts', ['--base-url', base, '--control', control, '--rate', String(rate), '--duration-s', String(seconds), '--warmup-s', String(plan.warmupS)], GENERATOR_CORE);
      const gen = await resultOf<Record<string, unknown> & { cpuS?: number }>(fg, 300_000);
      tools.push(judged('flowgauge', await stamps(control), rate, seconds, gen.cpuS, contended, gen));
    };
    const hey = async (contended: boolean): Promise<void> => {
      if (ctx.peers.hey === undefined) {
        tools.push({ tool: 'hey', available: false, atServer: undefined, achievedRatio: undefined, generator: undefined, contended });
        return;
      }
      ctx.log(`open-model: hey -q at ${rate}/s for ${seconds}s${contended ? ', beside a busy process' : ''}`);
      await startRecording(control);
      const h = await runHey(ctx.peers, `${base}/flows`, rate, 50, seconds);
      tools.push(judged('hey', await stamps(control), rate, seconds, h?.cpuS, contended));
    };

    await flowgauge(false);
    ctx.log(`open-model: autocannon -R ${rate} for ${seconds}s`);
    await startRecording(control);
    const ac = await spawnScript('drivers/autocannon-driver.ts', ['--url', `${base}/flows`, '--connections', '50', '--rate', String(rate), '--duration-s', String(seconds), '--warmup-s', '0'], GENERATOR_CORE);
    const acOut = await resultOf<{ cpuS?: number }>(ac, 300_000);
    tools.push(judged('autocannon', await stamps(control), rate, seconds, acOut.cpuS, false));
    await hey(false);

    const busy = busyProcess();
    try {
      await flowgauge(true);
      await hey(true);
    } finally {
      busy.kill('SIGKILL');
    }
  } finally {
    await server.stop();
  }
  return { targetRatePerS: rate, durationS: seconds, bucketMs: BUCKET_MS, tools };
}
