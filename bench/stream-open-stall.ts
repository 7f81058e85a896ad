/**
 * The event loop while 10,000 streams open (not part of `npm run bench`; an A/B tool for
 * connect pacing). Starts the SSE server pinned to CPU 0 (long streams: 20 tokens, one every
 * 500 ms), then, in this process, a closed model of `--streams` workers each calling
 * `client.stream()`, as a run does. The event-loop delay (1 ms resolution) is recorded from the
 * start until every stream has its response head, and again for the rest of `--duration-s`:
 *
 *   node --import tsx bench/stream-open-stall.ts [--streams 10000] [--duration-s 15]
 *
 * Prints `RESULT {openingS, openingLoopDelayMs: {p99, max}, afterLoopDelayMs, maxRssMb, errors}`.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createClient } from '../src/api/index.js';
import { createSystemClock } from '../src/core/clock.js';
import { createExecutor } from '../src/load/index.js';
import { numFlag, printResult } from './lib/args.js';
import { execFileSync } from 'node:child_process';
import { canPin, GENERATOR_CORE, SERVER_CORE, spawnTs } from './lib/proc.js';

const streams = numFlag('streams', 10_000);
const durationS = numFlag('duration-s', 15);

const server = await spawnTs('servers/sse-server.ts', ['--tokens', '20', '--interval-ms', '500', '--first-ms', '20'], SERVER_CORE);
try {
  const ready = await server.waitFor(/READY (.*)/);
  const { port } = JSON.parse(ready[1] as string) as { port: number };
  // This process (every thread) on the generator core, the server alone on its own: a client
  // left to float shares a core with the server, and its stalls are then the server's.
  if (canPin()) execFileSync('taskset', ['-a', '-p', '-c', String(GENERATOR_CORE), String(process.pid)], { stdio: 'ignore' });
  const client = createClient({ baseUrl: `http://127.0.0.1:${port}/v1`, token: 'fg_bench_token', connections: streams });
  const clock = createSystemClock();
  let opened = 0;
  let errors = 0;
  const job = async (_intendedNs: number, signal: AbortSignal): Promise<void> => {
    let headed = false;
    const r = await client.stream('flow_bench', { input: 'Stream a benchmark answer.' }, {
      signal,
      onEvent: () => {
        if (!headed) {
          headed = true;
          opened++;
        }
      },
    });
    if (!r.ok) errors++;
  };
  const opening = monitorEventLoopDelay({ resolution: 1 });
  const after = monitorEventLoopDelay({ resolution: 1 });
  opening.enable();
  const t0 = performance.now();
  const ex = createExecutor({ executor: 'constant-concurrency', concurrency: streams, durationMs: durationS * 1000, gracefulStopMs: 0 }, { clock, job });
  ex.start();
  let openingS: number | undefined;
  const poll = setInterval(() => {
    if (openingS === undefined && opened >= streams) {
      openingS = (performance.now() - t0) / 1000;
      opening.disable();
      after.enable();
    }
  }, 10);
  await ex.scheduleEnded;
  clearInterval(poll);
  opening.disable();
  after.disable();
  ex.stop();
  await ex.drain(0);
  await client.close();
  const ms = (h: ReturnType<typeof monitorEventLoopDelay>) => ({ p99: h.percentile(99) / 1e6, max: h.max / 1e6 });
  printResult({ streams, opened, openingS, openingLoopDelayMs: ms(opening), afterLoopDelayMs: after.count > 0 ? ms(after) : undefined, maxRssMb: process.resourceUsage().maxRSS / 1024, errors });
} finally {
  await server.stop();
}
