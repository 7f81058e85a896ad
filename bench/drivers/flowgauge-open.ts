/**
 * flowgauge in the open model (a child of bench/run.ts): `executeRun` with
 * `constant-arrival-rate`, collectors on, `listFlows` only. After a warm-up run at the same
 * rate, it asks the server to start recording arrivals, runs the measured schedule, and
 * reports its own view (achieved rate, scheduling lag, dropped); bench/run.ts then reads the
 * server's arrival stamps, which are the figures that count.
 *
 *   --base-url URL --control URL --rate 5000 --duration-s 20 --warmup-s 2
 */
import { createClient } from '../../src/api/index.js';
import { executeRun } from '../../src/run/index.js';
import { resolveScenario } from '../../src/scenario/index.js';
import { flag, numFlag, printResult } from '../lib/args.js';

const baseUrl = flag('base-url', 'http://127.0.0.1:8080/v1');
const control = flag('control', '');
const rate = numFlag('rate', 5000);
const durationS = numFlag('duration-s', 20);
const warmupS = numFlag('warmup-s', 2);

function scenario(seconds: number) {
  return resolveScenario({
    name: 'bench-open',
    tier: { limitPerMinute: 1e9 },
    load: { executor: 'constant-arrival-rate', rate: `${rate}/s`, duration: `${seconds}s`, maxInFlight: 1000, gracefulStop: '2s' },
    mix: [{ op: 'listFlows', weight: 1 }],
  });
}

const client = createClient({ baseUrl, token: 'fg_bench_token', connections: 64 });
const target = { baseUrl, embedded: false };
if (warmupS > 0) await executeRun({ scenario: scenario(warmupS), client, target });
if (control !== '') await fetch(`${control}/__bench/record/start`, { method: 'POST' });

const cpu0 = process.cpuUsage();
const { report } = await executeRun({ scenario: scenario(durationS), client, target });
const cpu = process.cpuUsage(cpu0);
await client.close();

const load = report.load;
printResult({
  tool: 'flowgauge',
  targetRatePerS: rate,
  started: load.started,
  dropped: load.dropped,
  achievedRatePerS: load.started / durationS,
  scheduleLagMs: load.scheduleLagMs,
  latencyMs: report.ops.listFlows?.latencyMs,
  errors: report.slo.bad,
  cpuS: (cpu.user + cpu.system) / 1e6,
});
