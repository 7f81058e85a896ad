/**
 * `flowgauge probe`: scheduled uptime checks against a target (the embedded reference service
 * without --base-url). As a daemon it runs a round every --interval until SIGINT/SIGTERM/SIGHUP (or
 * --duration), serving /metrics when asked; with --once it runs one round, pushes to a
 * Pushgateway when given, and exits 0 when every check succeeded, 1 when the target failed one,
 * and anything else when the prober failed (a CronJob: `onceVerdict`). Every check is appended to
 * the durable history in --history, under the probe's --target-name.
 */
import { resolve } from 'node:path';
import { createSystemClock } from '../../core/clock.js';
import { DURATION_HELP, parseDurationMs } from '../../core/units.js';
import {
  createProbeMetrics,
  createPushgatewayPusher,
  renderProbeAnswer,
  startMetricsServer,
  unknownCheckAnswer,
  type MetricsRoute,
  type MetricsServer,
  type ProbeMetrics,
} from '../../export/index.js';
import {
  CHECK_NAMES,
  DEFAULT_CERT_MIN_DAYS,
  createProbeRunner,
  deriveOnceInterval,
  isCheckName,
  onceVerdict,
  openHistoryWriter,
  probeResultOf,
  readProbeResume,
  readProbeTotals,
  recordTimeMs,
  type CheckName,
  type IncidentEvent,
  type ProbeRecord,
  type ProbeRunner,
} from '../../probe/index.js';
import { UsageError } from '../context.js';
import { EXIT } from '../exit-codes.js';
import type { TextSink } from '../io.js';
import { METRICS_HOST_OPTION, metricsHost } from '../metrics-host.js';
import { checkTargetName, readCaFile, resolveTarget, TARGET_NAME_OPTION, TARGET_OPTIONS, targetNameFor, withEnvBaseUrl, type TargetArgs } from '../target-options.js';
import type { MakeCommand } from './command.js';
import { makeDirectory } from '../report-files.js';
import { osReason } from '../safe-write.js';
import { listenForStop } from '../signals.js';
import { finalPush, parsePushLabels } from '../probe-push.js';

interface ProbeArgs extends TargetArgs {
  interval?: string | undefined;
  checks: string;
  history: string;
  retention: string;
  timeout: string;
  'failures-to-open': number;
  'cert-min-days': number;
  'metrics-port'?: number | undefined;
  'metrics-host'?: string | undefined;
  once?: boolean | undefined;
  pushgateway?: string | undefined;
  duration?: string | undefined;
  flow?: string | undefined;
  insecure?: boolean | undefined;
  ca?: string | undefined;
  json?: boolean | undefined;
  quiet?: boolean | undefined;
  'target-name'?: string | undefined;
  'push-label'?: string[] | undefined;
}

const DAY_MS = 86_400_000;

/** Shortest time between probe rounds. */
const MIN_INTERVAL_MS = 1000;
/** Time between rounds when no --interval is given (and, for --once, none can be derived). */
const DEFAULT_INTERVAL_MS = 30_000;

function duration(flag: string, value: string): number {
  const ms = parseDurationMs(value);
  if (ms === undefined || ms <= 0) throw new UsageError(`--${flag} "${value}" is not ${DURATION_HELP}`);
  return ms;
}

/** Parses `--checks`: a comma-separated subset of the check names. */
export function parseChecks(input: string): CheckName[] {
  const names = input.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const bad = names.filter((n) => !isCheckName(n));
  if (names.length === 0 || bad.length > 0) {
    throw new UsageError(`--checks "${input}": ${bad.length > 0 ? `unknown ${bad.join(', ')}; ` : ''}name some of ${CHECK_NAMES.join(', ')}`);
  }
  return [...new Set(names)] as CheckName[];
}

/** One line per record, for people. */
export function formatRecord(r: ProbeRecord): string {
  const verdict = r.success ? 'ok  ' : 'FAIL';
  const code = r.error === null ? '' : ` ${r.error}`;
  const ttft = r.ttftMs === null ? '' : ` ttft ${r.ttftMs.toFixed(1)}ms`;
  const tls = r.tls === null ? '' : ` ${r.tls.version ?? 'TLS?'}${r.tls.versionOk ? '' : ' (below TLSv1.3)'} cert ${r.tls.certDaysLeft?.toFixed(1) ?? '?'}d`;
  return `${r.time} ${r.check.padEnd(9)} ${verdict} ${String(r.status).padStart(3)}${code} ${r.phasesMs.total.toFixed(1)}ms${ttft}${tls}${r.detail === undefined ? '' : ` (${r.detail})`}\n`;
}

