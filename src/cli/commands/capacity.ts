/**
 * `flowgauge capacity <op>`: the highest throughput of one operation that meets its latency and
 * error objectives: request p99, and for `stream` the LLM ones a GuideLLM user sweeps by (TTFT
 * p95, TPOT p95). Closed-model steps on flowgauge's own client at doubling concurrency, then a
 * bisection, every answer judged as `run` judges it; prints each step (with TTFT, TPOT and output
 * tokens/s for streams), the verdict (stopped by rate limiting, or by service capacity) and an
 * ASCII chart, and writes capacity.json, capacity.md and a self-contained capacity.html.
 */
import { createClient } from '../../api/index.js';
import { OPS, isOpName, type OpName } from '../../core/ops.js';
import { DURATION_HELP, parseDurationMs, parsePercent } from '../../core/units.js';
import {
  createClientMeasure,
  describeCapacity,
  renderCapacityAscii,
  renderCapacityHtml,
  renderCapacityMarkdown,
  renderCapacityTable,
  sweepCapacity,
  type CapacityObjectives,
  type StepStreamFigures,
} from '../../capacity/index.js';
import { prepareTargets } from '../../run/prepare.js';
import { resolveScenario } from '../../scenario/index.js';
import { UsageError } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { checkReportDir } from '../run-input.js';
import { checkOutFlag, chooseReportDir, writeReportFiles } from '../report-files.js';
import { listenForStop } from '../signals.js';
import { resolveTarget, TARGET_OPTIONS, withEnvBaseUrl, type TargetArgs } from '../target-options.js';
import type { MakeCommand } from './command.js';

interface CapacityArgs extends TargetArgs {
  op: string;
  p99?: string | undefined;
  'ttft-p95'?: string | undefined;
  'tpot-p95'?: string | undefined;
  'max-errors': string;
  step: string;
  start: number;
  'max-concurrency': number;
  out?: string | undefined;
  json?: boolean | undefined;
}

/** The request p99 objective when none is named (and no stream objective either). */
const DEFAULT_P99 = '500ms';

/** A latency objective flag, in ms; undefined when not given. */
function objectiveMs(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const v = parseDurationMs(value);
  if (v === undefined || v <= 0) throw new UsageError(`--${flag} "${value}" is not ${DURATION_HELP}`);
  return v;
}

interface ParsedCapacityArgs {
  readonly op: OpName;
  readonly p99Ms: number | undefined;
  readonly ttftP95Ms: number | undefined;
  readonly tpotP95Ms: number | undefined;
  readonly maxErrorRatio: number;
  readonly stepS: number;
}

function parseArgs(args: CapacityArgs): ParsedCapacityArgs {
  if (!isOpName(args.op)) throw new UsageError(`"${args.op}" is not an operation; use one of ${OPS.join(', ')}`);
  const ttftP95Ms = objectiveMs('ttft-p95', args['ttft-p95']);
  const tpotP95Ms = objectiveMs('tpot-p95', args['tpot-p95']);
  const llm = ttftP95Ms !== undefined || tpotP95Ms !== undefined;
  if (llm && args.op !== 'stream') {
    throw new UsageError(`--${ttftP95Ms !== undefined ? 'ttft-p95' : 'tpot-p95'} judges streams: it applies to \`capacity stream\`, not ${args.op} (use --p99 for it)`);
  }
  // A stream objective replaces the request p99 unless --p99 is given too: a whole answer's time is
  // not what a stream's user waits for.
  const p99Ms = objectiveMs('p99', args.p99 ?? (llm ? undefined : DEFAULT_P99));
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
  return { op: args.op, p99Ms, ttftP95Ms, tpotP95Ms, maxErrorRatio, stepS: Math.round(stepMs / 1000) };
}

/** A stream step's LLM figures for its progress line, or nothing for other operations. */
function streamFigures(st: StepStreamFigures | undefined): string {
  if (st === undefined) return '';
  const p95 = (x: { readonly count: number; readonly p95: number }): string => (x.count === 0 ? '—' : `${x.p95.toFixed(1)} ms`);
  const bursts = st.deliveredAtOnce > 0 ? `, ${st.deliveredAtOnce} of ${st.count} streams in one read (left out of TPOT and tokens/s)` : '';
  return `, TTFT p95 ${p95(st.ttftMs)}, TPOT p95 ${p95(st.tpotMs)}, ${st.outputTokensPerS.toFixed(0)} output tokens/s${bursts}`;
}

