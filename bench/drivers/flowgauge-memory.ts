/**
 * flowgauge's memory over a long closed-model run (a child of bench/run.ts): `executeRun`
 * with collectors on until `--requests` have completed, sampling `process.memoryUsage().rss`
 * every 100 ms; reports the RSS when 10 % of the requests had completed and at the end, and
 * the peak (`resourceUsage().maxRSS`, the kernel's high-water mark).
 *
 *   --base-url URL --requests 1000000 --concurrency 50
 */
import { createClient } from '../../src/api/index.js';
import { executeRun } from '../../src/run/index.js';
import { resolveScenario } from '../../src/scenario/index.js';
import { flag, numFlag, printResult } from '../lib/args.js';

const baseUrl = flag('base-url', 'http://127.0.0.1:8080/v1');
const requests = numFlag('requests', 1_000_000);
const concurrency = numFlag('concurrency', 50);
const early = Math.round(requests / 10);
const MB = 1024 * 1024;

const scenario = resolveScenario({
  name: 'bench-memory',
  tier: { limitPerMinute: 1e9 },
  // The run is stopped by count; the duration only bounds it.
  load: { executor: 'constant-concurrency', concurrency, duration: '30m', gracefulStop: '5s' },
  mix: [{ op: 'listFlows', weight: 1 }],
});

const client = createClient({ baseUrl, token: 'fg_bench_token', connections: concurrency });
const stop = new AbortController();
const rssStartMb = process.memoryUsage().rss / MB;
let rssEarlyMb: number | undefined;
let rssSampledPeakMb = 0;
const series: { completed: number; rssMb: number; heapUsedMb: number; heapTotalMb: number; externalMb: number }[] = [];
const t0 = performance.now();

const { report } = await executeRun({
  scenario,
  client,
  target: { baseUrl, embedded: false },
  stopSignal: stop.signal,
  progressIntervalMs: 100,
  // As the default set without following: the progress and the generator's watch.
  generator: true,
  onProgress: (p) => {
    const mem = process.memoryUsage();
    const rssMb = mem.rss / MB;
    rssSampledPeakMb = Math.max(rssSampledPeakMb, rssMb);
    if (series.length === 0 || p.completed - (series.at(-1)?.completed ?? 0) >= requests / 20) {
      series.push({ completed: p.completed, rssMb, heapUsedMb: mem.heapUsed / MB, heapTotalMb: mem.heapTotal / MB, externalMb: mem.external / MB });
    }
    if (rssEarlyMb === undefined && p.completed >= early) rssEarlyMb = rssMb;
    if (p.completed >= requests) stop.abort();
  },
});
const elapsedS = (performance.now() - t0) / 1000;
const rssEndMb = process.memoryUsage().rss / MB;
await client.close();
printResult({
  tool: 'flowgauge',
  requests: report.ops.listFlows?.count ?? 0,
  elapsedS,
  rssStartMb,
  rssAtTenthMb: rssEarlyMb,
  rssEndMb,
  rssSampledPeakMb: Math.max(rssSampledPeakMb, rssEndMb),
  maxRssMb: process.resourceUsage().maxRSS / 1024,
  heapUsedMb: process.memoryUsage().heapUsed / MB,
  series,
});
