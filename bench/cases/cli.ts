/**
 * Case 8, the headline: the product as installed, against nginx on the server core, closed loop,
 * 50 connections. First against answers that differ every time (`$request_id` in every id and
 * URL, what a live service sends): the installed CLI checks every body (`validate: full`, the
 * default) beside autocannon and wrk (which read none), the library driver
 * (drivers/flowgauge-closed.ts: `executeRun` in a script) and the CLI with `validate: off`, so
 * what checking costs is measured, not estimated (issue 44's target: the CLI's CPU per request
 * ≤ 1.11× autocannon's). Then against the identical ~4 KB body (the CLI ≤ 1.1× the library's
 * CPU and 1.2× its RSS, ≤ 1.5× wrk's CPU per request).
 *
 * Every tool is measured the same way from outside, over the same window: once nginx has
 * counted the tool's first request, `warmupS` pass, then for `saturationS` the requests nginx
 * handles (its stub_status counter) and the tool's CPU time (`/proc/<pid>/stat`) are read at
 * both ends; the peak RSS is the process's high-water mark (`VmHWM`) at the window's end. So
 * the CLI's start-up, scenario loading and report writing are outside the window, as the
 * library driver's warm-up is, and nothing a tool says about itself is needed. Tools take turns
 * within a round, the order rotated each round (so none always follows the same one), and a
 * ratio is taken per round between the two tools' windows of that round: its median and range
 * are reported, not a ratio of medians.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { flowListBody } from '../lib/flow-list-body.js';
import { installedCli } from '../lib/installed.js';
import { nginxRequests, startNginx } from '../lib/peers.js';
import { bundled } from '../lib/bundle.js';
import { GENERATOR_CORE, procCpuS, procMinorFaults, sleep, spawnChild, type Child } from '../lib/proc.js';
import { medianOf, ratio, spreadOf, type Spread } from '../lib/stats.js';
import type { BenchContext } from './context.js';

const CONNECTIONS = 50;
/** Requests counted at nginx before a tool's load is taken to have begun (its preparation sends fewer). */
const LOAD_BEGUN_REQUESTS = 200;
const TOOLS = ['flowgauge CLI', 'flowgauge library', 'autocannon', 'wrk', 'flowgauge CLI, validate off'] as const;
type Tool = (typeof TOOLS)[number];

/** One tool's window. */
export interface WindowRun {
  readonly tool: Tool;
  /** The round it ran in (0-based): same-round windows are paired for ratios. */
  readonly round: number;
  readonly requests: number;
  readonly seconds: number;
  readonly requestsPerS: number;
  readonly cpuUsPerRequest: number | undefined;
  /** Minor page faults per 1,000 requests in the window: tells a "slow" run of the same code from a fast one. */
  readonly faultsPerKRequests?: number | undefined;
  readonly maxRssMb: number | undefined;
}

/** One tool's medians over rounds. */
export interface CliToolFigures {
  readonly runs: readonly WindowRun[];
  readonly requestsPerS: number | undefined;
  readonly cpuUsPerRequest: number | undefined;
  /** CPU µs per request over the rounds: median, smallest, largest. */
  readonly cpu?: Spread | undefined;
  readonly maxRssMb: number | undefined;
}

/** `a` ÷ `b` CPU per request, one ratio per round in which both measured: its median and range. */
export function perRoundCpuRatio(a: readonly WindowRun[], b: readonly WindowRun[]): Spread | undefined {
  return spreadOf(a.map((x) => ratio(x.cpuUsPerRequest, b.find((y) => y.round === x.round)?.cpuUsPerRequest)));
}

