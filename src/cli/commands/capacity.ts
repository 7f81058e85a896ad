/**
 * `flowgauge capacity <op>`: the highest throughput of one operation that meets a latency and
 * an error objective. Closed-model steps on flowgauge's own client at doubling concurrency,
 * then a bisection, every answer judged as `run` judges it; prints each step, the verdict
 * (stopped by rate limiting, or by service capacity) and an ASCII chart, and writes
 * capacity.json and a self-contained capacity.html.
 */
import { resolve } from 'node:path';
import { createClient } from '../../api/index.js';
import { OPS, isOpName, type OpName } from '../../core/ops.js';
import { DURATION_HELP, parseDurationMs, parsePercent } from '../../core/units.js';
import { createClientMeasure, describeCapacity, renderCapacityAscii, renderCapacityHtml, renderCapacityTable, sweepCapacity, type CapacityObjectives } from '../../capacity/index.js';
import { prepareTargets } from '../../run/prepare.js';
import { resolveScenario } from '../../scenario/index.js';
import { UsageError } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { checkReportDir } from '../run-input.js';
import { checkOutFlag, writeReportFiles } from '../report-files.js';
import { resolveTarget, TARGET_OPTIONS, withEnvBaseUrl, type TargetArgs } from '../target-options.js';
import type { MakeCommand } from './command.js';

interface CapacityArgs extends TargetArgs {
  op: string;
  p99: string;
  'max-errors': string;
  step: string;
  start: number;
  'max-concurrency': number;
  out?: string | undefined;
  json?: boolean | undefined;
}

function parseArgs(args: CapacityArgs): { op: OpName; p99Ms: number; maxErrorRatio: number; stepS: number } {
  if (!isOpName(args.op)) throw new UsageError(`"${args.op}" is not an operation; use one of ${OPS.join(', ')}`);
  const p99Ms = parseDurationMs(args.p99);
  if (p99Ms === undefined || p99Ms <= 0) throw new UsageError(`--p99 "${args.p99}" is not ${DURATION_HELP}`);
  const maxErrorRatio = parsePercent(args['max-errors']);
  if (maxErrorRatio === undefined || maxErrorRatio >= 1) throw new UsageError(`--max-errors "${args['max-errors']}" is not a percentage below 100%, e.g. 1%`);
  const stepMs = parseDurationMs(args.step);
  if (stepMs === undefined || stepMs < 1000) throw new UsageError(`--step "${args.step}" must be at least 1s (${DURATION_HELP})`);
  for (const flag of ['start', 'max-concurrency'] as const) {
    const v = args[flag];
    if (!Number.isInteger(v) || v < 1) throw new UsageError(`--${flag} must be a whole number >= 1, got ${v}`);
  }
  if (args['max-concurrency'] < args.start) throw new UsageError(`--max-concurrency (${args['max-concurrency']}) is below --start (${args.start})`);
  // Steps are whole seconds, as the table shows them.
  return { op: args.op, p99Ms, maxErrorRatio, stepS: Math.round(stepMs / 1000) };
}

