/**
 * The flags of `flowgauge run`: their yargs definitions, and each parsed and checked into what
 * the run session takes (overrides, the shard, following, the receiver, the exporters), every
 * mistake a `UsageError` naming the flag as typed, before anything starts.
 */
import { randomBytes } from 'node:crypto';
import type { Options } from 'yargs';
import { VALIDATE_SAMPLE_EVERY, type ValidateMode } from '../api/index.js';
import type { Tier } from '../core/tiers.js';
import { DURATION_HELP, parseDurationMs } from '../core/units.js';
import type { HtmlAssets } from '../report/index.js';
import { parseListenAddress } from '../run/notifications.js';
import type { ExporterWishes, FollowOptions } from '../run/index.js';
import type { ScenarioOverrides } from '../scenario/index.js';
import { UsageError } from './context.js';
import { METRICS_HOST_OPTION, metricsHost } from './metrics-host.js';
import type { TargetArgs } from './target-options.js';

/** The flags of `run`, as yargs gives them. */
export interface RunArgs extends TargetArgs {
  scenario: string;
  env?: string[] | undefined;
  duration?: string | undefined;
  rate?: string | undefined;
  tier?: string | undefined;
  'max-in-flight'?: number | undefined;
  out?: string | undefined;
  json?: boolean | undefined;
  quiet?: boolean | undefined;
  'metrics-port'?: number | undefined;
  'metrics-host'?: string | undefined;
  dashboard?: string | undefined;
  connections?: number | undefined;
  transport?: string | undefined;
  shard?: string | undefined;
  shards?: number | undefined;
  pushgateway?: string | undefined;
  otel?: string | undefined;
  'webhook-listen'?: string | undefined;
  'webhook-secret'?: string | undefined;
  'notification-grace'?: string | undefined;
  follow?: boolean | undefined;
  'poll-interval'?: string | undefined;
  'max-follows'?: number | undefined;
  'follow-timeout'?: string | undefined;
  audit?: boolean | undefined;
  workers?: string | undefined;
  'start-at'?: string | undefined;
  'run-id'?: string | undefined;
  'target-name'?: string | undefined;
}

/** yargs definitions of `run`'s own flags (the target's are `TARGET_OPTIONS`). */
export const RUN_OPTIONS = {
  duration: { alias: 'd', type: 'string', requiresArg: true, describe: `override the scenario's duration (${DURATION_HELP})` },
  env: { alias: 'e', type: 'string', array: true, requiresArg: true, describe: 'set NAME=VALUE for the run: ${NAME} in JSON/YAML scenarios, process.env.NAME in .ts ones, and tokenEnv (repeatable)' },
  rate: { type: 'string', requiresArg: true, describe: 'override the arrival rate: "100/min", "16.7/s", or "120%" of the tier' },
  tier: { type: 'string', requiresArg: true, describe: 'override the tier: free, pro, or a limit such as 5000/min' },
  'max-in-flight': { type: 'number', describe: 'override the cap on concurrent requests (starts beyond it are dropped)' },
  out: { type: 'string', describe: 'report directory (default reports/<scenario>-<timestamp>/)' },
  json: { type: 'boolean', describe: 'print report.json to stdout; progress and summary go to stderr' },
  quiet: { type: 'boolean', describe: 'no live progress' },
  'metrics-port': { type: 'number', describe: 'serve Prometheus /metrics on this port during the run (on --metrics-host)' },
  ...METRICS_HOST_OPTION,
  connections: { type: 'number', describe: "cap on HTTP connections to the target (default: the scenario's concurrency, or its maxInFlight)" },
  transport: {
    type: 'string',
    choices: ['auto', 'h1', 'undici'],
    describe: "HTTP implementation: flowgauge's own HTTP/1.1 connections (h1) or undici; auto: h1 for http:, undici for https:",
  },
  shard: { type: 'string', describe: 'run shard i of N (e.g. 2/4): this process sends its share of the schedule' },
  pushgateway: { type: 'string', describe: 'push metrics to this Pushgateway every 10 s and at the end (job flowgauge, instance, target, shard)' },
  otel: {
    type: 'string',
    describe: 'export a span per request over OTLP/HTTP (optional dependencies); value: the collector\'s base URL (http://host:4318 → /v1/traces) or a full traces URL, or empty for OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT / localhost:4318; a failed export is a warning',
  },
  shards: { type: 'number', describe: 'number of shards, with the shard index from JOB_COMPLETION_INDEX (Kubernetes Indexed Job)' },
  dashboard: { type: 'string', describe: 'serve a live dashboard on 127.0.0.1 during the run (port, default 5665; 0 picks a free one)' },
  'webhook-listen': { type: 'string', requiresArg: true, describe: 'receive outbound notifications at host:port during the run (the embedded service is pointed at it)' },
  'webhook-secret': { type: 'string', requiresArg: true, describe: 'shared secret of the notifications (or FLOWGAUGE_WEBHOOK_SECRET; generated for the embedded service); never printed or stored' },
  'notification-grace': { type: 'string', requiresArg: true, describe: 'how long a completed run\'s notification may take before it counts as missing (default 5s)' },
  follow: { type: 'boolean', default: true, describe: 'follow runs that answer "running" with GET /runs/{id} (--no-follow to turn off)' },
  'poll-interval': { type: 'string', requiresArg: true, describe: 'time between polls of a followed run (default 250ms)' },
  'max-follows': { type: 'number', describe: 'runs followed at once (default 32); more are counted, not followed' },
  'follow-timeout': { type: 'string', requiresArg: true, describe: 'give up following a run after this long (default 60s)' },
  workers: { type: 'string', requiresArg: true, describe: 'split the schedule over N worker threads (1 to the cores; auto: cores - 1), each with its own connections; the report is merged exactly' },
  'start-at': {
    type: 'string',
    requiresArg: true,
    describe: 'hold the clock until this ISO 8601 time with its zone (e.g. 2026-05-01T12:00:00Z; or FLOWGAUGE_START_AT), so shards started apart run together; up to 24 h ahead; a shard that comes up after it joins the schedule in phase (up to 1 s late it starts at once)',
  },
  'run-id': {
    type: 'string',
    requiresArg: true,
    describe: 'the run this shard belongs to, the same for every shard (or FLOWGAUGE_RUN_ID; default: the scenario and --start-at), so merge refuses reports of other runs',
  },
  audit: { type: 'boolean', default: true, describe: 'after the run, compare /analytics/usage and session histories with what the client saw (--no-audit to skip)' },
} as const satisfies Record<string, Options>;

