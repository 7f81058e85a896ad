/**
 * `npm run bench`: flowgauge against its peers, in one run, on loopback only.
 *
 *   npm run bench                 every case (about 20 minutes)
 *   npm run bench -- --quick      every case, one round each
 *   npm run bench -- --smoke      every case, cut to a few seconds (1,000 streams in case 3b): does it all run?
 *   npm run bench -- --only saturation,memory,journey
 *   npm run bench -- --only streaming --streams 2000   the streaming case at 2,000 concurrent streams
 *   npm run bench -- --only streaming --streams 5000 --stream-pacing 20x500ms   long-lived paced streams
 *   npm run bench -- --only many-streams          10,000 long-lived streams: opening stall, TTFT error ÷ floor
 *   npm run bench -- --only memory --memory-node-flags=--max-semi-space-size=2
 *   npm run bench -- --only startup,cli --node-bins /opt/node22/bin/node,/opt/node24/bin/node
 *
 * The startup and cli cases run the installed CLI: this checkout packed (`npm pack`) and
 * installed into a temporary prefix once per run. `--node-bins` repeats the startup case on
 * other Node binaries.
 *
 * Servers run pinned to CPU 0 and every generator to CPU 1 (when taskset exists), one
 * generator at a time. Writes reports/bench/<date>.json and reports/bench/<date>.md.
 * A benchmark, not a test: it judges the targets and reports them, it never fails
 * the build (exit code 0 unless a case could not run at all).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { benchPlan, type BenchContext } from './cases/context.js';
import { runJourneyCost } from './cases/journey.js';
import { runWorkers } from './cases/workers.js';
import { runMemory } from './cases/memory.js';
import { runOpenModel } from './cases/open-model.js';
import { runSaturation } from './cases/saturation.js';
import { runStreaming } from './cases/streaming.js';
import { runManyStreams } from './cases/many-streams.js';
import { runCli } from './cases/cli.js';
import { runStartup } from './cases/startup.js';
import { installedCli } from './lib/installed.js';
import { findPeers, versionOf } from './lib/peers.js';
import { canPin, ROOT } from './lib/proc.js';
import { checkTargets, renderBenchMarkdown, type BenchReport } from './lib/report.js';

const CASES = ['startup', 'cli', 'saturation', 'open', 'streaming', 'many-streams', 'memory', 'journey', 'workers'] as const;

function selected(): Set<string> {
  const i = process.argv.indexOf('--only');
  const list = i >= 0 ? (process.argv[i + 1] ?? '').split(',').filter((s) => s !== '') : [...CASES];
  const unknown = list.filter((c) => !(CASES as readonly string[]).includes(c));
  if (unknown.length > 0) throw new Error(`--only: unknown case(s) ${unknown.join(', ')}; cases are ${CASES.join(', ')}`);
  return new Set(list);
}

async function main(): Promise<void> {
  const smoke = process.argv.includes('--smoke');
  const quick = smoke || process.argv.includes('--quick');
  const flagsArg = process.argv.find((a) => a.startsWith('--memory-node-flags='));
  const memoryNodeFlags = flagsArg === undefined ? [] : flagsArg.slice('--memory-node-flags='.length).split(/\s+/).filter((f) => f !== '');
  const only = selected();
  const si = process.argv.indexOf('--streams');
  const streams = si >= 0 ? Number(process.argv[si + 1]) : 200;
  if (!(Number.isInteger(streams) && streams >= 1 && streams <= 20_000)) throw new Error('--streams: give a whole number of concurrent streams from 1 to 20000');
  const pi = process.argv.indexOf('--stream-pacing');
  const pacingMatch = pi >= 0 ? /^(\d+)x(\d+)ms$/.exec(process.argv[pi + 1] ?? '') : /^(20)x(20)ms$/.exec('20x20ms');
  if (pacingMatch === null) throw new Error('--stream-pacing: give TOKENSxGAPms, e.g. 20x500ms (20 tokens, one every 500 ms)');
  const pacing = { tokens: Number(pacingMatch[1]), intervalMs: Number(pacingMatch[2]) };
  const started = performance.now();
  const peers = findPeers();
  const ctx: BenchContext = {
    plan: benchPlan(quick, memoryNodeFlags, streams, pacing, smoke),
    peers,
    log: (m) => process.stderr.write(`bench: ${m}\n`),
  };
  const loadStart = loadavg();
  ctx.log(`cases: ${[...only].join(', ')}${smoke ? ' (smoke)' : quick ? ' (quick)' : ''}; pinned: ${canPin()}`);

  const ni = process.argv.indexOf('--node-bins');
  const nodeBins = ni >= 0 ? (process.argv[ni + 1] ?? '').split(',').filter((s) => s !== '') : [];

  const startup = only.has('startup') ? await runStartup(ctx, nodeBins) : undefined;
  const cli = only.has('cli') ? await runCli(ctx) : undefined;
  const saturation = only.has('saturation') ? await runSaturation(ctx) : undefined;
  const openModel = only.has('open') ? await runOpenModel(ctx) : undefined;
  const streaming = only.has('streaming') ? await runStreaming(ctx) : undefined;
  const manyStreams = only.has('many-streams') ? await runManyStreams(ctx) : undefined;
  const memory = only.has('memory') ? await runMemory(ctx) : undefined;
  const journey = only.has('journey') ? await runJourneyCost(ctx) : undefined;
  const workers = only.has('workers') ? await runWorkers(ctx, availableParallelism()) : undefined;

  const now = new Date();
  const report: BenchReport = {
    schema: 'flowgauge/bench@1',
    date: now.toISOString(),
    quick,
    machine: { cpus: availableParallelism(), node: process.version, pinned: canPin(), loadAverageStart: loadStart, loadAverageEnd: loadavg() },
    peers: {
      autocannon: peers.autocannon === undefined ? null : `autocannon ${peers.autocannon} (npm)`,
      wrk: versionOf(peers.wrk, ['-v']) ?? null,
      hey: peers.hey ?? null,
      nginx: versionOf(peers.nginx, ['-v']) ?? null,
    },
    saturation,
    openModel,
    streaming,
    manyStreams,
    memory,
    journey,
    workers,
    cli,
    startup,
    targets: checkTargets({ saturation, openModel, streaming, manyStreams, memory, journey, workers, cli, startup }),
    elapsedS: (performance.now() - started) / 1000,
  };
  const dir = join(ROOT, 'reports', 'bench');
  mkdirSync(dir, { recursive: true });
  const stamp = now.toISOString().replace(/[:]/g, '').replace(/\.\d+Z$/, 'Z');
  const name = `${stamp}${smoke ? '-smoke' : quick ? '-quick' : ''}`;
  writeFileSync(join(dir, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
  const md = renderBenchMarkdown(report);
  writeFileSync(join(dir, `${name}.md`), md);
  process.stdout.write(`${md}\nwritten: reports/bench/${name}.json and .md\n`);
  if (only.has('startup') || only.has('cli')) (await installedCli(ctx.log)).remove();
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
