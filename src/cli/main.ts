/**
 * The flowgauge command line. `main(argv, io)` parses, runs one command and resolves to the
 * exit code, without touching the process, so tests call it in-process; `cli()` is the thin
 * wrapper the bin script runs.
 */
import type { Argv } from 'yargs';
import { FlowgaugeError } from '../core/errors.js';
import { type CommandContext, UsageError } from './context.js';
import { EXIT, exitCodeOf, type ExitCode } from './exit-codes.js';
import { exitNow, holdExitCode } from './exit-guard.js';
import { type CliIo, processIo } from './io.js';
import { releaseOutLocks } from './out-lock.js';
import { osReason } from './safe-write.js';
import { interruptedExit } from './signals.js';
import { safeProcessTitle } from './process-title.js';
import { packageVersion } from './version.js';
import { chosenCommand, commandEntries, commandName } from './commands/index.js';
import { builtinScenarioNames } from './scenario-path.js';
import { humanizeUsageMessage } from './usage-messages.js';
import { asksTopHelp, MAX_HELP_WIDTH, TOP_EPILOGUE, TOP_USAGE, topLevelHelp } from './top-help.js';

/** Runs the CLI on `argv` (without node and script) and resolves to the exit code. */
export async function main(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  let exit: ExitCode = EXIT.OK;
  const ctx: CommandContext = {
    io,
    setExit(code) {
      // An interrupted command exits 128 + the signal that stopped it (130 when none did).
      if (code === EXIT.INTERRUPTED) code = interruptedExit();
      // Bad input and unreachable targets outrank a failed threshold: they say the
      // measurement itself is not to be trusted.
      if (rank(code) > rank(exit)) exit = code;
    },
  };

  // `--version` alone is answered before yargs loads: it is most of what that call would cost.
  if (argv.length === 1 && argv[0] === '--version') {
    io.stdout.write(`${packageVersion()}\n`);
    return exit;
  }
  // So is the top-level help, from the command list: yargs' layout of it cost most of `--help`.
  const topHelp = asksTopHelp(argv) || argv.length === 0 ? topLevelHelp(commandEntries, io.columns) : undefined;
  if (topHelp !== undefined && argv.length > 0) {
    io.stdout.write(topHelp);
    await checkStdout(io, ctx);
    return exit;
  }
  // A bare `flowgauge` is bad input: the list, then what to do.
  if (topHelp !== undefined) {
    io.stderr.write(`${topHelp}\nflowgauge: name a command (see the list above)\nRun 'flowgauge --help' for usage.\n`);
    return EXIT.BAD_INPUT;
  }
  const { default: yargs } = await import('yargs');
  let parser: Argv = yargs([...argv])
    .scriptName('flowgauge')
    .usage(TOP_USAGE)
    .version(packageVersion())
    .alias('h', 'help')
    .strict()
    .demandCommand(1, 'name a command (see the list above)')
    .recommendCommands()
    .wrap(Math.min(MAX_HELP_WIDTH, io.columns))
    .epilogue(TOP_EPILOGUE)
    .exitProcess(false)
    .fail((msg, err, usage) => {
      // yargs' own errors (a flag without its value) are rewritten too; a handler's pass through.
      if (err && err.name !== 'YError') throw err;
      if (err) msg = err.message;
      // The third argument is yargs' usage instance: its descriptions name the failing command's flags.
      const described = (usage as unknown as { getDescriptions?: () => Record<string, string> }).getDescriptions?.() ?? {};
      throw new UsageError(
        humanizeUsageMessage(msg ?? 'invalid arguments', { argv, commands, flags: Object.keys(described), scenarios: builtinScenarioNames() }),
      );
    });
  skipHelpCache(parser);
  const commands = commandEntries.map(commandName);
  // Only the chosen command's module is loaded; the others are listed by name and description
  // (enough for the help, the command list and did-you-mean), never run.
  const chosen = chosenCommand(argv);
  for (const entry of commandEntries) {
    parser = parser.command(entry === chosen ? (await entry.load())(ctx) : { command: entry.command, describe: entry.describe, handler: listedOnly });
  }

  try {
    let help = '';
    await parser.parseAsync([...argv], {}, (_err, _argv, output) => {
      help = output;
    });
    if (help !== '') io.stdout.write(help.endsWith('\n') ? help : `${help}\n`);
  } catch (err) {
    ctx.setExit(reportError(err, io));
  } finally {
    await releaseOutLocks();
  }
  await checkStdout(io, ctx);
  return exit;
}

