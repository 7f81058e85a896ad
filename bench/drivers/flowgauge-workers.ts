/**
 * flowgauge split over worker threads (a child of bench/run.ts): `executeRun` with `workers: N`,
 * the run session `flowgauge run --workers N` runs, on a listFlows-only scenario, either closed (`--concurrency`
 * workers, as case 1) or open (`--rate`, as case 2, with the server recording arrivals after the
 * warm-up). Reports requests, requests/s over the schedule, and the CPU of the whole process
 * (every thread) per request.
 *
 *   --base-url URL --workers 2 --worker-entry FILE [--concurrency 50 | --rate 5000 --control URL] --duration-s 6 --warmup-s 2
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { executeRun } from '../../src/run/index.js';
import { loadScenario } from '../../src/scenario/index.js';
import { flag, numFlag, printResult } from '../lib/args.js';

const baseUrl = flag('base-url', 'http://127.0.0.1:8080/v1');
const control = flag('control', '');
const workers = numFlag('workers', 2);
const entry = flag('worker-entry', '');
const concurrency = numFlag('concurrency', 0);
const rate = numFlag('rate', 0);
const durationS = numFlag('duration-s', 6);
const warmupS = numFlag('warmup-s', 2);

const dir = mkdtempSync(join(tmpdir(), 'fg-bench-workers-'));
function scenarioFile(seconds: number): string {
  const load =
    rate > 0
      ? { executor: 'constant-arrival-rate', rate: `${rate}/s`, duration: `${seconds}s`, maxInFlight: 1000, gracefulStop: '2s' }
      : { executor: 'constant-concurrency', concurrency, duration: `${seconds}s` };
  const file = join(dir, `bench-workers-${seconds}.json`);
  writeFileSync(file, JSON.stringify({ name: 'bench-workers', tier: { limitPerMinute: 1e9 }, load, mix: [{ op: 'listFlows' }], thresholds: {} }));
  return file;
}

async function run(seconds: number) {
  return executeRun({
    scenario: await loadScenario(scenarioFile(seconds)),
    target: { baseUrl, embedded: false },
    // Each worker gets its share of the connections (64 for the open model, the concurrency for the closed).
    connect: { baseUrl, token: 'fg_bench_token', connections: rate > 0 ? 64 : concurrency },
    workers,
    // As `flowgauge run --workers N`: each worker watches itself; following has nothing to follow here.
    generator: true,
    ...(entry !== '' ? { workerEntry: pathToFileURL(entry) } : {}),
  });
}

/** One run's requests and the whole process's CPU seconds (every thread, worker start-up included). */
async function measured(seconds: number) {
  const cpu0 = process.cpuUsage();
  const { report } = await run(seconds);
  const cpu = process.cpuUsage(cpu0);
  return { report, requests: report.ops.listFlows?.count ?? 0, cpuS: (cpu.user + cpu.system) / 1e6 };
}

// The warm-up doubles as the short run: CPU per request is the long run's extra CPU over its
// extra requests, so starting the threads and loading the code is not charged to requests.
const short = await measured(Math.max(1, warmupS));
if (control !== '') await fetch(`${control}/__bench/record/start`, { method: 'POST' }).then((r) => r.arrayBuffer());
const long = await measured(durationS);
rmSync(dir, { recursive: true, force: true });

const { report, requests } = long;
const scheduleS = report.load.scheduleS ?? report.durationS;
printResult({
  tool: `flowgauge --workers ${workers}`,
  workers,
  requests,
  errors: report.ops.listFlows?.bad ?? 0,
  scheduleS,
  requestsPerS: requests / scheduleS,
  cpuS: long.cpuS,
  cpuUsPerRequest: long.requests > short.requests ? ((long.cpuS - short.cpuS) * 1e6) / (long.requests - short.requests) : undefined,
  scheduleLagP99Ms: report.load.scheduleLagMs.p99,
});
