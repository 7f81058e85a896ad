/**
 * The cost of a journey (a child of bench/run.ts): the same requests sent as a mix (one per
 * start), as a journey in code (five per iteration), and as compiled steps (five per
 * iteration), at the same request rate. Reports CPU seconds per 10,000 requests of each.
 *
 *   --base-url URL --rate 2000 --duration-s 6 --mode mix|journey|steps
 */
import { createClient } from '../../src/api/index.js';
import { executeRun } from '../../src/run/index.js';
import { resolveScenario, type Journey } from '../../src/scenario/index.js';
import { flag, numFlag, printResult } from '../lib/args.js';

const baseUrl = flag('base-url', 'http://127.0.0.1:8080/v1');
const requestRate = numFlag('rate', 2000);
const durationS = numFlag('duration-s', 6);
const mode = flag('mode', 'mix');
const STEPS = 5;

const journey: Journey = async (vu) => {
  for (let i = 0; i < STEPS; i++) await vu.listFlows({ limit: 20 });
};

function scenario(seconds: number) {
  const common = { name: `bench-${mode}`, tier: { limitPerMinute: 1e9 } };
  const load = (rate: number) => ({ executor: 'constant-arrival-rate', rate: `${rate}/s`, duration: `${seconds}s`, maxInFlight: 2000, gracefulStop: '2s' });
  if (mode === 'mix') return resolveScenario({ ...common, load: load(requestRate), mix: [{ op: 'listFlows', query: { limit: 20 } }] });
  if (mode === 'journey') return resolveScenario({ ...common, load: load(requestRate / STEPS), journey });
  return resolveScenario({ ...common, load: load(requestRate / STEPS), steps: Array.from({ length: STEPS }, () => ({ op: 'listFlows', query: { limit: 20 } })) });
}

const client = createClient({ baseUrl, token: 'fg_bench_token', connections: 64 });
const target = { baseUrl, embedded: false };
await executeRun({ scenario: scenario(1), client, target });
const cpu0 = process.cpuUsage();
const { report } = await executeRun({ scenario: scenario(durationS), client, target });
const cpu = process.cpuUsage(cpu0);
await client.close();
const requests = report.ops.listFlows?.count ?? 0;
printResult({
  tool: `flowgauge-${mode}`,
  requests,
  errors: report.slo.bad,
  cpuS: (cpu.user + cpu.system) / 1e6,
  cpuPer10kS: requests === 0 ? null : ((cpu.user + cpu.system) / 1e6 / requests) * 10_000,
});
