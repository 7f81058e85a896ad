/**
 * `flowgauge run <scenario>`: drive a scenario against a target, show live progress, write
 * report.json and report.md, exit by the thresholds. Ctrl-C stops scheduling, drains
 * in-flight requests for the grace period and still writes the report; a second Ctrl-C quits.
 */
import { createClient, VALIDATE_SAMPLE_EVERY, type TransportChoice, type ValidateMode } from '../../api/index.js';
import { parseDurationMs, DURATION_HELP } from '../../core/units.js';
import type { Tier } from '../../core/tiers.js';
import { randomBytes } from 'node:crypto';
import { renderSummary, type Report } from '../../report/index.js';
import { createRunObservers, executeRun, parseListenAddress, parsePlanThresholds, startNotificationTracking, type NotificationTracking, type RunProgress } from '../../run/index.js';
import { shownLength } from '../../load/index.js';
import { loadScenarioFile, planOf, type ResolvedScenario, type ScenarioOverrides } from '../../scenario/index.js';
import { UsageError } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { formatProgress } from '../progress-line.js';
import { createReportWriter } from '../report-writer.js';
import { checkOutFlag } from '../report-files.js';
import { listenForStop } from '../signals.js';
import { checkReportDir, checkWholeNumberFlags, resolveWithFlags } from '../run-input.js';
import { builtinScenarioNames, findScenarioFile } from '../scenario-path.js';
import { checkTenantTokens, connectionsFor, ownTokenOf, tenantClients, tenantTokens, tierKeyOf, withOwnToken, workerConnections } from '../tenants.js';
import { runInWorkers } from '../workers/run-in-workers.js';
import { startRunExporters, type RunExporters } from '../run-exporters.js';
import { autoWorkersNote, checkWorkerFlags, parseWorkers } from '../workers/workers-option.js';
import { resolveTarget, TARGET_OPTIONS, withEnvBaseUrl, type TargetArgs } from '../target-options.js';
import { scenarioNotFound } from '../usage-messages.js';
import { METRICS_HOST_OPTION, metricsHost } from '../metrics-host.js';
import { withProcessEnv } from '../process-env.js';
import { relative, resolve } from 'node:path';
import { createSystemClock } from '../../core/clock.js';
import { createStartGate, parseStartAt } from '../start-at.js';
import type { MakeCommand } from './command.js';

interface RunArgs extends TargetArgs {
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
}

/** How much of each body the scenario checks, when not every body (`validate: sample | off`). */
function validateNote(mode: ValidateMode): string {
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
function asyncFlags(args: RunArgs, env: Readonly<Record<string, string | undefined>>) {
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
  const follow =
    args.follow === false
      ? (false as const)
      : {
          ...(pollIntervalMs !== undefined ? { pollIntervalMs } : {}),
          ...(maxConcurrent !== undefined ? { maxConcurrent } : {}),
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        };
  return { listen, secret: secret ?? '', graceMs, follow };
}

/** `--shard i/N` (1-based on the command line), or `JOB_COMPLETION_INDEX` (0-based) with `--shards N`. */
function parseShard(args: RunArgs, env: Readonly<Record<string, string | undefined>>): { index: number; count: number } | undefined {
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
function parseEnvFlags(flags: readonly string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of flags ?? []) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(f);
    if (m === null) throw new UsageError(`-e "${f}" is not NAME=VALUE (a name is letters, digits and _, not starting with a digit)`);
    out[m[1] as string] = m[2] as string;
  }
  return out;
}

