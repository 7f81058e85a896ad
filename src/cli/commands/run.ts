/**
 * `flowgauge run <scenario>`: drive a scenario against a target, show live progress, write
 * report.json and report.md, exit by the thresholds. Ctrl-C stops scheduling, drains
 * in-flight requests for the grace period and still writes the report; a second Ctrl-C quits.
 * Flags in (`run-flags.ts`), a run session out (`run/session.ts`), then printing and exit codes.
 */
import { relative, resolve } from 'node:path';
import type { TransportChoice } from '../../api/index.js';
import { createSystemClock } from '../../core/clock.js';
import { withProcessEnv } from '../../core/process-env.js';
import { shownLength } from '../../load/index.js';
import { renderSummary } from '../../report/summary.js';
import { createRunSession } from '../../run/session.js';
import { startNotificationTracking } from '../../run/notifications.js';
import type { NotificationTracking, RunProgress, RunSession } from '../../run/index.js';
import { loadScenarioFile, planOf, type ResolvedScenario } from '../../scenario/index.js';
import { UsageError } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { WORKER_EXIT_GUARD, withExitGuard } from '../exit-guard.js';
import { formatProgress } from '../progress-line.js';
import { loadHtmlAssets } from '../report-formats.js';
import { checkOutFlag } from '../report-files.js';
import { createReportWriter } from '../report-writer.js';
import { asyncFlags, exporterFlags, overridesOf, parseEnvFlags, parseShard, RUN_OPTIONS, validateNote, type RunArgs } from '../run-flags.js';
import { checkReportDir, checkWholeNumberFlags, resolveWithFlags } from '../run-input.js';
import { builtinScenarioNames, findScenarioFile } from '../scenario-path.js';
import { listenForStop } from '../signals.js';
import { shardIdentity } from '../shard-identity.js';
import { createStartGate, parseStartAt, planScheduleMs } from '../start-at.js';
import { checkTargetName, resolveTarget, TARGET_NAME_OPTION, TARGET_OPTIONS, targetNameFor, withEnvBaseUrl } from '../target-options.js';
import { checkTenantTokens, ownTokenOf, tenantTokens, tierKeyOf, withOwnToken } from '../tenants.js';
import { scenarioNotFound } from '../usage-messages.js';
import { autoWorkersNote, checkWorkerFlags, parseWorkers } from '../workers-option.js';
import type { MakeCommand } from './command.js';