/** Case 8 results. */
export interface CliResult {
  /** False when nginx (the server) or the install is missing: then nothing else is filled. */
  readonly available: boolean;
  readonly why?: string;
  readonly rounds: number;
  readonly windowS: number;
  readonly tools: Readonly<Partial<Record<Tool, CliToolFigures>>>;
  /** CLI ÷ library CPU per request: target ≤ 1.1. */
  readonly cpuCliToLibrary: number | undefined;
  /** CLI ÷ library peak RSS: target ≤ 1.2. */
  readonly rssCliToLibrary: number | undefined;
  /** CLI ÷ autocannon requests/s: target ≥ 1.2. */
  readonly rpsCliToAutocannon: number | undefined;
  readonly rpsLibraryToAutocannon: number | undefined;
  /** CLI ÷ wrk CPU per request: target ≤ 1.8. */
  readonly cpuCliToWrk: number | undefined;
  readonly cpuLibraryToWrk: number | undefined;
  /** CLI ÷ wrk CPU per request, per round (median and range): target ≤ 1.5. */
  readonly cpuCliToWrkPerRound?: Spread | undefined;
  /**
   * Against unique bodies: the CLI (every body checked) beside autocannon and wrk (none), CLI ÷
   * autocannon requests/s (≥ 0.9) and CPU per request per round (≤ 1.11: issue 44's headline).
   */
  readonly unique?: {
    readonly tools: Readonly<Partial<Record<Tool, CliToolFigures>>>;
    readonly rpsCliToAutocannon: number | undefined;
    readonly cpuCliToAutocannon?: Spread | undefined;
    readonly cpuCliOffToAutocannon?: Spread | undefined;
    readonly cpuCliToWrk?: Spread | undefined;
  };
}

function peakRssMb(pid: number): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null ? undefined : Number(m[1]) / 1024;
  } catch {
    return undefined;
  }
}

async function spawnTool(ctx: BenchContext, tool: Tool, base: string, totalS: number, bin: string, dir: string, round: number): Promise<Child> {
  switch (tool) {
    case 'flowgauge CLI':
    case 'flowgauge CLI, validate off': {
      const scenario = join(dir, 'closed.json');
      writeFileSync(
        scenario,
        JSON.stringify({
          name: 'bench-cli',
          tier: { limitPerMinute: 1e9 },
          load: { executor: 'constant-concurrency', concurrency: CONNECTIONS, duration: `${totalS}s`, gracefulStop: '2s' },
          mix: [{ op: 'listFlows', weight: 1 }],
          ...(tool === 'flowgauge CLI, validate off' ? { validate: 'off' } : {}),
        }),
      );
      return spawnChild(process.execPath, [bin, 'run', scenario, '--base-url', base, '--token', 'fg_bench_token', '--quiet', '--out', join(dir, `cli-${round}`)], GENERATOR_CORE);
    }
    case 'flowgauge library': {
      const script = await bundled('drivers/flowgauge-closed.ts');
      if (script === undefined) throw new Error('esbuild could not bundle drivers/flowgauge-closed.ts');
      return spawnChild(process.execPath, [script, '--base-url', base, '--concurrency', String(CONNECTIONS), '--duration-s', String(totalS), '--warmup-s', '0'], GENERATOR_CORE);
    }
    case 'autocannon': {
      const script = await bundled('drivers/autocannon-driver.ts');
      if (script === undefined) throw new Error('esbuild could not bundle drivers/autocannon-driver.ts');
      return spawnChild(process.execPath, [script, '--url', `${base}/flows`, '--connections', String(CONNECTIONS), '--duration-s', String(totalS), '--warmup-s', '0'], GENERATOR_CORE);
    }
    case 'wrk':
      return spawnChild(ctx.peers.wrk ?? 'wrk', ['-t1', `-c${CONNECTIONS}`, `-d${totalS}s`, '-H', 'authorization: Bearer fg_bench_token', `${base}/flows`], GENERATOR_CORE);
  }
}

