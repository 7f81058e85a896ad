/**
 * flowgauge as a generator in the closed model (a child of bench/run.ts): `executeRun` with
 * `constant-concurrency`, collectors on, one `listFlows` mix entry, after a warm-up run in the
 * same process (JIT, keep-alive sockets). Reports requests/s and the CPU time of the measured
 * run only (`process.cpuUsage`), so tsx start-up and the warm-up are not charged.
 *
 *   --base-url URL --concurrency 50 --duration-s 10 --warmup-s 2 [--no-validate] [--pipelining 1] [--transport undici]
 */
import { createClient } from '../../src/api/index.js';
import { executeRun } from '../../src/run/index.js';
import { resolveScenario } from '../../src/scenario/index.js';
import { flag, hasFlag, numFlag, printResult } from '../lib/args.js';

const baseUrl = flag('base-url', 'http://127.0.0.1:8080/v1');
const concurrency = numFlag('concurrency', 50);
const durationS = numFlag('duration-s', 10);
const warmupS = numFlag('warmup-s', 2);
const validate = !hasFlag('no-validate');
const pipelining = numFlag('pipelining', 1);
const transport = flag('transport', 'auto') as 'auto' | 'h1' | 'undici';

function scenario(seconds: number) {
  return resolveScenario({
    name: 'bench-closed',
    tier: { limitPerMinute: 1e9 },
    load: { executor: 'constant-concurrency', concurrency, duration: `${seconds}s`, gracefulStop: '2s' },
    mix: [{ op: 'listFlows', weight: 1 }],
  });
}

const client = createClient({ baseUrl, token: 'fg_bench_token', connections: concurrency, pipelining, validate, transport });
const target = { baseUrl, embedded: false };
if (warmupS > 0) await executeRun({ scenario: scenario(warmupS), client, target });

const cpu0 = process.cpuUsage();
const { report } = await executeRun({ scenario: scenario(durationS), client, target });
const cpu = process.cpuUsage(cpu0);
await client.close();

const op = report.ops.listFlows;
const requests = op?.count ?? 0;
printResult({
  tool: 'flowgauge',
  requests,
  durationS: report.durationS,
  requestsPerS: requests / report.durationS,
  errors: Object.values(op?.errors ?? {}).reduce((a, b) => a + b, 0),
  non2xx: Object.entries(op?.statuses ?? {}).reduce((a, [k, v]) => a + (k.startsWith('2') ? 0 : v), 0),
  cpuS: (cpu.user + cpu.system) / 1e6,
  latencyMs: { p50: op?.latencyMs.p50, p99: op?.latencyMs.p99 },
  maxRssMb: process.resourceUsage().maxRSS / 1024,
});