type Env = Readonly<Record<string, string | undefined>>;

/** How much of each body the scenario checks, when not every body (`validate: sample | off`). */
export function validateNote(mode: ValidateMode): string {
  if (mode === 'sample') return `, validate: sample (one 2xx body in ${VALIDATE_SAMPLE_EVERY} checked)`;
  return mode === 'off' ? ', validate: off (2xx bodies not checked)' : '';
}

/** `--dashboard [PORT]`: bare means k6's port, 5665. */
function dashboardPort(value: string): number {
  if (value === '') return 5665;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError(`--dashboard "${value}" is not a port; give 0 to 65535, or nothing for 5665`);
  return port;
}

/** A duration flag in ms, or a UsageError naming the flag. */
function durationFlag(name: string, value: string | undefined, min = 0): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseDurationMs(value);
  if (ms === undefined || ms < min) throw new UsageError(`--${name} "${value}" is not ${DURATION_HELP}${min > 0 ? ` of at least ${min} ms` : ''}`);
  return ms;
}

/** The notification and follow flags, checked before anything starts. */
export function asyncFlags(args: RunArgs, env: Env) {
  const listen = args['webhook-listen'] === undefined ? undefined : parseListenAddress(args['webhook-listen']);
  if (args['webhook-listen'] !== undefined && listen === undefined) {
    throw new UsageError(`--webhook-listen "${args['webhook-listen']}" is not host:port, e.g. 127.0.0.1:8787`);
  }
  let secret = args['webhook-secret'] ?? env.FLOWGAUGE_WEBHOOK_SECRET;
  if (listen !== undefined && args['base-url'] !== undefined && (secret === undefined || secret === '')) {
    throw new UsageError('--webhook-listen needs the secret the receiver was registered with: --webhook-secret or FLOWGAUGE_WEBHOOK_SECRET');
  }
  // The embedded service is configured by flowgauge itself, so a fresh secret will do.
  if (listen !== undefined && (secret === undefined || secret === '')) secret = randomBytes(24).toString('hex');
  const graceMs = durationFlag('notification-grace', args['notification-grace']);
  const pollIntervalMs = durationFlag('poll-interval', args['poll-interval'], 10);
  const timeoutMs = durationFlag('follow-timeout', args['follow-timeout'], 1);
  const maxConcurrent = args['max-follows'];
  if (maxConcurrent !== undefined && !(Number.isInteger(maxConcurrent) && maxConcurrent >= 1)) {
    throw new UsageError(`--max-follows must be a whole number >= 1, got ${maxConcurrent}`);
  }
  const follow: FollowOptions | false =
    args.follow === false
      ? false
      : {
          ...(pollIntervalMs !== undefined ? { pollIntervalMs } : {}),
          ...(maxConcurrent !== undefined ? { maxConcurrent } : {}),
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        };
  return { listen, secret: secret ?? '', graceMs, follow };
}