/** Runs one tool and measures its window; undefined when it never sent a request. */
async function measure(ctx: BenchContext, tool: Tool, port: number, bin: string, dir: string, round: number): Promise<WindowRun | undefined> {
  const { warmupS, saturationS } = ctx.plan;
  const totalS = warmupS + saturationS + 3;
  const before = (await nginxRequests(port)) ?? 0;
  const child = await spawnTool(ctx, tool, `http://127.0.0.1:${port}/v1`, totalS, bin, dir, round);
  try {
    // The load has begun once nginx has counted more than a run's preparation sends (a few
    // requests, then seconds of start-up on a busy machine: a window opened on those measured nothing).
    const started = performance.now();
    for (;;) {
      const n = (await nginxRequests(port)) ?? before;
      if (n > before + LOAD_BEGUN_REQUESTS) break;
      if (performance.now() - started > 60_000) throw new Error(`${tool} sent no load within 60 s:\n${child.output().slice(-1500)}`);
      await sleep(20);
    }
    await sleep(warmupS * 1000);
    const c0 = await nginxRequests(port);
    const cpu0 = procCpuS(child.pid);
    const faults0 = procMinorFaults(child.pid);
    const t0 = performance.now();
    await sleep(saturationS * 1000);
    const c1 = await nginxRequests(port);
    const cpu1 = procCpuS(child.pid);
    const faults1 = procMinorFaults(child.pid);
    const seconds = (performance.now() - t0) / 1000;
    const maxRssMb = peakRssMb(child.pid);
    if (c0 === undefined || c1 === undefined) return undefined;
    // Two status reads of the bench itself fall in the window.
    const requests = c1 - c0 - 1;
    await child.exited;
    return {
      tool,
      round,
      requests,
      seconds,
      requestsPerS: requests / seconds,
      cpuUsPerRequest: cpu0 === undefined || cpu1 === undefined || requests <= 0 ? undefined : ((cpu1 - cpu0) / requests) * 1e6,
      faultsPerKRequests: faults0 === undefined || faults1 === undefined || requests <= 0 ? undefined : ((faults1 - faults0) / requests) * 1000,
      maxRssMb,
    };
  } finally {
    await child.stop();
  }
}

function toolFigures(runs: readonly WindowRun[]): CliToolFigures {
  const med = (f: (r: WindowRun) => number | undefined): number | undefined => medianOf(runs.map(f));
  return { runs, requestsPerS: med((r) => r.requestsPerS), cpuUsPerRequest: med((r) => r.cpuUsPerRequest), cpu: spreadOf(runs.map((r) => r.cpuUsPerRequest)), maxRssMb: med((r) => r.maxRssMb) };
}

/** The tools of one round, rotated by the round so that none always runs first or after the same one. */
export function roundOrder<T>(tools: readonly T[], round: number): T[] {
  const k = round % Math.max(1, tools.length);
  return [...tools.slice(k), ...tools.slice(0, k)];
}

