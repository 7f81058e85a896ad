/**
 * `flowgauge slo rules|dashboards`: write the Prometheus SLO rules (a rule file or a Prometheus
 * Operator `PrometheusRule`) and the Grafana dashboards (JSON files or a ConfigMap for the
 * Grafana sidecar) that import as they are. The deploy/ files are exactly what these print with
 * the defaults. The dashboard builder is loaded only by `slo dashboards`: it is large, and every
 * other command would pay for it at start-up.
 */
import { basename, dirname, join, resolve } from 'node:path';
import type { Argv } from 'yargs';
import { InvalidArgumentError } from '../../core/errors.js';
import { DURATION_HELP, parseDurationMs } from '../../core/units.js';
import { DASHBOARD_FILES, type DashboardName } from '../../slo/dashboard-files.js';
import { STREAM_LATENCY_TARGETS } from '../../slo/metric-names.js';
import { renderPrometheusRuleYaml, toPrometheusRule } from '../../slo/prometheus-rule-resource.js';
import {
  alertingRulesOf,
  generatePrometheusRules,
  recordingRulesOf,
  renderRulesYaml,
  resolveSloRuleOptions,
  thresholdsOutsideDefaultBuckets,
  type LatencyObjective,
  type SloRuleOptions,
} from '../../slo/prometheus-rules.js';
import type { CommandContext } from '../context.js';
import { UsageError } from '../context.js';
import { makeDirectory } from '../report-files.js';
import { writeFilesAtomically } from '../safe-write.js';
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
  'probe-interval'?: string | undefined;
  'probe-down-for'?: string | undefined;
  'cert-warning'?: string | undefined;
  'cert-critical'?: string | undefined;
  'probe-scrape-job'?: string | undefined;
  'probe-push-job'?: string | undefined;
  'load-alerts'?: boolean | undefined;
}

const SHARED_OPTIONS = {
  objective: { type: 'string', default: '99.9', describe: `availability objective: ${OBJECTIVE_HELP}` },
  period: { type: 'string', default: '30d', describe: 'SLO period, e.g. 30d or 28d' },
  latency: { type: 'string', describe: `latency objectives: ${LATENCY_HELP}` },
} as const;

const PROBE_OPTIONS = {
  'probe-interval': { type: 'string', describe: 'how often the probe runs (its --interval or CronJob schedule); FlowgaugeProbeStale after twice this (default 1m)' },
  'probe-down-for': { type: 'string', describe: 'how long every probe of a check must fail before FlowgaugeProbeDown (default 5m)' },
  'cert-warning': { type: 'string', describe: 'certificate expiry warning (a ticket) when less than this is left (default 14d)' },
  'cert-critical': { type: 'string', describe: 'also a critical certificate alert (a page) when less than this is left (default none: an expired certificate pages as FlowgaugeProbeDown)' },
  'probe-scrape-job': {
    type: 'string',
    describe: 'Prometheus job of the scraped probe daemon: FlowgaugeProberDown pages when its up is 0 (default flowgauge-probe; "" leaves the alert out)',
  },
  'probe-push-job': {
    type: 'string',
    describe: 'job the probe CronJob pushes under: FlowgaugeProbeAbsent pages when its series, there within the day, are gone (default flowgauge_probe; "" leaves the alert out)',
  },
} as const;

const RULE_OPTIONS = {
  'load-alerts': {
    type: 'boolean',
    default: false,
    describe: 'also alert on load-run SLI series, at severity info (off: a load test never pages)',
  },
  format: {
    type: 'string',
    choices: ['rules', 'prometheusrule'],
    default: 'rules',
    describe: 'rules: a Prometheus rule file; prometheusrule: a Prometheus Operator PrometheusRule resource',
  },
  name: { type: 'string', describe: 'with --format prometheusrule: metadata.name (default flowgauge-slo)' },
  namespace: { type: 'string', describe: 'with --format prometheusrule: metadata.namespace' },
  label: {
    type: 'string',
    array: true,
    describe: 'with --format prometheusrule: a metadata label KEY=VALUE, repeatable (e.g. release=kube-prometheus-stack for its ruleSelector)',
  },
} as const;