/** The `run` command. */
export const runCommand: MakeCommand = (ctx) => ({
  command: 'run <scenario>',
  describe: 'run a scenario (a file, or a ready one: ' + builtinScenarioNames().join(', ') + ')',
  builder: (y) =>
    y
      .positional('scenario', { type: 'string', demandOption: true, describe: 'scenario file (.ts/.js/.json/.yaml) or ready scenario name' })
      .options(TARGET_OPTIONS)
      .options({
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
        pushgateway: { type: 'string', describe: 'push metrics to this Pushgateway every 10 s and at the end (job flowgauge, instance, shard)' },
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
          describe: 'hold the clock until this ISO 8601 time with its zone (e.g. 2026-05-01T12:00:00Z; or FLOWGAUGE_START_AT), so shards started apart run together; up to 1 s past starts at once, up to 24 h ahead',
        },
        audit: { type: 'boolean', default: true, describe: 'after the run, compare /analytics/usage and session histories with what the client saw (--no-audit to skip)' },
      }),
  // -e values are in process.env for the whole run (a .ts scenario reads them there), then put back.
  handler: async (argv) => withProcessEnv(parseEnvFlags((argv as unknown as RunArgs).env), async () => {
    const { io } = ctx;
    const args = withEnvBaseUrl(argv as unknown as RunArgs, io.env);
    const file = findScenarioFile(io.cwd, args.scenario);
    if (file === undefined) {
      throw new UsageError(scenarioNotFound(args.scenario, resolve(io.cwd, args.scenario), builtinScenarioNames()));
    }
    checkWholeNumberFlags(argv);
    checkOutFlag(args.out);
    const env = { ...io.env, ...parseEnvFlags(args.env) };
    let durationMs: number | undefined;
    if (args.duration !== undefined) {
      durationMs = parseDurationMs(args.duration);
      if (durationMs === undefined || durationMs <= 0) throw new UsageError(`--duration "${args.duration}" is not ${DURATION_HELP}`);
    }
    const overrides: ScenarioOverrides = {
      ...(durationMs !== undefined ? { durationMs } : {}),
      ...(args.rate !== undefined ? { rate: args.rate } : {}),
      ...(args.tier !== undefined ? { tier: parseTier(args.tier) } : {}),
      ...(args['max-in-flight'] !== undefined ? { maxInFlight: args['max-in-flight'] } : {}),
    };
    const plan = planOf(resolveWithFlags(await loadScenarioFile(file, { env }), overrides, file));
    const scenario = plan.scenarios[0] as ResolvedScenario;
    const thresholds = parsePlanThresholds(plan);
    // Latency thresholds become histogram bucket bounds, so Prometheus can judge them exactly.
    const latencyBucketsS = thresholds.all.filter((t) => t.unit === 'ms').map((t) => t.value / 1000);
    const shard = parseShard(args, io.env);
    // Only the CLI reads the system time: the wait is on this clock, the engine's is another of the same kind.
    const wall = createSystemClock();
    const startAt = parseStartAt(args['start-at'], io.env.FLOWGAUGE_START_AT, wall.wallMs());
    const workers = parseWorkers(args.workers);
    const workersNote = autoWorkersNote(args.workers, workers);
    if (workersNote !== undefined) io.stderr.write(`flowgauge: ${workersNote}\n`);
    checkWorkerFlags(workers, args as unknown as Record<string, unknown>);
    const metricsBind = metricsHost(args['metrics-host'], args['metrics-port']);
    const shardTag = shard === undefined ? '' : `shard ${shard.index + 1}/${shard.count}  `;
    const extra = asyncFlags(args, io.env);
    await checkReportDir(io.cwd, args.out);

    const log = args.json === true ? io.stderr : io.stdout;
    const tierKey = tierKeyOf(scenario);
    checkTenantTokens(plan, env, args['base-url'] === undefined);
    // The receiver listens before the target starts, so the embedded service can be pointed at it.
    const tracking: NotificationTracking | undefined =
      extra.listen === undefined
        ? undefined
        : await startNotificationTracking({ ...extra.listen, secret: extra.secret, ...(extra.graceMs !== undefined ? { graceMs: extra.graceMs } : {}) });
    const notify = tracking === undefined ? {} : { notifications: [{ webhook_url: tracking.url, events: ['*'], secret: extra.secret }] };
    // Every scenario brings its own token (tokenEnv): a real target needs no --token.
    const target = await resolveTarget(withOwnToken(args, io.env, ownTokenOf(plan, env)), io, tierKey, notify).catch(async (err: unknown) => {
      await tracking?.close();
      throw err;
    });
    let exporters: RunExporters | undefined;
    const stop = listenForStop(io.stderr, 'stopping; draining in-flight requests');
    try {
      if (target.embedded) log.write(`flowgauge: no --base-url given; running against the embedded reference service at ${target.baseUrl}\n`);
      if (target.embedded && shard !== undefined && shard.count > 1) {
        io.stderr.write(`flowgauge: ${shardTag.trim()} without --base-url runs against its own embedded service: merged, the ${shard.count} shards' figures describe ${shard.count} services, not one\n`);
      }
      const clientOptions = {
        ...(target.webhookHost !== undefined ? { webhookHost: target.webhookHost } : {}),
        ...(args.transport !== undefined ? { transport: args.transport as TransportChoice } : {}),
        ...target.client,
      };
      if (target.client.tls?.insecure === true) io.stderr.write(`flowgauge: --insecure: the certificate of ${target.baseUrl} is not verified\n`);
      exporters = await startRunExporters({
        plan,
        workers,
        latencyBucketsS,
        metricsPort: args['metrics-port'],
        metricsHost: metricsBind,
        pushgateway: args.pushgateway,
        shard,
        otel: args.otel,
        env: io.env,
        dashboardPort: args.dashboard === undefined ? undefined : dashboardPort(args.dashboard),
        log,
        stderr: io.stderr,
      });
      if (tracking !== undefined) {
        log.write(`flowgauge: receiving notifications at ${tracking.url}${target.embedded && args['webhook-secret'] === undefined && io.env.FLOWGAUGE_WEBHOOK_SECRET === undefined ? ' (the embedded service signs them with a generated secret)' : ''}\n`);
      }
      for (const s of plan.scenarios) {
        const when = s.startAfterMs === undefined ? '' : ` from ${s.startAfterMs / 1000}s`;
        log.write(`flowgauge: ${s.name}: ${s.journey === undefined ? 'mix' : 'journey'}, ${s.load.executor} ${shownLength(s.load)}${when}${validateNote(s.validate)}\n`);
      }

      const name = shard === undefined ? plan.name : `${plan.name}-shard${shard.index + 1}of${shard.count}`;
      const writer = createReportWriter({ cwd: io.cwd, name, out: args.out });
      let lastPlain = 0;
      const showProgress = (p: RunProgress): void => {
        if (io.isTTY && args.json !== true) io.stdout.write(`\r\x1b[2K${shardTag}${formatProgress(p)}`);
        else if (p.elapsedS - lastPlain >= 5) {
          lastPlain = p.elapsedS;
          log.write(`${shardTag}${formatProgress(p)}\n`);
        }
      };
      const { local } = exporters;
      // One list for both paths. Over workers this thread sees the merged progress and reports
      // (tick, scheduleEnded, end); following and the generator's watch run in each worker.
      const split = workers > 1;
      const observers = createRunObservers({
        metrics: local.metrics,
        tracer: local.tracer,
        onProgress: args.quiet === true ? undefined : showProgress,
        notifications: tracking,
        follow: split ? false : extra.follow,
        audit: !split && args.audit !== false,
        ...(split ? { generator: false } : {}),
        extra: [writer, ...local.observers, ...(split ? [{ name: 'worker-exports', tick: (p: RunProgress) => exporters?.workers.tick(p) }] : [])],
      });
      const runTarget = { baseUrl: target.baseUrl, embedded: target.embedded };
      // Every shard, and every worker of each, holds its clock until --start-at (after preparing).
      const ready =
        startAt === undefined
          ? undefined
          : createStartGate({ startAt, clock: wall, signal: stop.signal, log, stderr: io.stderr, countdown: io.isTTY && args.json !== true && args.quiet !== true, tag: shardTag });
      let outcome: { readonly report: Report; readonly passed: boolean; readonly dataExhausted: readonly string[] };
      if (workers > 1) {
        log.write(`flowgauge: the schedule is split over ${workers} worker threads\n`);
        const fed = exporters.workers;
        outcome = await runInWorkers({
          count: workers,
          shard,
          input: {
            file,
            env,
            overrides,
            target: runTarget,
            token: target.token,
            tokens: tenantTokens(plan, target, env),
            connections: workerConnections(plan.scenarios, workers, args.connections),
            client: clientOptions,
            follow: extra.follow,
            exports: fed.exports,
          },
          stopSignal: stop.signal,
          ready,
          observers,
          onSnapshot: (i, snap) => fed.onSnapshot(i, snap),
        });
      } else {
        // Sized from the scenario, so the client never silently caps its concurrency.
        const client = createClient({ ...clientOptions, baseUrl: target.baseUrl, token: target.token, connections: args.connections ?? connectionsFor(plan.scenarios) });
        const clients = tenantClients(plan, target, env, { ...clientOptions, ...(args.connections !== undefined ? { connections: args.connections } : {}) });
        try {
          outcome = await executeRun({ scenario: plan, client, clients, target: runTarget, ...(shard !== undefined ? { shard } : {}), stopSignal: stop.signal, observers, ...(ready !== undefined ? { ready } : {}) });
        } finally {
          // Also when the run never began (a target that is not the service): kept-alive
          // connections must not hold the process open.
          await Promise.all([...new Set([client, ...Object.values(clients)])].map((c) => c.close()));
        }
      }
      if (io.isTTY && args.json !== true && args.quiet !== true) io.stdout.write('\r\x1b[2K');

      const { report } = outcome;
      exporters.end(report, writer.html);
      log.write(renderSummary(report, { color: io.isTTY && args.json !== true, ...(shard !== undefined ? { shard: { index: shard.index + 1, count: shard.count } } : {}) }));
      const latest = writer.latest === undefined ? '' : `; ${relative(io.cwd, writer.latest)}/ points at the newest`;
      log.write(`\nreport: ${writer.dir ?? '(not written)'}/report.html (and report.json, report.md${latest})\n`);
      if (args.json === true) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      ctx.setExit(outcome.passed ? EXIT.OK : EXIT.FAILED);
      if (outcome.dataExhausted.length > 0) {
        io.stderr.write(`flowgauge: the unique data of ${outcome.dataExhausted.join(', ')} ran out; the run stopped early\n`);
        ctx.setExit(EXIT.BAD_INPUT);
      }
      if (report.interrupted) ctx.setExit(EXIT.INTERRUPTED);
    } finally {
      stop.dispose();
      await exporters?.close();
      await target.close();
      await tracking?.close();
    }
  }),
});
