/**
 * Case 1 (and the data of case 5): closed-loop saturation with 50 connections against a
 * ~4 KB flow-list body, on a plain node:http server and on nginx when installed. flowgauge
 * (collectors on; validating, as it ships, and with `validate: false`), autocannon `-c 50`
 * and wrk `-c 50` take turns in each round; the figures are medians over rounds.
 *
 * Two more servers answer a different body every time (node:http `--unique`, and nginx with
 * `$request_id` in every id and URL), against flowgauge (validating and not) and autocannon
 * only: there flowgauge cannot reuse the verdict on an identical body, so they show the full
 * cost of parsing and checking every page.
 */
import { flowListBody } from '../lib/flow-list-body.js';
import { runWrk, startNginx, type PeerRun } from '../lib/peers.js';
import { spawnScript } from '../lib/bundle.js';
import { GENERATOR_CORE, resultOf, SERVER_CORE } from '../lib/proc.js';
import { median, ratio } from '../lib/stats.js';
import type { BenchContext } from './context.js';

const CONNECTIONS = 50;

/** What a generator driver reports (flowgauge and autocannon drivers alike). */
export interface DriverRun {
  readonly tool: string;
  readonly requests: number;
  readonly durationS: number;
  readonly requestsPerS: number;
  readonly cpuS: number;
  readonly errors: number;
  readonly non2xx: number;
  readonly latencyMs: { readonly p50?: number; readonly p99?: number };
}

/** One tool's runs against one server. */
export interface ToolFigures {
  readonly runs: readonly (DriverRun | PeerRun)[];
  /** Median requests per second. */
  readonly requestsPerS: number | undefined;
  /** Median generator CPU seconds per 10,000 requests. */
  readonly cpuSPer10k: number | undefined;
}

/** Results against one server. */
export interface SaturationResult {
  readonly server: 'node:http' | 'nginx' | 'node:http, unique bodies' | 'nginx, unique bodies';
  /** False when the server is not installed (nginx): then nothing else is filled. */
  readonly available: boolean;
  readonly tools: Readonly<Record<string, ToolFigures>>;
  /** flowgauge (validating) ÷ autocannon requests/s: target ≥ 1.0. */
  readonly ratioToAutocannon: number | undefined;
  readonly ratioNoValidateToAutocannon: number | undefined;
  readonly ratioWrkToAutocannon: number | undefined;
}

function figures(runs: readonly (DriverRun | PeerRun)[]): ToolFigures {
  const rps = runs.map((r) => r.requestsPerS);
  const cpu = runs.filter((r) => r.cpuS !== undefined && r.requests > 0).map((r) => ((r.cpuS as number) / r.requests) * 10_000);
  return { runs, requestsPerS: rps.length > 0 ? median(rps) : undefined, cpuSPer10k: cpu.length > 0 ? median(cpu) : undefined };
}

async function driver(script: string, args: readonly string[]): Promise<DriverRun> {
  return resultOf<DriverRun>(await spawnScript(script, args, GENERATOR_CORE), 300_000);
}

async function against(ctx: BenchContext, server: SaturationResult['server'], port: number, peersToo = true): Promise<SaturationResult> {
  const { plan } = ctx;
  const base = `http://127.0.0.1:${port}/v1`;
  const timing = ['--duration-s', String(plan.saturationS), '--warmup-s', String(plan.warmupS)];
  const runs: Record<string, (DriverRun | PeerRun)[]> = { flowgauge: [], 'flowgauge-novalidate': [], autocannon: [], wrk: [] };
  for (let round = 0; round < plan.rounds; round++) {
    ctx.log(`saturation/${server}: round ${round + 1}/${plan.rounds}: flowgauge`);
    runs.flowgauge?.push(await driver('drivers/flowgauge-closed.ts', ['--base-url', base, '--concurrency', String(CONNECTIONS), ...timing]));
    ctx.log(`saturation/${server}: round ${round + 1}/${plan.rounds}: autocannon`);
    runs.autocannon?.push(await driver('drivers/autocannon-driver.ts', ['--url', `${base}/flows`, '--connections', String(CONNECTIONS), ...timing]));
    // Validate off on the unique rows too: the difference is what reading every body costs.
    ctx.log(`saturation/${server}: round ${round + 1}/${plan.rounds}: flowgauge (validate off)`);
    runs['flowgauge-novalidate']?.push(
      await driver('drivers/flowgauge-closed.ts', ['--base-url', base, '--concurrency', String(CONNECTIONS), '--no-validate', ...timing]),
    );
    if (!peersToo) continue;
    const wrk = await runWrk(ctx.peers, `${base}/flows`, CONNECTIONS, plan.saturationS);
    if (wrk !== undefined) runs.wrk?.push(wrk);
  }
  const tools = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, figures(v)]));
  const rps = (k: string): number | undefined => tools[k]?.requestsPerS;
  return {
    server,
    available: true,
    tools,
    ratioToAutocannon: ratio(rps('flowgauge'), rps('autocannon')),
    ratioNoValidateToAutocannon: ratio(rps('flowgauge-novalidate'), rps('autocannon')),
    ratioWrkToAutocannon: ratio(rps('wrk'), rps('autocannon')),
  };
}

async function againstNode(ctx: BenchContext, unique: boolean): Promise<SaturationResult> {
  const node = await spawnScript('servers/json-server.ts', unique ? ['--unique'] : [], SERVER_CORE);
  try {
    const ready = await node.waitFor(/READY (.*)/);
    const { port } = JSON.parse(ready[1] as string) as { port: number };
    return unique ? await against(ctx, 'node:http, unique bodies', port, false) : await against(ctx, 'node:http', port);
  } finally {
    await node.stop();
  }
}

const missing = (server: SaturationResult['server']): SaturationResult => ({
  server,
  available: false,
  tools: {},
  ratioToAutocannon: undefined,
  ratioNoValidateToAutocannon: undefined,
  ratioWrkToAutocannon: undefined,
});

async function againstNginx(ctx: BenchContext, unique: boolean): Promise<SaturationResult> {
  const server = unique ? 'nginx, unique bodies' : 'nginx';
  const nginx = await startNginx(ctx.peers, flowListBody(), unique);
  if (nginx === undefined) {
    ctx.log(`saturation/${server}: nginx is not installed; reported as missing`);
    return missing(server);
  }
  try {
    return await against(ctx, server, nginx.port, !unique);
  } finally {
    await nginx.stop();
  }
}

/** Runs case 1 against node:http and nginx, each with the same body and with unique bodies (nginx reported as unavailable when missing). */
export async function runSaturation(ctx: BenchContext): Promise<SaturationResult[]> {
  return [await againstNode(ctx, false), await againstNode(ctx, true), await againstNginx(ctx, false), await againstNginx(ctx, true)];
}
