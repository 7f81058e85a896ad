/**
 * Case 6: every core (`flowgauge run --workers N`). The closed loop of case 1 (50 connections,
 * listFlows) with 1 and then 2 worker threads, alternating over the rounds, against nginx (node:http
 * when nginx is missing): requests/s and CPU per request of the whole process (the long run's
 * extra CPU over its extra requests, so thread start-up is not charged). Then the open model at
 * 5,000/s split over 2 workers, judged at the server as case 2 is (CV of arrivals per 50 ms).
 * The generator is not pinned here: two workers need two cores, and on a two-core machine they
 * share them with the server, which says how far scaling can go on that machine.
 */
import { bundled, spawnScript } from '../lib/bundle.js';
import { flowListBody } from '../lib/flow-list-body.js';
import { startNginx } from '../lib/peers.js';
import { resultOf, SERVER_CORE } from '../lib/proc.js';
import { arrivalFigures, medianOf, type ArrivalFigures } from '../lib/stats.js';
import type { BenchContext } from './context.js';

/** One closed-loop run of the workers driver. */
export interface WorkersRun {
  readonly workers: number;
  readonly requests: number;
  readonly requestsPerS: number;
  readonly cpuUsPerRequest: number | undefined;
  readonly errors: number;
}

/** Case 6 results. */
export interface WorkersResult {
  readonly server: 'nginx' | 'node:http';
  readonly cores: number;
  readonly runs: readonly WorkersRun[];
  /** Median requests/s with 2 workers ÷ with 1. */
  readonly scaling: number | undefined;
  /** Median CPU per request with 2 workers ÷ with 1 (the cost of splitting). */
  readonly cpuRatio: number | undefined;
  /** The open model at 5,000/s over 2 workers, at the server. */
  readonly open: (ArrivalFigures & { readonly targetRatePerS: number }) | undefined;
  /** The same with 1 worker thread, in the same sitting, for comparison. */
  readonly openOneWorker: (ArrivalFigures & { readonly targetRatePerS: number }) | undefined;
}

async function entryFile(): Promise<string[]> {
  const entry = await bundled('../src/run/workers/run-worker.ts');
  return entry === undefined ? [] : ['--worker-entry', entry];
}

async function drive(ctx: BenchContext, base: string, workers: number, extra: readonly string[]): Promise<WorkersRun & Record<string, unknown>> {
  const args = ['--base-url', base, '--workers', String(workers), '--duration-s', String(ctx.plan.saturationS), '--warmup-s', String(ctx.plan.warmupS), ...(await entryFile()), ...extra];
  return resultOf(await spawnScript('drivers/flowgauge-workers.ts', args, undefined), 300_000);
}

/** Runs case 6. */
export async function runWorkers(ctx: BenchContext, cores: number): Promise<WorkersResult> {
  const runs: WorkersRun[] = [];
  const nginx = await startNginx(ctx.peers, flowListBody());
  const node = nginx === undefined ? await spawnScript('servers/json-server.ts', [], SERVER_CORE) : undefined;
  try {
    const port = nginx?.port ?? (JSON.parse(((await node?.waitFor(/READY (.*)/)) as RegExpMatchArray)[1] as string) as { port: number }).port;
    const base = `http://127.0.0.1:${port}/v1`;
    for (let round = 0; round < ctx.plan.rounds; round++) {
      for (const w of [1, 2]) {
        ctx.log(`workers: closed loop, ${w} worker(s), round ${round + 1}/${ctx.plan.rounds}`);
        runs.push(await drive(ctx, base, w, ['--concurrency', '50']));
      }
    }
  } finally {
    await nginx?.stop();
    await node?.stop();
  }
  const med = (w: number, f: (r: WorkersRun) => number | undefined): number | undefined => medianOf(runs.filter((r) => r.workers === w).map(f));
  const ratio = (f: (r: WorkersRun) => number | undefined): number | undefined => {
    const [one, two] = [med(1, f), med(2, f)];
    return one === undefined || two === undefined || one === 0 ? undefined : two / one;
  };

  const open: Record<number, WorkersResult['open']> = {};
  const rate = ctx.plan.openRatePerS;
  const server = await spawnScript('servers/json-server.ts', [], SERVER_CORE);
  try {
    const { port } = JSON.parse(((await server.waitFor(/READY (.*)/)) as RegExpMatchArray)[1] as string) as { port: number };
    const control = `http://127.0.0.1:${port}`;
    for (const w of [1, 2]) {
      ctx.log(`workers: open model at ${rate}/s, ${w} worker(s)`);
      await drive(ctx, `${control}/v1`, w, ['--rate', String(rate), '--control', control]);
      const res = await fetch(`${control}/__bench/record/stop`, { method: 'POST' });
      const { stampsMs } = (await res.json()) as { stampsMs: number[] };
      open[w] = { ...arrivalFigures(stampsMs, 50, 1000, 500), targetRatePerS: rate };
    }
  } finally {
    await server.stop();
  }
  return { server: nginx === undefined ? 'node:http' : 'nginx', cores, runs, scaling: ratio((r) => r.requestsPerS), cpuRatio: ratio((r) => r.cpuUsPerRequest), open: open[2], openOneWorker: open[1] };
}
