/**
 * `flowgauge schema scenario|report`: prints the JSON Schema of a format, for editors
 * (`"$schema"` in a scenario file, or yaml-language-server) and for other tools.
 */
import { REPORT_JSON_SCHEMA } from '../../report/index.js';
import { scenarioJsonSchema } from '../../scenario/index.js';
import type { MakeCommand } from './command.js';

const KINDS = ['scenario', 'report'] as const;

/** The `schema` command. */
export const schemaCommand: MakeCommand = (ctx) => ({
  command: 'schema <kind>',
  describe: 'print the JSON Schema of the scenario format (for editors) or of report.json',
  builder: (y) =>
    y.positional('kind', { type: 'string', choices: KINDS, demandOption: true, describe: 'scenario or report' }).example('$0 schema scenario > scenario.schema.json', 'save it for your editor'),
  handler: (argv) => {
    const kind = (argv as unknown as { kind: (typeof KINDS)[number] }).kind;
    ctx.io.stdout.write(`${JSON.stringify(kind === 'scenario' ? scenarioJsonSchema() : REPORT_JSON_SCHEMA, null, 2)}\n`);
  },
});
