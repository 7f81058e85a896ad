/**
 * `flowgauge new <name> [--mix|--journey|--steps]`: writes a commented scenario file that runs
 * as written (k6's `new`), so a user starts from working code instead of a blank page.
 */
import { writeFile } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, relative, resolve } from 'node:path';
import { UsageError } from '../context.js';
import { NEW_FORMS, scenarioTemplate, type NewForm } from '../new-templates.js';
import type { MakeCommand } from './command.js';

/** What `defineScenario` accepts as a name (docs/scenarios.md). */
const NAME_RE = /^[a-z0-9][a-z0-9-]*$/;

interface NewArgs {
  name: string;
  mix?: boolean;
  journey?: boolean;
  steps?: boolean;
  force?: boolean;
}

/** The file to write: `<name>.ts` (or `.yaml`), where `name` may carry a directory and the extension. */
function targetOf(cwd: string, given: string, form: NewForm): { path: string; name: string } {
  const ext = NEW_FORMS[form];
  const givenExt = extname(given);
  if (givenExt !== '' && givenExt !== ext) {
    throw new UsageError(`"${given}": a --${form} scenario is a ${ext} file (give the name without an extension, or end it in ${ext})`);
  }
  const name = basename(given, ext);
  if (!NAME_RE.test(name)) {
    throw new UsageError(`"${name}" is not a scenario name: use lower-case letters, digits and dashes, starting with a letter or digit (e.g. my-check)`);
  }
  return { path: resolve(cwd, dirname(given), `${name}${ext}`), name };
}

/** The `new` command. */
export const newCommand: MakeCommand = (ctx) => ({
  command: 'new <name>',
  describe: 'write a commented scenario file that runs as it is (a mix by default)',
  builder: (y) =>
    y
      .positional('name', { type: 'string', demandOption: true, describe: 'scenario name, e.g. my-check (or a path: scenarios/my-check)' })
      .options({
        mix: { type: 'boolean', describe: 'a weighted mix of single requests (.ts; the default)' },
        journey: { type: 'boolean', describe: "a user's session in code: requests, think time, checks (.ts)" },
        steps: { type: 'boolean', describe: 'the same journey as YAML steps, no code (.yaml)' },
        force: { type: 'boolean', default: false, describe: 'overwrite an existing file' },
      })
      .conflicts('mix', ['journey', 'steps'])
      .conflicts('journey', 'steps'),
  handler: async (argv) => {
    const args = argv as unknown as NewArgs;
    const { io } = ctx;
    const form: NewForm = args.journey === true ? 'journey' : args.steps === true ? 'steps' : 'mix';
    const { path, name } = targetOf(io.cwd, args.name, form);
    try {
      // 'wx' refuses an existing file atomically, so a user's scenario is never overwritten by accident.
      await writeFile(path, scenarioTemplate(form, name), { encoding: 'utf8', flag: args.force === true ? 'w' : 'wx' });
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'EEXIST') throw new UsageError(`${path} exists; choose another name or add --force to overwrite it`);
      throw new UsageError(`cannot write ${path}: ${code ?? 'write failed'}`);
    }
    const rel = relative(io.cwd, path);
    const shown = isAbsolute(rel) || rel.startsWith('..') ? path : `./${rel}`;
    io.stdout.write(`wrote ${shown} (a ${form} scenario)\nrun it:  flowgauge run ${shown} --duration 30s\n`);
  },
});
