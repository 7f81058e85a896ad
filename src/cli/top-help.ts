/**
 * The top-level help (`flowgauge --help`, and the list a bare `flowgauge` prints), written from
 * the command list without yargs: loading yargs and measuring its text (string-width, wrap-ansi,
 * cliui) was most of what `--help` cost. The same texts feed yargs for every other call, so the
 * two cannot drift apart. Every text here is plain ASCII: its length is its width.
 */
import type { CommandEntry } from './commands/index.js';

/** The usage line and what flowgauge is (yargs' `usage`, `$0` being the script name). */
export const TOP_USAGE = '$0 <command> [options]\n\nLoad testing and SLO monitoring for Workflow Execution Services.';

/** Exit codes and the default target, under the top-level help (yargs' `epilogue`). */
export const TOP_EPILOGUE =
  'Exit codes: 0 all thresholds passed, 1 a threshold failed, 2 bad input, 3 target unreachable,\n' +
  '76 the target answered in another protocol or shape (not the interface; check --base-url),\n' +
  '70 internal error (a flowgauge bug; please report it), 129/130/143 stopped by SIGHUP/SIGINT/SIGTERM (128 + the signal;\n' +
  'what was measured is still written, marked interrupted). An output that cannot be written (a full disk) is 2, naming the path.\n' +
  'With no --base-url, commands run against the embedded reference service.';

/** The widest the help is laid out, whatever the terminal's width. */
export const MAX_HELP_WIDTH = 110;

/** Whether `argv` asks for the top-level help and nothing else. */
export function asksTopHelp(argv: readonly string[]): boolean {
  return argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h');
}

/**
 * The top-level help text, laid out as yargs lays it out (commands, options, epilogue), ending in
 * a newline; undefined on a terminal too narrow for the command column to take its full width
 * (more than half the line), where yargs squeezes that column too and is left to do so.
 */
export function topLevelHelp(entries: readonly Pick<CommandEntry, 'command' | 'describe'>[], columns: number): string | undefined {
  const width = Math.max(40, Math.min(MAX_HELP_WIDTH, columns));
  const lines: string[] = [...TOP_USAGE.replaceAll('$0', 'flowgauge').split('\n'), '', 'Commands:'];
  const names = entries.map((e) => `flowgauge ${e.command}`);
  const left = 2 + Math.max(...names.map((n) => n.length)) + 2;
  if (2 * left > width) return undefined;
  entries.forEach((entry, i) => {
    const text = wrap(entry.describe, width - left);
    text.forEach((line, j) => lines.push(`${(j === 0 ? `  ${names[i]}` : '').padEnd(left)}${line}`.trimEnd()));
  });
  lines.push('', 'Options:');
  for (const [flag, describe] of [['    --version', 'Show version number'], ['-h, --help', 'Show help']] as const) {
    const start = `  ${flag.padEnd(13)}  ${describe}`;
    lines.push(`${start}${'[boolean]'.padStart(Math.max(1, width - start.length))}`);
  }
  lines.push('');
  for (const line of TOP_EPILOGUE.split('\n')) lines.push(...wrap(line, width));
  return `${lines.join('\n')}\n`;
}

/** Greedy word wrap at `width` columns (a word longer than that stands on its own line). */
function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  out.push(line);
  return out;
}