/** Option names in the generator's messages, and the flag each one comes from. */
const FLAG_OF: readonly (readonly [RegExp, string])[] = [
  [/^period/, '--period'],
  [/^probe interval/, '--probe-interval'],
  [/^probe down duration/, '--probe-down-for'],
  [/^certificate expiry warning/, '--cert-warning'],
  [/^certificate expiry critical/, '--cert-critical'],
  [/^probe scrape job/, '--probe-scrape-job'],
  [/^probe push job/, '--probe-push-job'],
];

/** Turns the shared flags into validated generator options (`UsageError` on bad input). */
export function sloOptionsFromArgs(args: SloArgs): SloRuleOptions {
  const objective = parseObjective(args.objective);
  if (objective === undefined) throw new UsageError(`--objective "${args.objective}" is not ${OBJECTIVE_HELP}`);
  const latencyObjectives = args.latency === undefined ? [] : parseLatencyObjectives(args.latency, objective);
  const options: SloRuleOptions = {
    objective,
    period: args.period,
    latencyObjectives,
    ...(args['probe-interval'] === undefined ? {} : { probeInterval: args['probe-interval'] }),
    ...(args['probe-down-for'] === undefined ? {} : { probeDownFor: args['probe-down-for'] }),
    ...(args['cert-warning'] === undefined ? {} : { certExpiryWarning: args['cert-warning'] }),
    ...(args['cert-critical'] === undefined ? {} : { certExpiryCritical: args['cert-critical'] }),
    ...(args['probe-scrape-job'] === undefined ? {} : { probeScrapeJob: args['probe-scrape-job'] }),
    ...(args['probe-push-job'] === undefined ? {} : { probePushJob: args['probe-push-job'] }),
    ...(args['load-alerts'] === true ? { loadAlerts: true } : {}),
  };
  try {
    resolveSloRuleOptions(options);
  } catch (err) {
    if (err instanceof InvalidArgumentError) {
      const flag = FLAG_OF.find(([re]) => re.test(err.message));
      throw new UsageError(flag === undefined ? err.message : err.message.replace(flag[0], flag[1]));
    }
    throw err;
  }
  return options;
}

/** Parses `--label KEY=VALUE` flags. */
export function parseLabels(input: readonly string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of input ?? []) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UsageError(`--label "${item}" is not KEY=VALUE (e.g. release=kube-prometheus-stack)`);
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}

async function writeText(ctx: CommandContext, path: string, text: string): Promise<string> {
  const full = resolve(ctx.io.cwd, path);
  await makeDirectory(dirname(full), 'give a writable path with --out', 'files');
  await writeFilesAtomically(dirname(full), { [basename(full)]: text });
  return full;
}

function rulesCommand(ctx: CommandContext) {
  return {
    command: 'rules',
    describe: 'print Prometheus recording rules and alerts: uptime burn rate per target and check, probe down, a dead prober (stale, down, absent), certificate and TLS findings (YAML)',
    builder: (y: Argv) =>
      y.options(SHARED_OPTIONS).options(PROBE_OPTIONS).options(RULE_OPTIONS).options({ out: { type: 'string', describe: 'write to this file instead of stdout' } }),
    handler: async (argv: unknown) => {
      const args = argv as SloArgs & {
        out?: string | undefined;
        format: 'rules' | 'prometheusrule';
        name?: string | undefined;
        namespace?: string | undefined;
        label?: string[] | undefined;
      };
      const options = sloOptionsFromArgs(args);
      const r = resolveSloRuleOptions(options);
      for (const o of thresholdsOutsideDefaultBuckets(r.latencyObjectives)) {
        ctx.io.stderr.write(
          `flowgauge: warning: ${o.target} threshold ${o.labels.threshold_seconds}s is not a default histogram bucket; ` +
            'give the run a threshold with that value so the bucket exists, or the latency rules read nothing\n',
        );
      }
      const file = generatePrometheusRules(options);
      let text = renderRulesYaml(file);
      if (args.format === 'prometheusrule') {
        const meta = {
          labels: parseLabels(args.label),
          ...(args.name === undefined ? {} : { name: args.name }),
          ...(args.namespace === undefined ? {} : { namespace: args.namespace }),
        };
        try {
          text = renderPrometheusRuleYaml(toPrometheusRule(file, meta));
        } catch (err) {
          if (err instanceof InvalidArgumentError) throw new UsageError(err.message);
          throw err;
        }
      } else if (args.name !== undefined || args.namespace !== undefined || args.label !== undefined) {
        throw new UsageError('--name, --namespace and --label describe a PrometheusRule: give them with --format prometheusrule');
      }
      if (args.out === undefined) {
        ctx.io.stdout.write(text);
        return;
      }
      const full = await writeText(ctx, args.out, text);
      ctx.io.stdout.write(`wrote ${full} (${recordingRulesOf(file).length} recording rules, ${alertingRulesOf(file).length} alerts)\n`);
    },
  };
}

