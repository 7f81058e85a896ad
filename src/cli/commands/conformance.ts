/**
 * `flowgauge conformance`: a short battery of requests (no load) that reports what the target
 * does where the interface is silent and every departure from what it states, as
 * conformance.md and conformance.json. Exit 0 without violations, 1 with (or cut by its
 * deadline), 3 unreachable, 76 when the target speaks another protocol or answers in another
 * shape, 2 when the token is refused. Prints one line per probe group to stderr.
 */
import { randomBytes } from 'node:crypto';
import {
  DEFAULT_CONFORMANCE_DEADLINE_MS,
  renderConformanceMarkdown,
  runConformance,
  startConformanceReceiver,
  type ConformanceProgress,
  type ConformanceReceiver,
} from '../../conformance/index.js';
import { parseListenAddress } from '../../run/index.js';
import { DURATION_HELP, parseDurationMs } from '../../core/units.js';
import { UsageError } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { checkReportDir } from '../run-input.js';
import { chooseReportDir, writeReportFiles } from '../report-files.js';
import { listenForStop } from '../signals.js';
import { resolveTarget, TARGET_OPTIONS, withEnvBaseUrl, type TargetArgs } from '../target-options.js';
import type { MakeCommand } from './command.js';

interface ConformanceArgs extends TargetArgs {
  'other-token'?: string | undefined;
  out?: string | undefined;
  json?: boolean | undefined;
  'webhook-listen'?: string | undefined;
  'webhook-secret'?: string | undefined;
  'max-requests'?: number | undefined;
  deadline?: string | undefined;
  quiet?: boolean | undefined;
}

