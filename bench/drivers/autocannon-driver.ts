/**
 * autocannon as a generator (a child of bench/run.ts), through its programmatic API in its own
 * process so it is measured exactly like the flowgauge driver: a warm-up run, then the measured
 * run with `process.cpuUsage` around it.
 *
 *   --url URL --connections 50 --duration-s 10 --warmup-s 2 [--rate 5000] [--pipelining 1]
 *
 * With `--rate`, autocannon's `overallRate` caps the request rate (its open-ish mode).
 */
import autocannon from 'autocannon';
import { flag, numFlag, printResult } from '../lib/args.js';

const url = flag('url', 'http://127.0.0.1:8080/v1/flows');
const connections = numFlag('connections', 50);
const durationS = numFlag('duration-s', 10);
const warmupS = numFlag('warmup-s', 2);
const rate = numFlag('rate', 0);
const pipelining = numFlag('pipelining', 1);
const headers = { authorization: 'Bearer fg_bench_token', accept: 'application/json' };

function drive(seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections,
    pipelining,
    duration: seconds,
    headers,
    ...(rate > 0 ? { overallRate: rate } : {}),
  });
}

if (warmupS > 0) await drive(warmupS);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const r = await drive(durationS);
const elapsedS = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
printResult({
  tool: 'autocannon',
  requests: r.requests.total,
  durationS: r.duration,
  elapsedS,
  requestsPerS: r.requests.total / r.duration,
  errors: r.errors + r.timeouts,
  non2xx: r.non2xx,
  cpuS: (cpu.user + cpu.system) / 1e6,
  latencyMs: { p50: r.latency.p50, p99: r.latency.p99 },
  maxRssMb: process.resourceUsage().maxRSS / 1024,
});