/** The `run` command. */
export const runCommand: MakeCommand = (ctx) => ({
  command: 'run <scenario>',
  describe: 'run a scenario (a file, or a ready one: ' + builtinScenarioNames().join(', ') + ')',
  builder: (y) =>
    y
      .positional('scenario', { type: 'string', demandOption: true, describe: 'scenario file (.ts/.js/.json/.yaml) or ready scenario name' })
      .options(TARGET_OPTIONS)
      .options(TARGET_NAME_OPTION)
      .options(RUN_OPTIONS),
  // -e values are in process.env for the whole run (a .ts scenario reads them there), then put back.
  // The scenario's code may not end the process behind the run's back: process.exit is guarded from its load to the run's end.
  handler: async (argv) => withProcessEnv(parseEnvFlags((argv as unknown as RunArgs).env), () => withExitGuard(async (guard) => {
    const { io } = ctx;
    const args = withEnvBaseUrl(argv as unknown as RunArgs, io.env);
    const file = findScenarioFile(io.cwd, args.scenario);
    if (file === undefined) throw new UsageError(scenarioNotFound(args.scenario, resolve(io.cwd, args.scenario), builtinScenarioNames()));
    checkWholeNumberFlags(argv);
    checkOutFlag(args.out);
    checkTargetName(args['target-name']);
    const env = { ...io.env, ...parseEnvFlags(args.env) };
    const plan = planOf(resolveWithFlags(await loadScenarioFile(file, { env, preflight: true }), overridesOf(args), file));
    const sharded = parseShard(args, io.env);
    if (sharded === undefined && args['run-id'] !== undefined) throw new UsageError('--run-id names the run a shard belongs to: give it with --shard i/N or --shards N');
    // Only the CLI reads the system time: the wait is on this clock, the engine's is another of the same kind.
    const wall = createSystemClock();
    const startAt = parseStartAt(args['start-at'], io.env.FLOWGAUGE_START_AT, wall.wallMs(), planScheduleMs(plan));
    // Which shard of which run: the report says so, and merge checks it.
    const shard = sharded === undefined ? undefined : await shardIdentity(sharded, plan, file, { flag: args['run-id'], env: io.env.FLOWGAUGE_RUN_ID, startAtMs: startAt?.atMs, scenario: plan.name });
    const workers = parseWorkers(args.workers);
    const workersNote = autoWorkersNote(args.workers, workers);
    if (workersNote !== undefined) io.stderr.write(`flowgauge: ${workersNote}\n`);
    checkWorkerFlags(workers, args as unknown as Record<string, unknown>);
    const exporters = exporterFlags(args, io.env);
    const shardTag = shard === undefined ? '' : `shard ${shard.index + 1}/${shard.count}  `;
    const extra = asyncFlags(args, io.env);
    await checkReportDir(io.cwd, args.out);

    const log = args.json === true ? io.stderr : io.stdout;
    const live = io.isTTY && args.json !== true;
    checkTenantTokens(plan, env, args['base-url'] === undefined);
    // The receiver listens before the target starts, so the embedded service can be pointed at it.
    const tracking: NotificationTracking | undefined =
      extra.listen === undefined ? undefined : await startNotificationTracking({ ...extra.listen, secret: extra.secret, ...(extra.graceMs !== undefined ? { graceMs: extra.graceMs } : {}) });
    const notify = tracking === undefined ? {} : { notifications: [{ webhook_url: tracking.url, events: ['*'], secret: extra.secret }] };
    // Every scenario brings its own token (tokenEnv): a real target needs no --token.
    const target = await resolveTarget(withOwnToken(args, io.env, ownTokenOf(plan, env)), io, tierKeyOf(plan.scenarios[0] as ResolvedScenario), notify).catch(async (err: unknown) => {
      await tracking?.close();
      throw err;
    });
    let session: RunSession | undefined;
    const stop = listenForStop(io.stderr, 'stopping; draining in-flight requests');
    guard.signal.addEventListener('abort', () => stop.abort(), { once: true });
    try {
      if (target.embedded) log.write(`flowgauge: no --base-url given; running against the embedded reference service at ${target.baseUrl}\n`);
      if (target.embedded && shard !== undefined && shard.count > 1) {
        io.stderr.write(`flowgauge: ${shardTag.trim()} without --base-url runs against its own embedded service: merged, the ${shard.count} shards' figures describe ${shard.count} services, not one\n`);
      }
      if (target.client.tls?.insecure === true) io.stderr.write(`flowgauge: --insecure: the certificate of ${target.baseUrl} is not verified\n`);
      const name = shard === undefined ? plan.name : `${plan.name}-shard${shard.index + 1}of${shard.count}`;
      const writer = createReportWriter({ cwd: io.cwd, name, out: args.out });
      let lastPlain = 0;
      const showProgress = (p: RunProgress): void => {
        if (live) io.stdout.write(`\r\x1b[2K${shardTag}${formatProgress(p)}`);
        else if (p.elapsedS - lastPlain >= 5) {
          lastPlain = p.elapsedS;
          log.write(`${shardTag}${formatProgress(p)}\n`);
        }
      };
      session = await createRunSession({
        scenario: plan,
        target: { baseUrl: target.baseUrl, embedded: target.embedded },
        targetName: targetNameFor(args['target-name'], target),
        // One client per token, sized from its scenarios so it never silently caps them; each worker gets its share.
        connect: {
          baseUrl: target.baseUrl,
          token: target.token,
          tokens: tenantTokens(plan, target, env),
          options: { ...(target.webhookHost !== undefined ? { webhookHost: target.webhookHost } : {}), ...(args.transport !== undefined ? { transport: args.transport as TransportChoice } : {}), ...target.client },
          connections: args.connections,
        },
        workers,
        ...(shard !== undefined ? { shard } : {}),
        ...(startAt !== undefined ? { startAtMs: startAt.atMs } : {}),
        follow: extra.follow,
        audit: args.audit !== false,
        notifications: tracking,
        generator: true,
        // The guard's warning in this thread's report; over worker threads each worker guards its own.
        phases: workers > 1 ? [] : [guard.phase],
        workerSetup: WORKER_EXIT_GUARD,
        exporters: await exporters.wishes(loadHtmlAssets, () => writer.html),
        onProgress: args.quiet === true ? undefined : showProgress,
        outputs: [writer],
        log,
        warn: io.stderr,
        env,
        stopSignal: stop.signal,
        // Every shard, and every worker of each, holds its clock until --start-at (after preparing).
        ready: startAt === undefined ? undefined : createStartGate({ startAt, clock: wall, signal: stop.signal, log, stderr: io.stderr, countdown: live && args.quiet !== true, tag: shardTag }),
      });
      if (tracking !== undefined) {
        log.write(`flowgauge: receiving notifications at ${tracking.url}${target.embedded && args['webhook-secret'] === undefined && io.env.FLOWGAUGE_WEBHOOK_SECRET === undefined ? ' (the embedded service signs them with a generated secret)' : ''}\n`);
      }
      for (const s of plan.scenarios) {
        const when = s.startAfterMs === undefined ? '' : ` from ${s.startAfterMs / 1000}s`;
        log.write(`flowgauge: ${s.name}: ${s.journey === undefined ? 'mix' : 'journey'}, ${s.load.executor} ${shownLength(s.load)}${when}${validateNote(s.validate)}\n`);
      }
      if (workers > 1) log.write(`flowgauge: the schedule is split over ${workers} worker threads\n`);
      const outcome = await session.run();
      if (live && args.quiet !== true) io.stdout.write('\r\x1b[2K');

      const { report } = outcome;
      log.write(renderSummary(report, { color: live, ...(shard !== undefined ? { shard: { index: shard.index + 1, count: shard.count } } : {}) }));
      const latest = writer.latest === undefined ? '' : `; ${relative(io.cwd, writer.latest)}/ points at the newest`;
      if (writer.failure === undefined) log.write(`\nreport: ${writer.dir ?? '(not written)'}/report.html (and report.json, report.md${latest})\n`);
      else io.stderr.write(`flowgauge: ${writer.failure.message}; the report is not on disk (no temp file left)\n`);
      if (guard.called !== undefined) io.stderr.write(`flowgauge: ${guard.called.message}\n`);
      if (args.json === true) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      ctx.setExit(outcome.passed ? EXIT.OK : EXIT.FAILED);
      if (writer.failure !== undefined) ctx.setExit(EXIT.BAD_INPUT);
      if (outcome.dataExhausted.length > 0) {
        io.stderr.write(`flowgauge: the unique data of ${outcome.dataExhausted.join(', ')} ran out; the run stopped early\n`);
        ctx.setExit(EXIT.BAD_INPUT);
      }
      if (report.interrupted) ctx.setExit(EXIT.INTERRUPTED);
    } finally {
      stop.dispose();
      await session?.close();
      await target.close();
      await tracking?.close();
    }
  })),
});
