/**
 * Case 7: start-up of the installed CLI (`npm pack` → `npm install -g` into a temporary prefix,
 * bench/lib/installed.ts). `node -e 0`, `flowgauge --version`, `flowgauge --help`, each from
 * spawn to exit, and `flowgauge run tiny.ts` and `flowgauge run tiny.json` from spawn to the
 * first request a local server receives (tiny.ts is a TypeScript scenario importing `flowgauge`,
 * with a type annotation, so it needs a TypeScript loader: Node's type stripping where that Node
 * has it, tsx elsewhere; tiny.json is the same scenario as JSON, which needs no loader and no
 * import of the package's entry).
 * Commands alternate within each round, pinned to the generator core; figures are medians.
 * With `--node-bins a,b`, the same again on each of those Node binaries (e.g. Node 22 and 24).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FLOW_LIST_HEADERS, flowListBody } from '../lib/flow-list-body.js';
import { installedCli } from '../lib/installed.js';
import { which } from '../lib/proc.js';
import { GENERATOR_CORE, spawnChild } from '../lib/proc.js';
import { medianOf } from '../lib/stats.js';
import type { BenchContext } from './context.js';

/** One command's figures on one Node (medians over rounds). */
export interface StartupFigures {
  /** Spawn to exit (to the first request for `run`), ms. */
  readonly wallMs: number | undefined;
  /** User + system CPU of the process, ms (not for `run`, which is stopped at its first request). */
  readonly cpuMs: number | undefined;
  /** Peak resident memory, MB (not for `run`). */
  readonly maxRssMb: number | undefined;
  /** wallMs ÷ `node -e 0`'s. */
  readonly ratioToNode: number | undefined;
  readonly samplesMs: readonly number[];
}

/** Start-up on one Node binary. */
export interface StartupOnNode {
  readonly node: string;
  /** How that Node loads a .ts scenario: `type stripping` (Node's own) or `tsx`. */
  readonly tsLoader: 'type stripping' | 'tsx';
  readonly nodeE0: StartupFigures;
  readonly version: StartupFigures;
  readonly help: StartupFigures;
  readonly runToFirstRequest: StartupFigures;
  /** `run tiny.json` (the same scenario as JSON) to its first request. */
  readonly runJsonToFirstRequest: StartupFigures;
}

/** Case 7 results: the bench's own Node first. */
export interface StartupResult {
  readonly rounds: number;
  readonly nodes: readonly StartupOnNode[];
}

const TINY = `import { defineScenario } from 'flowgauge';

const rate: string = '5/s';
export default defineScenario({
  name: 'tiny',
  tier: 'pro',
  load: { executor: 'constant-arrival-rate', rate, duration: '2s' },
  mix: [{ op: 'listFlows' }],
});
`;

/** tiny.ts as JSON: what a run pays for without a TypeScript loader or the package's entry. */
const TINY_JSON = `${JSON.stringify({ name: 'tiny', tier: 'pro', load: { executor: 'constant-arrival-rate', rate: '5/s', duration: '2s' }, mix: [{ op: 'listFlows' }] }, null, 2)}\n`;

interface Sample {
  readonly wallMs: number;
  readonly cpuMs: number | undefined;
  readonly maxRssMb: number | undefined;
}

/** Runs `node args` to its exit under /usr/bin/time (when present), pinned. */
async function timedRun(node: string, args: readonly string[], dir: string): Promise<Sample> {
  const time = which('time');
  const out = join(dir, 'time.txt');
  const t0 = performance.now();
  const child = time === undefined ? spawnChild(node, args, GENERATOR_CORE) : spawnChild(time, ['-f', '%U %S %M', '-o', out, node, ...args], GENERATOR_CORE);
  const code = await child.exited;
  const wallMs = performance.now() - t0;
  if (code !== 0) throw new Error(`${node} ${args.join(' ')} exited ${code}:\n${child.output().slice(-1000)}`);
  if (time === undefined) return { wallMs, cpuMs: undefined, maxRssMb: undefined };
  const [u, s, kb] = readFileSync(out, 'utf8').trim().split('\n').pop()!.split(/\s+/).map(Number);
  return { wallMs, cpuMs: ((u ?? NaN) + (s ?? NaN)) * 1000, maxRssMb: (kb ?? NaN) / 1024 };
}

