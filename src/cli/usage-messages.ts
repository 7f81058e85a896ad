/**
 * yargs' messages rewritten the way a person reads them: flags named as typed (`--duration`, not
 * `duration`), did-you-mean for a mistyped flag or command, "name a scenario" instead of "Not
 * enough non-option arguments", and k6's `--vus` answered with flowgauge's closed model. Pure.
 */
import { closestName } from '../core/edit-distance.js';

/** What the rewrite needs to know about the command line. */
export interface UsageContext {
  /** The arguments as given (without node and script). */
  readonly argv: readonly string[];
  /** Top-level command names. */
  readonly commands: readonly string[];
  /** Flags the failing command knows (long names, without dashes). */
  readonly flags: readonly string[];
  /** Ready scenario names, for `run` without one. */
  readonly scenarios: readonly string[];
}

/** k6 flags with no flowgauge spelling, and what to do instead. */
const K6_FLAGS: Readonly<Record<string, string>> = {
  vus:
    'flowgauge has no --vus: scenarios send an open model by default (arrivals per second, --rate), so a slow service ' +
    'cannot slow the test down; for k6-style virtual users (a closed model: each worker sends its next request when the ' +
    'last one ends) set load: { executor: constant-concurrency, concurrency: N } in the scenario (see docs/scenarios.md)',
  u: 'flowgauge has no -u/--vus: use --rate for arrivals per second, or executor constant-concurrency with concurrency: N in the scenario',
  iterations: 'flowgauge has no --iterations: give a --duration (-d), or a ready scenario such as smoke',
};

/** The closest of `names` to `typed`, when close enough to be a typo (case ignored). */
export const closest = closestName;

/** How the user typed a flag: `-d` for one letter, `--name` otherwise. */
export function flagAsTyped(name: string): string {
  return name.length === 1 ? `-${name}` : `--${name}`;
}

const firstPositional = (argv: readonly string[]): string | undefined => argv.find((a) => !a.startsWith('-'));

/** The message for one unknown argument. */
function unknownOne(arg: string, ctx: UsageContext): string {
  const k6 = K6_FLAGS[arg];
  if (k6 !== undefined) return k6;
  const typed = ctx.argv.find((a) => a.replace(/^-+/, '').split('=')[0] === arg);
  if (typed === undefined) {
    // Not typed as a flag: a stray word, or a command nobody has.
    const cmd = arg === firstPositional(ctx.argv) && !ctx.commands.includes(arg);
    if (cmd) {
      const near = closest(arg, ctx.commands);
      return `unknown command "${arg}": ${near !== undefined ? `did you mean ${near}? ` : ''}the commands are ${ctx.commands.join(', ')}`;
    }
    return `unexpected argument "${arg}"`;
  }
  const near = closest(arg, ctx.flags);
  return `unknown flag ${flagAsTyped(arg)}${near !== undefined ? `: did you mean ${flagAsTyped(near)}?` : ''}`;
}

const SCENARIO_FILE = /\.(ts|mts|js|mjs|json|ya?ml)$/i;

/**
 * k6's `k6 run script.js` habit typed without the command (`flowgauge smoke.js`): the word in
 * the command's place is a scenario (a file name, a path or a ready scenario), so the command
 * that runs it is the answer. Only the scenario is echoed: the other arguments may hold a token.
 */
function scenarioInCommandPlace(command: string | undefined, ctx: UsageContext): string | undefined {
  if (command === undefined || ctx.commands.includes(command)) return undefined;
  const looksLikeScenario = SCENARIO_FILE.test(command) || /[/\\]/.test(command) || ctx.scenarios.includes(command);
  if (!looksLikeScenario) return undefined;
  const more = ctx.argv.length > 1 ? ', your other flags after it' : '';
  return `"${command}" is not a command: did you mean \`flowgauge run ${command}\`${more}? (a scenario is run by the run command, as in k6 run)`;
}

/** Rewrites a yargs validation message; unknown messages pass through. */
export function humanizeUsageMessage(msg: string, ctx: UsageContext): string {
  const command = firstPositional(ctx.argv);
  const run = /^(Unknown arguments?|Did you mean)/.test(msg) ? scenarioInCommandPlace(command, ctx) : undefined;
  if (run !== undefined) return run;
  let m = /^Unknown arguments?: (.+)$/s.exec(msg);
  if (m !== null) return (m[1] as string).split(', ').map((a) => unknownOne(a.trim(), ctx)).join('; ');
  m = /^Did you mean (.+)\?$/.exec(msg);
  if (m !== null) return `unknown command "${command ?? ''}": did you mean ${m[1]}? (the commands are ${ctx.commands.join(', ')})`;
  m = /^Not enough non-option arguments: got (\d+), need at least (\d+)$/.exec(msg);
  if (m !== null) {
    if (command === 'run') return `name a scenario: a file (.ts/.js/.json/.yaml) or one of ${ctx.scenarios.join(', ')}`;
    if (command === 'compare') return 'name two report.json files: the baseline, then the current run';
    if (command === 'report') return 'name a report.json to render';
    if (command === 'merge') return 'name the report.json files of the shards to merge';
    if (command === 'capacity') return 'name the operation to measure, e.g. flowgauge capacity listFlows';
    if (command === 'new') return 'name the scenario to create, e.g. flowgauge new checkout';
    return `${command ?? 'the command'} needs ${Number(m[2]) - Number(m[1])} more argument(s); see flowgauge ${command ?? ''} --help`;
  }
  m = /^Not enough arguments following: (.+)$/.exec(msg);
  if (m !== null) return `${flagAsTyped(m[1] as string)} needs a value`;
  m = /^Invalid values:\s+Argument: (\S+), Given: (.+), Choices: (.+)$/s.exec(msg);
  if (m !== null) return `${flagAsTyped(m[1] as string)} ${m[2]} is not one of ${m[3]}`;
  m = /^Arguments (\S+) and (\S+) are mutually exclusive$/.exec(msg);
  if (m !== null) return `${flagAsTyped(m[1] as string)} and ${flagAsTyped(m[2] as string)} are mutually exclusive: give one of them`;
  m = /^Missing required argument: (.+)$/.exec(msg);
  if (m !== null) return `missing ${(m[1] as string).split(', ').map(flagAsTyped).join(', ')}`;
  return msg;
}

/**
 * Why `run <scenario>` found nothing: a path that does not exist says so with where it looked;
 * a bare name is a ready scenario nobody shipped, with the nearest one.
 */
export function scenarioNotFound(arg: string, absolutePath: string, scenarios: readonly string[]): string {
  const looksLikePath = /[/\\]/.test(arg) || /\.(ts|mts|js|mjs|json|ya?ml)$/i.test(arg) || arg.startsWith('.');
  if (looksLikePath) return `file ${absolutePath} does not exist; a scenario is a file (.ts/.js/.json/.yaml) or one of ${scenarios.join(', ')}`;
  const near = closest(arg, scenarios);
  return `no file or ready scenario "${arg}"${near !== undefined ? `: did you mean ${near}?` : ''}; a scenario is a file or one of ${scenarios.join(', ')}`;
}