/** The `conformance` command. */
export const conformanceCommand: MakeCommand = (ctx) => ({
  command: 'conformance',
  describe: 'observe what the interface leaves unsaid and check what it states (a few dozen requests, no load)',
  builder: (y) =>
    y.options(TARGET_OPTIONS).options({
      'other-token': { type: 'string', describe: "a token of another account (or FLOWGAUGE_OTHER_TOKEN): checks access to another account's flow" },
      out: { type: 'string', describe: 'report directory (default reports/conformance-<timestamp>/)' },
      json: { type: 'boolean', describe: 'print conformance.json to stdout' },
      'webhook-listen': { type: 'string', describe: 'receive notifications at host:port to observe their event names (the embedded service gets one anyway)' },
      'webhook-secret': { type: 'string', describe: 'shared secret of the notifications (or FLOWGAUGE_WEBHOOK_SECRET); never printed or stored' },
      'max-requests': { type: 'number', describe: 'most requests the battery may send (default 150)' },
      deadline: {
        type: 'string',
        describe: `longest the whole command may take, from its start to its exit (default ${DEFAULT_CONFORMANCE_DEADLINE_MS / 60_000}m; ${DURATION_HELP}); the report says what it cut`,
      },
      quiet: { type: 'boolean', describe: 'no progress lines on stderr' },
    }),
  handler: async (argv) => {
    const { io } = ctx;
    const args = withEnvBaseUrl(argv as unknown as ConformanceArgs, io.env);
    const listen = args['webhook-listen'] === undefined ? undefined : parseListenAddress(args['webhook-listen']);
    if (args['webhook-listen'] !== undefined && listen === undefined) {
      throw new UsageError(`--webhook-listen "${args['webhook-listen']}" is not host:port, e.g. 127.0.0.1:8787`);
    }
    const maxRequests = args['max-requests'];
    // Too few requests for the battery's first probe would read as an unreachable target.
    if (maxRequests !== undefined && !(Number.isInteger(maxRequests) && maxRequests >= 1)) {
      throw new UsageError(`--max-requests must be a whole number >= 1, got ${Number.isNaN(maxRequests) ? 'something that is not a number' : maxRequests}`);
    }
    let deadlineMs: number | undefined;
    if (args.deadline !== undefined) {
      deadlineMs = parseDurationMs(args.deadline);
      if (deadlineMs === undefined || deadlineMs < 1000) throw new UsageError(`--deadline "${args.deadline}" must be at least 1s (${DURATION_HELP})`);
    }
    await checkReportDir(io.cwd, args.out, 'conformance');
    const embedded = args['base-url'] === undefined;
    let secret = args['webhook-secret'] ?? io.env.FLOWGAUGE_WEBHOOK_SECRET;
    if (listen !== undefined && !embedded && (secret === undefined || secret === '')) {
      throw new UsageError('--webhook-listen needs the secret the receiver was registered with: --webhook-secret or FLOWGAUGE_WEBHOOK_SECRET');
    }
    // The embedded service notifies a receiver of its own, so the event names are always observed.
    if (embedded && (secret === undefined || secret === '')) secret = randomBytes(24).toString('hex');
    let receiver: ConformanceReceiver | undefined;
    if (listen !== undefined || embedded) {
      receiver = await startConformanceReceiver({ host: listen?.host ?? '127.0.0.1', port: listen?.port ?? 0, secret: secret as string });
    }
    const notify = receiver === undefined ? {} : { notifications: [{ webhook_url: receiver.url, events: ['*'], secret: secret as string }] };
    const target = await resolveTarget(args, io, 'pro', notify).catch(async (err: unknown) => {
      await receiver?.close();
      throw err;
    });
    const stop = listenForStop(io.stderr, 'stopping; the request in flight is cancelled and conformance.json written with what was seen');
    try {
      const log = args.json === true ? io.stderr : io.stdout;
      if (target.embedded) log.write(`flowgauge: no --base-url given; checking the embedded reference service at ${target.baseUrl}\n`);
      const otherToken = target.embedded ? target.service?.tokens.free : (args['other-token'] ?? io.env.FLOWGAUGE_OTHER_TOKEN);
      const report = await runConformance({
        baseUrl: target.baseUrl,
        token: target.token,
        embedded: target.embedded,
        ...(target.webhookHost !== undefined ? { webhookHost: target.webhookHost } : {}),
        ...(otherToken !== undefined && otherToken !== '' ? { otherToken } : {}),
        ...(receiver !== undefined ? { notifications: receiver.notifications } : {}),
        ...(args['max-requests'] !== undefined ? { maxRequests: args['max-requests'] } : {}),
        ...(deadlineMs !== undefined ? { deadlineMs } : {}),
        ...(args.quiet === true
          ? {}
          : { onProgress: (p: ConformanceProgress) => io.stderr.write(`flowgauge: conformance ${p.index}/${p.total} ${p.group} (${p.requests} requests, ${(p.elapsedMs / 1000).toFixed(1)} s)\n`) }),
        target: target.client,
        signal: stop.signal,
        // The deadline bounds the command, start-up included, and leaves it time to write its report.
        spentMs: (io.startedMs === undefined ? 0 : performance.now() - io.startedMs) + endReserveMs(deadlineMs ?? DEFAULT_CONFORMANCE_DEADLINE_MS),
      });
      const dir = await chooseReportDir(io.cwd, 'conformance', Date.parse(report.startedAt), args.out);
      const json = `${JSON.stringify(report, null, 2)}\n`;
      await writeReportFiles(dir, { 'conformance.json': json, 'conformance.md': renderConformanceMarkdown(report) });
      if (args.json === true) io.stdout.write(json);
      if (report.interrupted !== undefined) {
        const cut = report.interrupted.cut.length > 0 ? `; not tried: ${report.interrupted.cut.join(', ')}` : '';
        log.write(`flowgauge: interrupted after ${report.requests} requests${cut}\nreport: ${dir}/conformance.md (and conformance.json, marked interrupted)\n`);
        ctx.setExit(EXIT.INTERRUPTED);
        return;
      }
      if (report.protocol !== undefined) {
        log.write(`flowgauge: ${target.baseUrl} answered, but not as the interface does: ${report.protocol}\nreport: ${dir}/conformance.md\n`);
        ctx.setExit(EXIT.PROTOCOL);
        return;
      }
      if (!report.reachable) {
        log.write(`flowgauge: ${target.baseUrl} could not be reached\nreport: ${dir}/conformance.md\n`);
        ctx.setExit(EXIT.UNREACHABLE);
        return;
      }
      if (!report.tokenAccepted) {
        throw new UsageError(`${target.baseUrl} refused the token; pass a valid --token (or FLOWGAUGE_TOKEN)`);
      }
      const observed = report.observations.filter((o) => o.status === 'observed').length;
      log.write(
        `flowgauge: ${report.requests} requests; ${observed} of ${report.observations.length} unstated behaviours observed; ` +
          `${report.violations.length === 0 ? 'no violations' : `${report.violations.length} violations of the interface`}\n`,
      );
      if (report.deadline !== undefined) {
        log.write(`flowgauge: the deadline of ${report.deadline.ms / 1000} s (the whole command's, start-up included) passed${report.deadline.cut.length > 0 ? `; not tried: ${report.deadline.cut.join(', ')}` : ''}\n`);
      }
      for (const v of report.violations.slice(0, 20)) log.write(`  ✗ ${v.rule} ${v.path}: expected ${v.expected}, got ${v.got} (${v.request}, ×${v.count})\n`);
      log.write(`report: ${dir}/conformance.md (and conformance.json)\n`);
      ctx.setExit(report.passed ? EXIT.OK : EXIT.FAILED);
    } finally {
      stop.dispose();
      await target.close();
      await receiver?.close();
    }
  },
});

/** What the deadline keeps for the command's end (writing the report, closing): a tenth of it, 0.25 to 2 s. */
function endReserveMs(deadlineMs: number): number {
  return Math.min(2000, Math.max(250, deadlineMs / 10));
}