/** Spawns `run <scenario>` and resolves with the time from spawn to the first request at a local server. */
async function toFirstRequest(node: string, bin: string, scenario: string, dir: string): Promise<Sample> {
  const body = Buffer.from(flowListBody());
  let first: ((at: number) => void) | undefined;
  const arrived = new Promise<number>((resolve) => (first = resolve));
  const server = createServer((req, res) => {
    first?.(performance.now());
    first = undefined;
    req.resume();
    res.writeHead(200, { ...FLOW_LIST_HEADERS, 'content-length': String(body.length) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
  const t0 = performance.now();
  const child = spawnChild(node, [bin, 'run', scenario, '--base-url', `http://127.0.0.1:${port}/v1`, '--token', 'fg_bench_token', '--quiet', '--out', join(dir, 'out')], GENERATOR_CORE);
  try {
    const at = await Promise.race([
      arrived,
      child.exited.then((c) => {
        throw new Error(`flowgauge run exited (${c}) before its first request:\n${child.output().slice(-1500)}`);
      }),
    ]);
    return { wallMs: at - t0, cpuMs: undefined, maxRssMb: undefined };
  } finally {
    await child.stop(500);
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

function figures(samples: readonly Sample[], nodeWallMs: number | undefined): StartupFigures {
  const pick = (f: (s: Sample) => number | undefined): number | undefined => medianOf(samples.map(f));
  const wallMs = pick((s) => s.wallMs);
  return {
    wallMs,
    cpuMs: pick((s) => s.cpuMs),
    maxRssMb: pick((s) => s.maxRssMb),
    ratioToNode: wallMs === undefined || nodeWallMs === undefined || nodeWallMs === 0 ? undefined : wallMs / nodeWallMs,
    samplesMs: samples.map((s) => Math.round(s.wallMs)),
  };
}

async function onNode(ctx: BenchContext, node: string, bin: string, rounds: number, dir: string, scenario: string, jsonScenario: string): Promise<StartupOnNode> {
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  const strips = execFileSync(node, ['-p', 'Boolean(process.features.typescript)'], { encoding: 'utf8' }).trim() === 'true';
  const s: Record<'nodeE0' | 'version' | 'help' | 'run' | 'runJson', Sample[]> = { nodeE0: [], version: [], help: [], run: [], runJson: [] };
  // One unmeasured pass: the page cache holds the package's files after it, as for a user's second call.
  await timedRun(node, [bin, '--help'], dir);
  await toFirstRequest(node, bin, scenario, dir);
  await toFirstRequest(node, bin, jsonScenario, dir);
  for (let round = 0; round < rounds; round++) {
    ctx.log(`startup (${version}): round ${round + 1}/${rounds}`);
    s.nodeE0.push(await timedRun(node, ['-e', '0'], dir));
    s.version.push(await timedRun(node, [bin, '--version'], dir));
    s.help.push(await timedRun(node, [bin, '--help'], dir));
    s.run.push(await toFirstRequest(node, bin, scenario, dir));
    s.runJson.push(await toFirstRequest(node, bin, jsonScenario, dir));
  }
  const base = figures(s.nodeE0, undefined);
  return {
    node: version,
    tsLoader: strips ? 'type stripping' : 'tsx',
    nodeE0: { ...base, ratioToNode: 1 },
    version: figures(s.version, base.wallMs),
    help: figures(s.help, base.wallMs),
    runToFirstRequest: figures(s.run, base.wallMs),
    runJsonToFirstRequest: figures(s.runJson, base.wallMs),
  };
}

/** Runs case 7 on the bench's Node and on each of `extraNodes`. */
export async function runStartup(ctx: BenchContext, extraNodes: readonly string[]): Promise<StartupResult> {
  const cli = await installedCli(ctx.log);
  const dir = mkdtempSync(join(tmpdir(), 'fg-bench-startup-'));
  const rounds = ctx.plan.quick ? 3 : 7;
  try {
    const scenario = join(dir, 'tiny.ts');
    writeFileSync(scenario, TINY);
    const jsonScenario = join(dir, 'tiny.json');
    writeFileSync(jsonScenario, TINY_JSON);
    const nodes: StartupOnNode[] = [];
    for (const node of [process.execPath, ...extraNodes]) nodes.push(await onNode(ctx, node, cli.bin, rounds, dir, scenario, jsonScenario));
    return { rounds, nodes };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
