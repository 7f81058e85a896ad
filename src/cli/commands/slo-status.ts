/**
 * `flowgauge slo status`: uptime per check and overall (time-based and probe-based), error
 * budget left, burn rate and incidents with their RTO verdicts, read from a probe history, one
 * section per target it holds. Exit 0 when overall uptime meets the objective (every target's),
 * 1 when not (or nothing was observed), 2 for bad input (no history there, bad flags).
 *
 * A subcommand module: the `slo` command adds it next to `rules` and `dashboards`.
 */
import { stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { Argv } from 'yargs';
import { DURATION_HELP, parseDurationMs } from '../../core/units.js';
import { readSloStatus, renderStatusHtml, renderStatusText } from '../../probe/index.js';
import type { CommandContext } from '../context.js';
import { UsageError } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { makeDirectory } from '../report-files.js';
import { writeFilesAtomically } from '../safe-write.js';
import type { MakeCommand } from './command.js';
import { OBJECTIVE_HELP, parseObjective } from '../objective.js';

interface StatusArgs {
  history: string;
  window: string;
  objective: string;
  'failures-to-open': number;
  json?: boolean | undefined;
  html?: boolean | undefined;
  out?: string | undefined;
  at?: string | undefined;
}

/** The `slo status` subcommand, made for one invocation's context. */
export const sloStatusCommand: MakeCommand = (ctx: CommandContext) => ({
  command: 'status',
  describe: 'uptime, error budget and incidents from a probe history (exit 1 when the objective is missed)',
  builder: (y: Argv) =>
    y
      .options({
        history: { type: 'string', default: '.probe-history', describe: 'probe history directory (written by flowgauge probe)' },
        window: { type: 'string', default: '30d', describe: `window ending now (${DURATION_HELP})` },
        objective: { type: 'string', default: '99.9', describe: `uptime objective: ${OBJECTIVE_HELP}` },
        'failures-to-open': { type: 'number', default: 3, describe: 'consecutive failures that open an incident' },
        json: { type: 'boolean', describe: 'print the status as JSON (flowgauge/slo-status@1)' },
        html: { type: 'boolean', describe: 'print a self-contained HTML status page' },
        out: { type: 'string', describe: 'write the output to this file instead of stdout' },
        at: { type: 'string', describe: 'end of the window as an ISO 8601 time (default now)' },
      } as const)
      .conflicts('json', 'html'),
  handler: async (argv: unknown) => {
    const args = argv as StatusArgs;
    const { io } = ctx;
    const windowMs = parseDurationMs(args.window);
    if (windowMs === undefined || windowMs <= 0) throw new UsageError(`--window "${args.window}" is not ${DURATION_HELP}`);
    const objective = parseObjective(args.objective);
    if (objective === undefined) throw new UsageError(`--objective "${args.objective}" is not ${OBJECTIVE_HELP}`);
    const failuresToOpen = args['failures-to-open'];
    if (!Number.isInteger(failuresToOpen) || failuresToOpen < 1) throw new UsageError(`--failures-to-open must be a whole number >= 1, got ${failuresToOpen}`);
    const nowMs = args.at === undefined ? Date.now() : Date.parse(args.at);
    if (!Number.isFinite(nowMs)) throw new UsageError(`--at "${args.at}" is not an ISO 8601 time`);

    const dir = resolve(io.cwd, args.history);
    const isDir = await stat(dir).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isDir) throw new UsageError(`no probe history at ${dir}: run flowgauge probe --history ${args.history} first`);
    // Folded as the lines are read: a history of any size in bounded memory, one status per
    // target it holds. A day more than the window, so a probe just before the window start clips into it.
    const { status } = await readSloStatus(dir, { fromMs: nowMs - windowMs - 86_400_000, toMs: nowMs }, { nowMs, windowMs, objective, failuresToOpen });
    const text = args.json === true ? `${JSON.stringify(status, null, 2)}\n` : args.html === true ? renderStatusHtml(status) : renderStatusText(status);
    if (args.out === undefined) io.stdout.write(text);
    else {
      const file = resolve(io.cwd, args.out);
      await makeDirectory(dirname(file), 'give a writable path with --out', 'files');
      await writeFilesAtomically(dirname(file), { [basename(file)]: text });
      io.stdout.write(`wrote ${file} (${status.withinObjective ? 'within objective' : 'objective missed'})\n`);
    }
    ctx.setExit(status.withinObjective ? EXIT.OK : EXIT.FAILED);
  },
});