/** Runs case 8 (reported as unavailable without nginx or wrk's binary for its row). */
export async function runCli(ctx: BenchContext): Promise<CliResult> {
  const { plan } = ctx;
  const windowS = plan.saturationS;
  const empty = { rounds: plan.rounds, windowS, tools: {}, cpuCliToLibrary: undefined, rssCliToLibrary: undefined, rpsCliToAutocannon: undefined, rpsLibraryToAutocannon: undefined, cpuCliToWrk: undefined, cpuLibraryToWrk: undefined };
  const nginx = await startNginx(ctx.peers, flowListBody());
  if (nginx === undefined) {
    ctx.log('cli: nginx is not installed; the case is reported as missing');
    return { available: false, why: 'nginx is not installed', ...empty };
  }
  const cli = await installedCli(ctx.log);
  const dir = mkdtempSync(join(tmpdir(), 'fg-bench-cli-run-'));
  const pass = async (port: number, label: string, tools: readonly Tool[]): Promise<Record<Tool, WindowRun[]>> => {
    const runs = Object.fromEntries(TOOLS.map((t) => [t, []])) as unknown as Record<Tool, WindowRun[]>;
    for (let round = 0; round < plan.rounds; round++) {
      for (const tool of roundOrder(tools, round)) {
        if (tool === 'wrk' && ctx.peers.wrk === undefined) continue;
        ctx.log(`cli: ${label}, round ${round + 1}/${plan.rounds}: ${tool}`);
        const r = await measure(ctx, tool, port, cli.bin, dir, round);
        if (r !== undefined) runs[tool].push(r);
      }
    }
    return runs;
  };
  let runs: Record<Tool, WindowRun[]>;
  let uniqueRuns: Record<Tool, WindowRun[]> | undefined;
  try {
    // The headline first: a different body every answer, as a live service sends.
    const uniqueNginx = await startNginx(ctx.peers, flowListBody(), true);
    if (uniqueNginx !== undefined) {
      try {
        uniqueRuns = await pass(uniqueNginx.port, 'unique bodies', ['flowgauge CLI', 'autocannon', 'wrk', 'flowgauge library', 'flowgauge CLI, validate off']);
      } finally {
        await uniqueNginx.stop();
      }
    }
    try {
      runs = await pass(nginx.port, 'identical bodies', ['flowgauge CLI', 'flowgauge library', 'autocannon', 'wrk']);
    } finally {
      await nginx.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const figures = (r: Record<Tool, WindowRun[]>): Record<Tool, CliToolFigures> => Object.fromEntries(TOOLS.map((t) => [t, toolFigures(r[t])])) as Record<Tool, CliToolFigures>;
  const tools = figures(runs);
  const of = (t: Tool, k: 'requestsPerS' | 'cpuUsPerRequest' | 'maxRssMb'): number | undefined => tools[t][k];
  const unique = uniqueRuns === undefined ? undefined : figures(uniqueRuns);
  const { 'flowgauge CLI, validate off': _notRunOnIdentical, ...identical } = tools;
  return {
    available: true,
    rounds: plan.rounds,
    windowS,
    tools: identical,
    cpuCliToLibrary: ratio(of('flowgauge CLI', 'cpuUsPerRequest'), of('flowgauge library', 'cpuUsPerRequest')),
    rssCliToLibrary: ratio(of('flowgauge CLI', 'maxRssMb'), of('flowgauge library', 'maxRssMb')),
    rpsCliToAutocannon: ratio(of('flowgauge CLI', 'requestsPerS'), of('autocannon', 'requestsPerS')),
    rpsLibraryToAutocannon: ratio(of('flowgauge library', 'requestsPerS'), of('autocannon', 'requestsPerS')),
    cpuCliToWrk: ratio(of('flowgauge CLI', 'cpuUsPerRequest'), of('wrk', 'cpuUsPerRequest')),
    cpuLibraryToWrk: ratio(of('flowgauge library', 'cpuUsPerRequest'), of('wrk', 'cpuUsPerRequest')),
    cpuCliToWrkPerRound: perRoundCpuRatio(runs['flowgauge CLI'], runs.wrk),
    unique:
      unique === undefined || uniqueRuns === undefined
        ? undefined
        : {
            tools: { 'flowgauge CLI': unique['flowgauge CLI'], autocannon: unique.autocannon, wrk: unique.wrk, 'flowgauge library': unique['flowgauge library'], 'flowgauge CLI, validate off': unique['flowgauge CLI, validate off'] },
            rpsCliToAutocannon: ratio(unique['flowgauge CLI'].requestsPerS, unique.autocannon.requestsPerS),
            cpuCliToAutocannon: perRoundCpuRatio(uniqueRuns['flowgauge CLI'], uniqueRuns.autocannon),
            cpuCliOffToAutocannon: perRoundCpuRatio(uniqueRuns['flowgauge CLI, validate off'], uniqueRuns.autocannon),
            cpuCliToWrk: perRoundCpuRatio(uniqueRuns['flowgauge CLI'], uniqueRuns.wrk),
          },
  };
}
