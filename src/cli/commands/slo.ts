/**
 * `flowgauge slo rules|dashboards`: write the Prometheus SLO rules and the Grafana dashboards
 * that import as they are. The deploy/ files are exactly what these print with the defaults.
 */
import { writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Argv } from 'yargs';
import { InvalidArgumentError } from '../../core/errors.js';
import { DURATION_HELP, parseDurationMs } from '../../core/units.js';
import { DASHBOARD_FILES, generateDashboards, renderDashboardJson, type Dashboards } from '../../slo/grafana-dashboards.js';
import { STREAM_LATENCY_TARGETS } from '../../slo/metric-names.js';
import {
  generatePrometheusRules,
  renderRulesYaml,
  resolveSloRuleOptions,
  thresholdsOutsideDefaultBuckets,
  type LatencyObjective,
  type SloRuleOptions,
} from '../../slo/prometheus-rules.js';
import type { CommandContext } from '../context.js';
import { UsageError } from '../context.js';
import { makeDirectory } from '../report-files.js';
import type { MakeCommand } from './command.js';
import { OBJECTIVE_HELP, parseObjective } from '../objective.js';
import { sloStatusCommand } from './slo-status.js';

/** What `--latency` accepts, for messages. */
export const LATENCY_HELP =
  `comma-separated TARGET=DURATION[@OBJECTIVE], TARGET an operation (run, getRun, …) or ${STREAM_LATENCY_TARGETS.join(', ')}, ` +
  'e.g. "run=2s,stream.ttft=500ms@99%"';

/** Parses `--latency`; objectives default to `defaultObjective`. Throws `UsageError` naming what is allowed. */
export function parseLatencyObjectives(input: string, defaultObjective: number): LatencyObjective[] {
  const out: LatencyObjective[] = [];
  for (const part of input.split(',').map((p) => p.trim())) {
    if (part === '') continue;
    const m = /^([A-Za-z.]+)=([^@]+)(?:@(.+))?$/.exec(part);
    if (m === null) throw new UsageError(`--latency "${part}" is not ${LATENCY_HELP}`);
    const [, target = '', duration = '', objectiveText] = m;
    const ms = parseDurationMs(duration.trim());
    if (ms === undefined || ms <= 0) throw new UsageError(`--latency "${part}": "${duration}" is not ${DURATION_HELP}`);
    const objective = objectiveText === undefined ? defaultObjective : parseObjective(objectiveText);
    if (objective === undefined) throw new UsageError(`--latency "${part}": objective "${objectiveText}" is not ${OBJECTIVE_HELP}`);
    out.push({ operation: target, thresholdS: ms / 1000, objective });
  }
  return out;
}

interface SloArgs {
  objective: string;
  period: string;
  latency?: string | undefined;
}

const SHARED_OPTIONS = {
  objective: { type: 'string', default: '99.9', describe: `availability objective: ${OBJECTIVE_HELP}` },
  period: { type: 'string', default: '30d', describe: 'SLO period, e.g. 30d or 28d' },
  latency: { type: 'string', describe: `latency objectives: ${LATENCY_HELP}` },
} as const;

/** Turns the shared flags into validated generator options (`UsageError` on bad input). */
export function sloOptionsFromArgs(args: SloArgs): SloRuleOptions {
  const objective = parseObjective(args.objective);
  if (objective === undefined) throw new UsageError(`--objective "${args.objective}" is not ${OBJECTIVE_HELP}`);
  const latencyObjectives = args.latency === undefined ? [] : parseLatencyObjectives(args.latency, objective);
  const options: SloRuleOptions = { objective, period: args.period, latencyObjectives };
  try {
    resolveSloRuleOptions(options);
  } catch (err) {
    if (err instanceof InvalidArgumentError) throw new UsageError(err.message.replace(/^period/, '--period'));
    throw err;
  }
  return options;
}

async function writeText(ctx: CommandContext, path: string, text: string): Promise<string> {
  const full = resolve(ctx.io.cwd, path);
  await makeDirectory(dirname(full), 'give a writable path with --out', 'files');
  try {
    await writeFile(full, text, 'utf8');
  } catch (err) {
    const code = (err as { code?: string }).code ?? 'write failed';
    throw new UsageError(`cannot write ${path}: ${code}`);
  }
  return full;
}

function rulesCommand(ctx: CommandContext) {
  return {
    command: 'rules',
    describe: 'print Prometheus recording rules and multiwindow burn-rate alerts (YAML)',
    builder: (y: Argv) => y.options(SHARED_OPTIONS).options({ out: { type: 'string', describe: 'write to this file instead of stdout' } }),
    handler: async (argv: unknown) => {
      const args = argv as SloArgs & { out?: string | undefined };
      const options = sloOptionsFromArgs(args);
      const r = resolveSloRuleOptions(options);
      for (const o of thresholdsOutsideDefaultBuckets(r.latencyObjectives)) {
        ctx.io.stderr.write(
          `flowgauge: warning: ${o.target} threshold ${o.labels.threshold_seconds}s is not a default histogram bucket; ` +
            'give the run a threshold with that value so the bucket exists, or the latency rules read nothing\n',
        );
      }
      const file = generatePrometheusRules(options);
      const text = renderRulesYaml(file);
      if (args.out === undefined) {
        ctx.io.stdout.write(text);
        return;
      }
      const full = await writeText(ctx, args.out, text);
      const [records, alerts] = file.groups.map((g) => g.rules.length);
      ctx.io.stdout.write(`wrote ${full} (${records ?? 0} recording rules, ${alerts ?? 0} alerts)\n`);
    },
  };
}

function dashboardsCommand(ctx: CommandContext) {
  return {
    command: 'dashboards',
    describe: 'print or write the Grafana dashboards (run, slo, uptime) as importable JSON',
    builder: (y: Argv) =>
      y.options(SHARED_OPTIONS).options({
        'out-dir': { type: 'string', describe: 'write flowgauge-run.json, flowgauge-slo.json, flowgauge-uptime.json here' },
        only: { type: 'string', choices: ['run', 'slo', 'uptime'], describe: 'just this dashboard' },
      }),
    handler: async (argv: unknown) => {
      const args = argv as SloArgs & { 'out-dir'?: string | undefined; only?: keyof Dashboards | undefined };
      const dashboards = generateDashboards(sloOptionsFromArgs(args));
      const names = args.only === undefined ? (Object.keys(DASHBOARD_FILES) as (keyof Dashboards)[]) : [args.only];
      const outDir = args['out-dir'];
      if (outDir === undefined) {
        // One dashboard prints as an importable document; all three as an object keyed by file name.
        const text =
          args.only === undefined
            ? renderDashboardJson(Object.fromEntries(names.map((n) => [DASHBOARD_FILES[n], dashboards[n]])))
            : renderDashboardJson(dashboards[args.only]);
        ctx.io.stdout.write(text);
        return;
      }
      for (const n of names) {
        const full = await writeText(ctx, join(outDir, DASHBOARD_FILES[n]), renderDashboardJson(dashboards[n]));
        ctx.io.stdout.write(`wrote ${full}\n`);
      }
    },
  };
}

/** The `slo` command: `slo rules`, `slo dashboards`. */
export const sloCommand: MakeCommand = (ctx) => ({
  command: 'slo',
  describe: 'generate Prometheus SLO rules and Grafana dashboards',
  builder: (y) =>
    y
      .command(rulesCommand(ctx))
      .command(dashboardsCommand(ctx))
      .command(sloStatusCommand(ctx))
      .demandCommand(1, 'name an action: rules, dashboards or status'),
  handler: () => undefined,
});
