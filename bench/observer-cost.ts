/**
 * What the run's outputs and phases cost per request (not part of `npm run bench`; an A/B tool
 * for one change). Starts the json server pinned to CPU 0 when it can, then runs flowgauge's
 * closed model against it, in this process, with one set of them, and prints CPU per request
 * and peak RSS of the measured run:
 *
 *   node --import tsx bench/observer-cost.ts --observers none|noop-sample|default|cli|cli-no-follow [--unique]
 *     [--validate full|sample|off] [--concurrency 50] [--duration-s 8] [--warmup-s 2]
 *
 * `default` is following, the generator watch and a progress listener; `cli` adds the audit, as
 * `flowgauge run` has it by default (`cli-no-follow`: `--no-follow`); `noop-sample` is one
 * output with an empty `sample` hook.
 */
import { createClient } from '../src/api/index.js';
import { executeRun, type RunOptions } from '../src/run/index.js';
import { resolveScenario } from '../src/scenario/index.js';
import { flag, hasFlag, numFlag, printResult } from './lib/args.js';
import { SERVER_CORE, spawnTs } from './lib/proc.js';

const which = flag('observers', 'default');
const concurrency = numFlag('concurrency', 50);
const durationS = numFlag('duration-s', 8);
const warmupS = numFlag('warmup-s', 2);
const validate = flag('validate', 'full');

/** The outputs and phases of each set (`default`: progress, following and the generator's watch). */
function observers(): Partial<RunOptions> {
  if (which === 'none') return {};
  if (which === 'noop-sample') return { outputs: [{ name: 'noop', sample: () => undefined }] };
  // What `flowgauge run` has by default (the audit is on there), with and without following.
  if (which === 'cli') return { onProgress: () => undefined, audit: true, follow: true, generator: true };
  if (which === 'cli-no-follow') return { onProgress: () => undefined, audit: true, generator: true };
  return { onProgress: () => undefined, follow: true, generator: true };
}

const server = await spawnTs('servers/json-server.ts', hasFlag('unique') ? ['--unique'] : [], SERVER_CORE);
try {
  const ready = await server.waitFor(/READY (.*)/);
  const { port } = JSON.parse(ready[1] as string) as { port: number };
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const scenario = (seconds: number) =>
    resolveScenario({
      name: 'bench-observers',
      tier: { limitPerMinute: 1e9 },
      load: { executor: 'constant-concurrency', concurrency, duration: `${seconds}s`, gracefulStop: '2s' },
      mix: [{ op: 'listFlows', weight: 1 }],
      validate,
    });
  const client = createClient({ baseUrl, token: 'fg_bench_token', connections: concurrency });
  const target = { baseUrl, embedded: false };
  if (warmupS > 0) await executeRun({ scenario: scenario(warmupS), client, target, ...observers() });
  const cpu0 = process.cpuUsage();
  const { report } = await executeRun({ scenario: scenario(durationS), client, target, ...observers() });
  const cpu = process.cpuUsage(cpu0);
  await client.close();
  const requests = report.ops.listFlows?.count ?? 0;
  printResult({
    observers: which,
    validate,
    requests,
    requestsPerS: requests / report.durationS,
    cpuUsPerRequest: ((cpu.user + cpu.system) / requests),
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  });
} finally {
  await server.stop();
}
