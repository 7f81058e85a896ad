/**
 * The open model beside a competing busy process (not part of `npm run bench`; an A/B tool for
 * the clock's waits). The json server runs on CPU 0; on CPU 1 a Node process spins for the
 * whole case while flowgauge's open model and then hey send 5,000 requests/s. Arrivals are
 * judged where they land, as in the open-model case (50 ms buckets, first second and last half
 * second trimmed), and each tool's CPU time per arrival is its own process's:
 *
 *   node --import tsx bench/open-contention.ts [--rate 5000] [--duration-s 10] [--rounds 2] [--quiet]
 *
 * `--quiet` leaves the competitor out. Prints one RESULT line per tool and round.
 */
import { spawn } from 'node:child_process';
import { arrivalFigures } from './lib/stats.js';
import { findPeers, runHey } from './lib/peers.js';
import { canPin, GENERATOR_CORE, resultOf, SERVER_CORE, spawnTs } from './lib/proc.js';
import { flag, hasFlag, numFlag, printResult } from './lib/args.js';

const rate = numFlag('rate', 5000);
const seconds = numFlag('duration-s', 10);
const rounds = numFlag('rounds', 2);
const tools = flag('tools', 'flowgauge,hey').split(',');
const competing = !hasFlag('quiet');

async function post(url: string): Promise<unknown> {
  const res = await fetch(url, { method: 'POST' });
  const text = await res.text();
  return text === '' ? undefined : JSON.parse(text);
}

const server = await spawnTs('servers/json-server.ts', [], SERVER_CORE);
const busy = competing
  ? spawn(canPin() ? 'taskset' : process.execPath, canPin() ? ['-c', String(GENERATOR_CORE), process.execPath, '-e', 'for(;;){}'] : ['-e', 'for(;;){}'], { stdio: 'ignore' })
  : undefined;
try {
  const ready = await server.waitFor(/READY (.*)/);
  const { port } = JSON.parse(ready[1] as string) as { port: number };
  const control = `http://127.0.0.1:${port}`;
  const peers = findPeers();
  for (let r = 0; r < rounds; r++) {
    for (const tool of tools) {
      let cpuS: number | undefined;
      let lagMs: unknown;
      if (tool === 'flowgauge') {
        const fg = spawnTs('drivers/flowgauge-open.ts', ['--base-url', `${control}/v1`, '--control', control, '--rate', String(rate), '--duration-s', String(seconds), '--warmup-s', '2'], GENERATOR_CORE);
        const out = await resultOf<{ cpuS: number; scheduleLagMs: unknown }>(fg, 300_000);
        cpuS = out.cpuS;
        lagMs = out.scheduleLagMs;
      } else {
        await post(`${control}/__bench/record/start`);
        cpuS = (await runHey(peers, `${control}/v1/flows`, rate, 50, seconds))?.cpuS;
      }
      const { stampsMs } = (await post(`${control}/__bench/record/stop`)) as { stampsMs: number[] };
      const f = arrivalFigures(stampsMs, 50, 1000, 500);
      printResult({ round: r + 1, tool, competing, ratePerS: f.ratePerS, cv: f.cv, peakToMean: f.peakToMean, cpuUsPerArrival: cpuS === undefined ? undefined : (cpuS * 1e6) / stampsMs.length, scheduleLagMs: lagMs });
    }
  }
} finally {
  busy?.kill('SIGKILL');
  await server.stop();
}
