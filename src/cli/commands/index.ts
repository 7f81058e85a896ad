/**
 * The command list, without the commands' code: each entry names a command and loads its module
 * only when that command is chosen, so `--version`, `--help` and every command pay only for
 * what they use (the load tester's transports, zod schemas and report renderers stay unloaded
 * for `flowgauge --version`). `command` and `describe` repeat the module's own
 * (test/cli/command-list.test.ts keeps them equal): yargs lists every command, loaded or not.
 */
import { builtinScenarioNames } from '../scenario-path.js';
import type { MakeCommand } from './command.js';

export type { MakeCommand } from './command.js';

/** One command as the top-level help lists it, and how to load it. */
export interface CommandEntry {
  /** yargs' command string: the name and its positionals, e.g. `run <scenario>`. */
  readonly command: string;
  readonly describe: string;
  /** Imports the command's module (and with it everything the command uses). */
  load(): Promise<MakeCommand>;
}

/** The name a command is typed as: the first word of its command string. */
export function commandName(entry: Pick<CommandEntry, 'command'>): string {
  return entry.command.split(' ')[0] as string;
}

/** Every command, in help order. A command is listed here only once it works. */
export const commandEntries: readonly CommandEntry[] = [
  {
    command: 'run <scenario>',
    describe: 'run a scenario (a file, or a ready one: ' + builtinScenarioNames().join(', ') + ')',
    load: async () => (await import('./run.js')).runCommand,
  },
  {
    command: 'new [name]',
    describe: 'write a commented scenario file that runs as it is (a mix by default), or convert a k6 script (--from-k6)',
    load: async () => (await import('./new.js')).newCommand,
  },
  {
    command: 'probe',
    describe: 'run scheduled uptime checks, keep a durable history, export probe metrics',
    load: async () => (await import('./probe.js')).probeCommand,
  },
  {
    command: 'report <file>',
    describe: 're-render a saved report.json as self-contained HTML, Markdown or JSON',
    load: async () => (await import('./report.js')).reportCommand,
  },
  {
    command: 'compare <baseline> <current>',
    describe: 'compare two report.json files; exit 1 on a regression beyond --max-regression that the samples support',
    load: async () => (await import('./compare.js')).compareCommand,
  },
  {
    command: 'merge <shards..>',
    describe: 'merge the report.json files of sharded runs into one report (exact percentiles)',
    load: async () => (await import('./merge.js')).mergeCommand,
  },
  {
    command: 'slo',
    describe: 'SLOs: Prometheus rules (slo rules) and Grafana dashboards (slo dashboards), and the uptime, error budget and incidents of a probe history (slo status)',
    load: async () => (await import('./slo.js')).sloCommand,
  },
  {
    command: 'conformance',
    describe: 'observe what the interface leaves unsaid and check what it states (a few dozen requests, no load)',
    load: async () => (await import('./conformance.js')).conformanceCommand,
  },
  {
    command: 'capacity <op>',
    describe: 'find the highest throughput of one operation that meets a latency objective (p99; TTFT or TPOT p95 for streams) and an error objective',
    load: async () => (await import('./capacity.js')).capacityCommand,
  },
  {
    command: 'serve',
    describe: 'run the embedded reference service (see docs/reference-service.md)',
    load: async () => (await import('./serve.js')).serveCommand,
  },
  {
    command: 'schema <kind>',
    describe: 'print the JSON Schema of the scenario format (for editors) or of report.json',
    load: async () => (await import('./schema.js')).schemaCommand,
  },
];

/**
 * The command `argv` names: the first word that is a command's name, or undefined (`--help`,
 * `--version`, nothing, a typo). Options before the command name are skipped the same way
 * yargs skips them.
 */
export function chosenCommand(argv: readonly string[]): CommandEntry | undefined {
  for (const word of argv) {
    if (word === '--') return undefined;
    if (word.startsWith('-')) continue;
    const entry = commandEntries.find((e) => commandName(e) === word);
    if (entry !== undefined) return entry;
  }
  return undefined;
}