/** The `capacity` command. */
export const capacityCommand: MakeCommand = (ctx) => ({
  command: 'capacity <op>',
  describe: 'find the highest throughput of one operation that meets a p99 and an error objective',
  builder: (y) =>
    y
      .positional('op', { type: 'string', demandOption: true, describe: `operation: ${OPS.join(', ')}` })
      .options(TARGET_OPTIONS)
      .options({
        p99: { type: 'string', default: '500ms', describe: `latency objective: p99 at most this (${DURATION_HELP})` },
        'max-errors': { type: 'string', default: '1%', describe: 'error objective: at most this share of failed requests, 429s included' },
        step: { type: 'string', default: '5s', describe: 'length of each step (whole seconds)' },
        start: { type: 'number', default: 1, describe: 'first concurrency' },
        'max-concurrency': { type: 'number', default: 256, describe: 'highest concurrency tried' },
        out: { type: 'string', describe: 'directory for capacity.json and capacity.html (default reports/capacity-<op>-<timestamp>/)' },
        json: { type: 'boolean', describe: 'print capacity.json to stdout; the table goes to stderr' },
      }),
  handler: async (argv) => {
    const { io } = ctx;
    const args = withEnvBaseUrl(argv as unknown as CapacityArgs, io.env);
    checkOutFlag(args.out);
    const { op, p99Ms, maxErrorRatio, stepS } = parseArgs(args);
    const log = args.json === true ? io.stderr : io.stdout;
    await checkReportDir(io.cwd, args.out);
    const target = await resolveTarget(args, io, 'enterprise');
    try {
      if (target.embedded) log.write(`flowgauge: no --base-url given; sweeping the embedded reference service at ${target.baseUrl}\n`);
      // One connection per request in flight at the highest step; the run's caps and deadlines on every answer.
      const client = createClient({
        baseUrl: target.baseUrl,
        token: target.token,
        ...(target.webhookHost !== undefined ? { webhookHost: target.webhookHost } : {}),
        ...target.client,
        connections: Math.max(args['max-concurrency'], 1),
      });
      try {
        // The ids the operation needs (a published flow, a session, a run), found the way a run finds them.
        const prep = resolveScenario({ name: 'capacity', tier: { limitPerMinute: 1e9 }, load: { executor: 'constant-concurrency', concurrency: 1, duration: '1s' }, mix: [{ op }] });
        const targets = await prepareTargets(client, prep);
        // One more read for the advertised limit, so a throttled sweep can say what it hit.
        const advertisedLimit = (await client.listFlows({ limit: 1 })).meta.rateLimit?.limit;
        const entry = prep.mix[0];
        if (entry === undefined) throw new UsageError(`capacity ${op}: no operation to measure`);
        const objectives: CapacityObjectives = { op, p99Ms, maxErrorRatio, advertisedLimit };
        const where = op === 'trigger' ? `${client.webhookHost}/api/v1/webhook/…` : `${client.baseUrl}/…`;
        log.write(`flowgauge: capacity of ${op} (${where}): ${stepS}s steps from concurrency ${args.start} up to ${args['max-concurrency']}\n`);
        const startedAtMs = Date.now();
        const result = await sweepCapacity({
          p99Ms,
          maxErrorRatio,
          startConcurrency: args.start,
          maxConcurrency: args['max-concurrency'],
          measure: createClientMeasure({ client, entry, targets, durationS: stepS }),
          onStep: (s) => {
            const why = Object.entries(s.bad ?? {}).sort((a, b) => b[1] - a[1]).slice(0, 3).map(([k, n]) => `${k} ×${n}`).join(', ');
            log.write(`  concurrency ${s.concurrency}: ${s.goodPerS.toFixed(0)} good/s, p99 ${s.p99Ms.toFixed(1)} ms, errors ${(s.errorRatio * 100).toFixed(1)}%${why === '' ? '' : ` (${why})`}${s.meets ? '' : ` (fails: ${s.limit ?? ''})`}\n`);
          },
        });
        const verdict = describeCapacity(result, objectives);
        log.write(`\n${renderCapacityTable(result)}\n${renderCapacityAscii(result)}\n${verdict}\n`);

        const stamp = new Date(startedAtMs).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
        const dir = args.out !== undefined ? resolve(io.cwd, args.out) : resolve(io.cwd, 'reports', `capacity-${op}-${stamp}`);
        const subtitle = `${op} at ${where}${target.embedded ? ' (embedded reference service)' : ''}, ${stepS}s steps, ${new Date(startedAtMs).toISOString()}`;
        const json = JSON.stringify(
          { schema: 'flowgauge/capacity@1', op, target: { baseUrl: client.baseUrl, embedded: target.embedded }, objectives: { p99Ms, maxErrorRatio }, stepS, startedAt: new Date(startedAtMs).toISOString(), verdict, ...result },
          null,
          2,
        );
        const written = await writeReportFiles(dir, { 'capacity.json': `${json}\n`, 'capacity.html': renderCapacityHtml(result, objectives, subtitle) });
        log.write(`flowgauge: wrote ${written.join(', ')}\n`);
        if (args.json === true) io.stdout.write(`${json}\n`);
        ctx.setExit(result.best === undefined ? EXIT.FAILED : EXIT.OK);
      } finally {
        await client.close();
      }
    } finally {
      await target.close();
    }
  },
});