function dashboardsCommand(ctx: CommandContext) {
  return {
    command: 'dashboards',
    describe: 'print or write the Grafana dashboards (run, slo, uptime) as JSON, or as ConfigMaps for the Grafana sidecar',
    builder: (y: Argv) =>
      y
        .options(SHARED_OPTIONS)
        .options(PROBE_OPTIONS)
        .options({
          format: {
            type: 'string',
            choices: ['json', 'configmap'],
            default: 'json',
            describe: 'json: dashboard files; configmap: Kubernetes ConfigMaps labelled grafana_dashboard: "1" for the Grafana sidecar',
          },
          'out-dir': { type: 'string', describe: 'json: write flowgauge-run.json, flowgauge-slo.json, flowgauge-uptime.json here' },
          out: { type: 'string', describe: 'configmap: write to this file instead of stdout' },
          namespace: { type: 'string', describe: 'configmap: metadata.namespace' },
          only: { type: 'string', choices: ['run', 'slo', 'uptime'], describe: 'just this dashboard' },
        }),
    handler: async (argv: unknown) => {
      const args = argv as SloArgs & {
        format: 'json' | 'configmap';
        'out-dir'?: string | undefined;
        out?: string | undefined;
        namespace?: string | undefined;
        only?: DashboardName | undefined;
      };
      const options = sloOptionsFromArgs(args);
      if (args.format === 'json' && (args.out !== undefined || args.namespace !== undefined)) {
        throw new UsageError('--out and --namespace are for --format configmap; JSON files go to --out-dir');
      }
      if (args.format === 'configmap' && args['out-dir'] !== undefined) throw new UsageError('--out-dir is for --format json; give --out FILE');
      const { generateDashboards, renderDashboardJson, renderDashboardsConfigMap } = await import('../../slo/grafana-dashboards.js');
      const dashboards = generateDashboards(options);
      const names = args.only === undefined ? (Object.keys(DASHBOARD_FILES) as DashboardName[]) : [args.only];
      if (args.format === 'configmap') {
        const text = renderDashboardsConfigMap(Object.fromEntries(names.map((n) => [n, renderDashboardJson(dashboards[n])])), args.namespace);
        if (args.out === undefined) ctx.io.stdout.write(text);
        else ctx.io.stdout.write(`wrote ${await writeText(ctx, args.out, text)} (${names.length} ConfigMaps)\n`);
        return;
      }
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

/** The `slo` command: `slo rules`, `slo dashboards`, `slo status`. */
export const sloCommand: MakeCommand = (ctx) => ({
  command: 'slo',
  describe: 'SLOs: Prometheus rules (slo rules) and Grafana dashboards (slo dashboards), and the uptime, error budget and incidents of a probe history (slo status)',
  builder: (y) =>
    y
      .command(rulesCommand(ctx))
      .command(dashboardsCommand(ctx))
      .command(sloStatusCommand(ctx))
      .demandCommand(1, 'name an action: rules, dashboards or status'),
  handler: () => undefined,
});