function formatIncident(e: IncidentEvent): string {
  const i = e.incident;
  if (e.kind === 'opened') return `flowgauge: incident opened on ${i.check} (since ${new Date(i.startMs).toISOString()}, ${i.failures} consecutive failures)\n`;
  const min = (i.durationMs / 60_000).toFixed(2);
  return `flowgauge: incident closed on ${i.check} after ${min} min (${i.withinRto ? 'within' : 'BREACHING'} the 4h RTO)\n`;
}

/**
 * The span of a `--once` round without `--interval`: the gap since the previous record of the
 * same check (a CronJob's schedule), else the default, said aloud either way.
 */
function onceInterval(previous: readonly ProbeRecord[], checks: readonly CheckName[], nowMs: number, log: TextSink): number {
  const d = deriveOnceInterval(previous, checks, nowMs);
  if (d.ok) {
    log.write(`flowgauge: --once without --interval: each record stands for ${(d.intervalMs / 1000).toFixed(1)}s, the time since the previous one (${d.previousAt}); pass --interval with your schedule to fix it\n`);
    return d.intervalMs;
  }
  const why = d.reason === 'no-previous' ? 'no earlier record of these checks' : d.reason === 'too-old' ? 'the previous record is over an hour old' : 'the previous record is under a second old';
  log.write(`flowgauge: --once without --interval and ${why}: each record stands for 30s; pass --interval with your schedule (e.g. --interval 1m) or part of every outage goes uncounted\n`);
  return DEFAULT_INTERVAL_MS;
}

/**
 * The daemon's blackbox-style `/probe?check=<name>`: runs that check now and answers its
 * gauges; the schedule's history and counters never see it.
 */
function probeRoute(runner: ProbeRunner, checks: readonly CheckName[]): MetricsRoute {
  return async (params) => {
    const check = params.get('check');
    if (check === null || !(checks as readonly string[]).includes(check)) return unknownCheckAnswer(check, checks);
    const { record, checkS } = await runner.checkNow(check as CheckName);
    return renderProbeAnswer(runner.options.targetName, check, { ...probeResultOf(record, recordTimeMs(record), checkS), status: record.status });
  };
}

/** The exit code of each `--once` verdict (docs/probes.md, "Exit codes under a scheduler"). */
const ONCE_EXIT = { ok: EXIT.OK, failed: EXIT.FAILED, 'not-the-interface': EXIT.PROTOCOL, unrecorded: EXIT.BAD_INPUT } as const;