/** The `capacity` command. */
export const capacityCommand: MakeCommand = (ctx) => ({
  command: 'capacity <op>',
  describe: 'find the highest throughput of one operation that meets a latency objective (p99; TTFT or TPOT p95 for streams) and an error objective',
  builder: (y) =>
    y
      .positional('op', { type: 'string', demandOption: true, describe: `operation: ${OPS.join(', ')}` })
      .options(TARGET_OPTIONS)
      .options({
        p99: { type: 'string', describe: `latency objective: request p99 at most this (${DURATION_HELP}; default ${DEFAULT_P99} unless --ttft-p95 or --tpot-p95 is given)` },
        'ttft-p95': { type: 'string', describe: 'stream objective: time to first token p95 at most this (capacity stream; e.g. 500ms)' },
        'tpot-p95': { type: 'string', describe: 'stream objective: time per output token p95 at most this (capacity stream; e.g. 50ms)' },
        'max-errors': { type: 'string', default: '1%', describe: 'error objective: at most this share of failed requests, 429s included' },
        step: { type: 'string', default: '5s', describe: 'length of each step (whole seconds)' },
        start: { type: 'number', default: 1, describe: 'first concurrency' },
        'max-concurrency': { type: 'number', default: 256, describe: 'highest concurrency tried' },
        out: { type: 'string', describe: 'directory for capacity.json, capacity.md and capacity.html (default reports/capacity-<op>-<timestamp>/)' },
        json: { type: 'boolean', describe: 'print capacity.json to stdout; the table goes to stderr' },
      }),
  handler: async (argv) => {
    const { io } = ctx;
    const args = withEnvBaseUrl(argv as unknown as CapacityArgs, io.env);
    checkOutFlag(args.out);
    const { op, p99Ms, ttftP95Ms, tpotP95Ms, maxErrorRatio, stepS } = parseArgs(args);
    const goals = { p99Ms, ttftP95Ms, tpotP95Ms, maxErrorRatio };
    const log = args.json === true ? io.stderr : io.stdout;
    await checkReportDir(io.cwd, args.out, 'capacity');
    const target = await resolveTarget(args, io, 'enterprise');
    const stop = listenForStop(io.stderr, 'stopping; the step in progress is cut and capacity.json written with the steps measured whole');
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
        const objectives: CapacityObjectives = { op, ...goals, advertisedLimit };
        const where = op === 'trigger' ? `${client.webhookHost}/api/v1/webhook/…` : `${client.baseUrl}/…`;
        log.write(`flowgauge: capacity of ${op} (${where}): ${stepS}s steps from concurrency ${args.start} up to ${args['max-concurrency']}\n`);
        const startedAtMs = Date.now();
        const result = await sweepCapacity({
          ...goals,
          startConcurrency: args.start,
          maxConcurrency: args['max-concurrency'],
          measure: createClientMeasure({ client, entry, targets, durationS: stepS, signal: stop.signal }),
          signal: stop.signal,
          onStep: (s) => {
            const why = Object.entries(s.bad ?? {}).sort((a, b) => b[1] - a[1]).slice(0, 3).map(([k, n]) => `${k} ×${n}`).join(', ');
            log.write(
              `  concurrency ${s.concurrency}: ${s.goodPerS.toFixed(0)} good/s, p99 ${s.p99Ms.toFixed(1)} ms${streamFigures(s.stream)}, errors ${(s.errorRatio * 100).toFixed(1)}%${why === '' ? '' : ` (${why})`}${s.meets ? '' : ` (fails: ${s.limit ?? ''})`}\n`,
            );
          },
        });
        const verdict = describeCapacity(result, objectives);
        log.write(`\n${renderCapacityTable(result)}\n${renderCapacityAscii(result)}\n${verdict}\n`);

        const dir = await chooseReportDir(io.cwd, `capacity-${op}`, startedAtMs, args.out);
        const subtitle = `${op} at ${where}${target.embedded ? ' (embedded reference service)' : ''}, ${stepS}s steps, ${new Date(startedAtMs).toISOString()}`;
        const json = JSON.stringify(
          { schema: 'flowgauge/capacity@1', op, target: { baseUrl: client.baseUrl, embedded: target.embedded }, objectives: goals, stepS, startedAt: new Date(startedAtMs).toISOString(), verdict, ...result },
          null,
          2,
        );
        const written = await writeReportFiles(dir, {
          'capacity.json': `${json}\n`,
          'capacity.md': renderCapacityMarkdown(result, objectives, subtitle),
          'capacity.html': renderCapacityHtml(result, objectives, subtitle),
        });
        log.write(`flowgauge: wrote ${written.join(', ')}\n`);
        if (args.json === true) io.stdout.write(`${json}\n`);
        // A sweep cut short found no capacity, whatever its steps met: never a pass.
        ctx.setExit(result.interrupted === true ? EXIT.INTERRUPTED : result.best === undefined ? EXIT.FAILED : EXIT.OK);
      } finally {
        await client.close();
      }
    } finally {
      stop.dispose();
      await target.close();
    }
  },
});