/** `--shard i/N` (1-based on the command line), or `JOB_COMPLETION_INDEX` (0-based) with `--shards N`. */
export function parseShard(args: RunArgs, env: Env): { index: number; count: number } | undefined {
  if (args.shard !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(args.shard);
    const i = Number(m?.[1]);
    const n = Number(m?.[2]);
    if (m === null || n < 1 || i < 1 || i > n) throw new UsageError(`--shard "${args.shard}" is not i/N with 1 <= i <= N, e.g. 2/4`);
    return { index: i - 1, count: n };
  }
  if (args.shards !== undefined) {
    const n = args.shards;
    const raw = env.JOB_COMPLETION_INDEX;
    const i = raw === undefined ? Number.NaN : Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`--shards must be a whole number >= 1, got ${n}`);
    if (!Number.isInteger(i) || i < 0 || i >= n) {
      throw new UsageError(`--shards ${n} needs JOB_COMPLETION_INDEX set to 0..${n - 1} (an Indexed Job sets it); got ${raw ?? 'nothing'}`);
    }
    return { index: i, count: n };
  }
  return undefined;
}

function parseTier(s: string): Tier {
  if (s === 'free' || s === 'pro') return s;
  const n = /^(\d+)(?:\/min)?$/.exec(s);
  if (n !== null && Number(n[1]) > 0) return { limitPerMinute: Number(n[1]) };
  throw new UsageError(`--tier "${s}" is not a tier; use free, pro, or a limit per minute such as 5000/min`);
}

/** `-e NAME=VALUE` flags as variables; a malformed one is a usage error (exit 2). */
export function parseEnvFlags(flags: readonly string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of flags ?? []) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(f);
    if (m === null) throw new UsageError(`-e "${f}" is not NAME=VALUE (a name is letters, digits and _, not starting with a digit)`);
    out[m[1] as string] = m[2] as string;
  }
  return out;
}

/** `--duration`, `--rate`, `--tier`, `--max-in-flight` as the scenario's overrides. */
export function overridesOf(args: RunArgs): ScenarioOverrides {
  let durationMs: number | undefined;
  if (args.duration !== undefined) {
    durationMs = parseDurationMs(args.duration);
    if (durationMs === undefined || durationMs <= 0) throw new UsageError(`--duration "${args.duration}" is not ${DURATION_HELP}`);
  }
  return {
    ...(durationMs !== undefined ? { durationMs } : {}),
    ...(args.rate !== undefined ? { rate: args.rate } : {}),
    ...(args.tier !== undefined ? { tier: parseTier(args.tier) } : {}),
    ...(args['max-in-flight'] !== undefined ? { maxInFlight: args['max-in-flight'] } : {}),
  };
}

/** The exporters the flags ask for, checked (`--metrics-port`/`--pushgateway`, `--otel`, `--dashboard`). */
export function exporterFlags(args: RunArgs, env: Env): { wishes(assets: () => Promise<HtmlAssets>, reportHtml: () => string | undefined): Promise<ExporterWishes> } {
  const host = metricsHost(args['metrics-host'], args['metrics-port']);
  const dashboard = args.dashboard === undefined ? undefined : dashboardPort(args.dashboard);
  return {
    wishes: async (assets, reportHtml) => ({
      ...(args['metrics-port'] !== undefined || args.pushgateway !== undefined ? { prometheus: { port: args['metrics-port'], host, pushgateway: args.pushgateway } } : {}),
      ...(args.otel !== undefined ? { otel: { endpoint: args.otel, env } } : {}),
      ...(dashboard !== undefined ? { dashboard: { port: dashboard, assets: await assets(), reportHtml } } : {}),
    }),
  };
}