/** The `probe` command. */
export const probeCommand: MakeCommand = (ctx) => ({
  command: 'probe',
  describe: 'run scheduled uptime checks, keep a durable history, export probe metrics',
  builder: (y) =>
    y.options(TARGET_OPTIONS).options({
      interval: {
        type: 'string',
        requiresArg: true,
        describe: `time between rounds, default 30s (${DURATION_HELP}); with --once give your schedule's (e.g. 1m for a one-minute CronJob): each record stands for this long`,
      },
      checks: { type: 'string', default: CHECK_NAMES.join(','), describe: `checks of each round: ${CHECK_NAMES.join(', ')}` },
      history: { type: 'string', default: '.probe-history', describe: 'directory of the durable history (JSON Lines, one file per UTC day)' },
      retention: { type: 'string', default: '35d', describe: 'delete history files older than this' },
      timeout: { type: 'string', default: '10s', describe: 'time limit of each check' },
      'failures-to-open': { type: 'number', default: 3, describe: 'consecutive failures that open an incident' },
      'cert-min-days': {
        type: 'number',
        default: DEFAULT_CERT_MIN_DAYS,
        describe: 'a TLS certificate with fewer days left is a finding (--once exits 1, slo status warns; uptime is not affected); 0 only records the days',
      },
      'metrics-port': {
        type: 'number',
        describe: 'serve Prometheus /metrics (counters continued from the history) and /probe?check=<name> (one check run now) on this port (on --metrics-host)',
      },
      ...METRICS_HOST_OPTION,
      once: { type: 'boolean', describe: 'run each check once and exit: 0 all succeeded, 1 the target failed a check (findings such as an expiring certificate are said and exported, not failures)' },
      ...TARGET_NAME_OPTION,
      pushgateway: { type: 'string', describe: 'push the probe metrics to this Pushgateway (after --once, or every interval), to the group job="flowgauge_probe", target=<--target-name>' },
      'push-label': { type: 'string', array: true, requiresArg: true, describe: 'a further label of the Pushgateway group, name=value (repeatable), e.g. region=eu-west-1' },
      duration: { type: 'string', describe: 'stop the daemon after this long' },
      flow: { type: 'string', describe: 'flow id the flow checks address (default: the first published flow)' },
      insecure: { type: 'boolean', describe: 'accept any TLS certificate (still recorded and reported)' },
      ca: { type: 'string', describe: 'PEM file of extra trusted CA certificates' },
      json: { type: 'boolean', describe: 'print each record as a JSON line instead of a summary line' },
      quiet: { type: 'boolean', describe: 'print only incidents and errors' },
    }),
  handler: async (argv) => {
    const { io } = ctx;
    const args = withEnvBaseUrl(argv as unknown as ProbeArgs, io.env);
    let intervalMs = args.interval === undefined ? DEFAULT_INTERVAL_MS : duration('interval', args.interval);
    // Each round writes a record per check: a sub-second interval floods the history for nothing.
    if (args.interval !== undefined && intervalMs < MIN_INTERVAL_MS) throw new UsageError(`--interval "${args.interval}" is too short: at least ${MIN_INTERVAL_MS / 1000}s between rounds`);
    const timeoutMs = duration('timeout', args.timeout);
    const retentionMs = duration('retention', args.retention);
    const durationMs = args.duration === undefined ? undefined : duration('duration', args.duration);
    const checks = parseChecks(args.checks);
    const failuresToOpen = args['failures-to-open'];
    if (!Number.isInteger(failuresToOpen) || failuresToOpen < 1) throw new UsageError(`--failures-to-open must be a whole number >= 1, got ${failuresToOpen}`);
    const certMinDays = args['cert-min-days'];
    if (!(Number.isFinite(certMinDays) && certMinDays >= 0)) throw new UsageError(`--cert-min-days must be a number of days >= 0 (0 only records them), got ${String(certMinDays)}`);
    checkTargetName(args['target-name']);
    const pushLabels = parsePushLabels(args['push-label']);
    if (args['push-label'] !== undefined && args.pushgateway === undefined) throw new UsageError('--push-label labels the Pushgateway group: give it with --pushgateway URL');
    const ca = args.ca === undefined ? undefined : await readCaFile(args.ca, io.cwd);
    const metricsBind = metricsHost(args['metrics-host'], args['metrics-port']);
    const historyDir = resolve(io.cwd, args.history);
    // As --out is: refused at once with its reason (Node 20's recursive mkdir spins on /proc/1/x).
    await makeDirectory(historyDir, 'give a writable directory with --history', 'the probe history');
    const out: TextSink = io.stdout;
    // With --json, stdout carries only records, so the messages go to stderr.
    const log: TextSink = args.json === true ? io.stderr : io.stdout;

    const target = await resolveTarget(args, io, 'pro');
    let targetName: string;
    try {
      targetName = targetNameFor(args['target-name'], target);
    } catch (err) {
      await target.close();
      throw err;
    }
    const clock = createSystemClock();
    let metricsServer: MetricsServer | undefined;
    const closing: (() => Promise<unknown>)[] = [];
    let stopDaemon: (() => void) | undefined;
    // SIGHUP as SIGINT and SIGTERM: a daemon started from a terminal that closed still flushes its history.
    const stop = listenForStop(io.stderr, 'finishing the current round and flushing the history');
    stop.signal.addEventListener('abort', () => stopDaemon?.(), { once: true });
    try {
      if (target.embedded) log.write(`flowgauge: no --base-url given; probing the embedded reference service at ${target.baseUrl}\n`);
      let metrics: ProbeMetrics | undefined;
      if (args['metrics-port'] !== undefined || args.pushgateway !== undefined) {
        metrics = createProbeMetrics({ target: targetName });
        // Before the writer prunes: the counters go on from every record of this target the
        // history holds, so a pushed --once run or a restarted daemon never reads as a counter reset.
        const totals = await readProbeTotals(historyDir, clock.wallMs(), targetName);
        metrics.seed(totals.totals);
        if (totals.checkpointError !== undefined) {
          io.stderr.write(`flowgauge: could not write the counters' checkpoint in ${historyDir} (${totals.checkpointError}); the next start reads the whole history again\n`);
        }
      }
      const history = await openHistoryWriter({ dir: historyDir, retentionMs });
      closing.push(() => history.close());
      // Folded, not read: a day of a fast probe can be far more than fits in memory.
      const resume = await readProbeResume(historyDir, { fromMs: clock.wallMs() - DAY_MS }, clock.wallMs(), targetName);
      if (args.once === true && args.interval === undefined) intervalMs = onceInterval(resume.latest, checks, clock.wallMs(), log);

      const pusher =
        args.pushgateway === undefined || metrics === undefined
          ? undefined
          : // job and target: probers of two targets keep two groups, never replacing each other's counters.
            createPushgatewayPusher({ url: args.pushgateway, job: 'flowgauge_probe', grouping: { target: targetName, ...pushLabels }, registry: metrics.registry, intervalMs, clock });

      const runner = createProbeRunner({
        target: {
          baseUrl: target.baseUrl,
          ...(target.webhookHost !== undefined ? { webhookHost: target.webhookHost } : {}),
          token: target.token,
          name: targetName,
          tls: { ...(ca !== undefined ? { ca } : {}), ...(args.insecure === true ? { rejectUnauthorized: false } : {}) },
        },
        checks,
        intervalMs,
        timeoutMs,
        failuresToOpen,
        certMinDays,
        ...(args.flow !== undefined ? { flowId: args.flow } : {}),
        clock,
        history,
        ...(metrics !== undefined ? { metrics } : {}),
        resume: resume.tails,
        onRecord: (r, stored) => {
          // --json prints only what the history holds: a wrapper counts these lines as recorded.
          if (args.json === true) {
            if (stored) out.write(`${JSON.stringify(r)}\n`);
          } else if (args.quiet !== true) out.write(formatRecord(r));
        },
        onIncident: (e) => log.write(formatIncident(e)),
        onHistoryError: (error, r) => io.stderr.write(`flowgauge: could not write the ${r.check} record to ${historyDir}: ${osReason({ code: error })}\n`),
      });

      if (args['metrics-port'] !== undefined && metrics !== undefined) {
        metricsServer = await startMetricsServer({ host: metricsBind, port: args['metrics-port'], registry: metrics.registry, routes: { '/probe': probeRoute(runner, checks) } });
        log.write(`flowgauge: Prometheus metrics at ${metricsServer.url}; one check on demand at ${metricsServer.url.replace(/\/metrics$/, '/probe')}?check=<name>\n`);
      }

      if (args.once === true) {
        const round = await runner.runRound();
        if (pusher !== undefined) await finalPush(pusher, io.stderr);
        const v = onceVerdict(round.records, round.unstored);
        const n = round.records.length;
        if (v.outcome === 'unrecorded') {
          io.stderr.write(`flowgauge: ${round.unstored} of ${n} records could not be stored in ${historyDir} (said above): this round is not in the history, so the prober failed\n`);
        } else if (v.outcome === 'not-the-interface') {
          io.stderr.write(
            `flowgauge: every check answered 404 with a page that is not the service's error body: this is not the interface; check the path of --base-url (${target.baseUrl}; the interface's paths live under /v1). Recorded as failed checks.\n`,
          );
        } else log.write(v.failed.length === 0 ? `flowgauge: all ${n} checks succeeded\n` : `flowgauge: failed: ${v.failed.join(', ')}\n`);
        // Findings are not downtime: said and exported (records, metrics, alerts), never the exit code.
        for (const f of v.findings) log.write(`flowgauge: finding: ${f}\n`);
        ctx.setExit(ONCE_EXIT[v.outcome]);
        return;
      }

      log.write(`flowgauge: probing ${checks.join(', ')} every ${args.interval ?? '30s'}; history in ${historyDir}\n`);
      const stopped = new Promise<void>((done) => {
        stopDaemon = done;
        if (stop.signal.aborted) done();
      });
      const timer = durationMs === undefined ? undefined : setTimeout(() => stopDaemon?.(), durationMs);
      runner.start();
      pusher?.start();
      await stopped;
      if (timer !== undefined) clearTimeout(timer);
      await runner.stop();
      if (pusher !== undefined) await finalPush(pusher, io.stderr);
      const s = runner.stats();
      log.write(`flowgauge: stopped after ${s.rounds} rounds (${s.records} records, ${s.failures} failed, ${s.skipped} skipped ticks, ${s.historyErrors} write errors)\n`);
      ctx.setExit(EXIT.OK);
      // A record the history could not store is a gap nobody would see: exit 2, as every write that fails.
      if (s.historyErrors > 0) {
        io.stderr.write(`flowgauge: ${s.historyErrors} of ${s.records} records could not be stored in ${historyDir} (said above): the history has gaps there\n`);
        ctx.setExit(EXIT.BAD_INPUT);
      }
    } finally {
      stop.dispose();
      for (const close of closing.reverse()) await close();
      if (metricsServer !== undefined) {
        await metricsServer.close();
        log.write(`flowgauge: Prometheus metrics at ${metricsServer.url} closed (the probe stopped)\n`);
      }
      await target.close();
    }
  },
});