/**
 * A write to stdout fails a moment after it was made (`> full-disk/x.md`): a command whose
 * output went nowhere has not done its job, whatever else it did.
 */
async function checkStdout(io: CliIo, ctx: CommandContext): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  const lost = io.stdoutFailure?.();
  if (lost !== undefined) {
    io.stderr.write(`flowgauge: could not write to standard output: ${osReason({ code: lost })}; what it printed is incomplete\n`);
    ctx.setExit(EXIT.BAD_INPUT);
  }
}

/**
 * yargs lays out the chosen command's whole help as soon as its handler has started, in case the
 * handler asks for it later; none does, and that layout (string widths of every option) took a
 * tenth of a second of a run's start, before its first request. The same usage instance serves
 * the whole parse (yargs resets it in place).
 */
function skipHelpCache(parser: Argv): void {
  // yargs' internals, not its API: another yargs within the declared range may lack them, and
  // then the layout is merely paid, never a failure.
  const internal = parser as unknown as { getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: () => void } | undefined } };
  const usage = internal.getInternalMethods?.().getUsageInstance?.();
  if (usage !== undefined && typeof usage.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => undefined;
}

/** The handler of a command listed but not loaded: yargs runs a handler only for the command argv names, which is loaded. */
function listedOnly(): never {
  throw new FlowgaugeError('FG_INTERNAL', 'a command was run that was listed but not loaded');
}

/** Which code wins when several apply: the less the measurement can be trusted, the higher. */
function rank(code: ExitCode): number {
  switch (code) {
    case EXIT.INTERNAL:
      return 5;
    case EXIT.BAD_INPUT:
      return 4;
    case EXIT.UNREACHABLE:
    case EXIT.PROTOCOL:
      return 3;
    case EXIT.INTERRUPTED:
    case EXIT.HANGUP:
    case EXIT.TERMINATED:
      return 2;
    case EXIT.FAILED:
      return 1;
    default:
      return 0;
  }
}

function reportError(err: unknown, io: CliIo): ExitCode {
  const exit = err instanceof FlowgaugeError ? exitCodeOf(err) : undefined;
  if (err instanceof FlowgaugeError && exit !== undefined) {
    io.stderr.write(`flowgauge: ${err.message}\n${err instanceof UsageError ? "Run 'flowgauge --help' for usage.\n" : ''}`);
    return exit;
  }
  if (err instanceof Error && err.name === 'YError') {
    io.stderr.write(`flowgauge: ${err.message}\nRun 'flowgauge --help' for usage.\n`);
    return EXIT.BAD_INPUT;
  }
  const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
  io.stderr.write(`flowgauge: internal error (please report it):\n${detail}\n`);
  return EXIT.INTERNAL;
}

/** Entry point of the `flowgauge` binary. */
export async function cli(): Promise<void> {
  process.title = safeProcessTitle(process.argv.slice(2));
  let code: ExitCode;
  try {
    code = await main(process.argv.slice(2), processIo());
  } catch (err) {
    // Only a failure while reporting a failure gets here: still never the code of a failed threshold.
    process.stderr.write(`flowgauge: internal error (please report it): ${err instanceof Error ? err.message : String(err)}\n`);
    code = EXIT.INTERNAL;
  }
  process.exitCode = code;
  // The command is over: a scenario's timer left running may call process.exit, but not choose the code.
  holdExitCode(code);
  // What a scenario module left running (a live timer) must not keep the process alive either.
  // Unreferenced, this fires only when something else holds the loop open.
  setTimeout(() => exitNow(code), 1000).unref();
}
