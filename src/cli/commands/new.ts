/**
 * `flowgauge new <name> [--mix|--journey|--steps]`: writes a commented scenario file that runs
 * as written (k6's `new`), so a user starts from working code instead of a blank page.
 * `flowgauge new --from-k6 script.js [name]` writes the journey a k6 script converts to.
 */
import { link, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, relative, resolve } from 'node:path';
import { UsageError } from '../context.js';
import { outputFailed, tempPathOf } from '../safe-write.js';
import { NEW_FORMS, scenarioTemplate, type NewForm } from '../new-templates.js';
import { convertK6Script, readInputFile, SCENARIO_LIMITS, scenarioNameOf } from '../../scenario/index.js';
import type { MakeCommand } from './command.js';

/** What `defineScenario` accepts as a name (docs/scenarios.md). */
const NAME_RE = /^[a-z0-9][a-z0-9-]*$/;
/** Most "not converted" notes listed on the console; the file has them all. */
const NOTES_SHOWN = 12;

interface NewArgs {
  name?: string;
  mix?: boolean;
  journey?: boolean;
  steps?: boolean;
  force?: boolean;
  'from-k6'?: string;
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

/**
 * Writes `text` to `path` whole or not at all: into a temp file beside it first, then linked in
 * (which refuses an existing file atomically, so a user's scenario is never overwritten by
 * accident) or, with `force`, renamed over it. On a full disk neither a partial new file nor a
 * truncated old one is left behind.
 */
async function writeNew(path: string, text: string, force: boolean): Promise<void> {
  const temp = tempPathOf(path);
  try {
    await writeFile(temp, text, 'utf8');
    if (force) await rename(temp, path);
    else await link(temp, path);
  } catch (err) {
    if ((err as { code?: string }).code === 'EEXIST') throw new UsageError(`${path} exists; choose another name or add --force to overwrite it`);
    throw outputFailed(path, err);
  } finally {
    await rm(temp, { force: true });
  }
}

/** A path as the console shows it: `./x.ts` under the working directory, else absolute. */
function shownPath(cwd: string, path: string): string {
  const rel = relative(cwd, path);
  return isAbsolute(rel) || rel.startsWith('..') ? path : `./${rel}`;
}

/** The `new` command. */
export const newCommand: MakeCommand = (ctx) => ({
  command: 'new [name]',
  describe: 'write a commented scenario file that runs as it is (a mix by default), or convert a k6 script (--from-k6)',
  builder: (y) =>
    y
      .positional('name', { type: 'string', describe: 'scenario name, e.g. my-check (or a path: scenarios/my-check); with --from-k6, the script\'s name by default' })
      .options({
        mix: { type: 'boolean', describe: 'a weighted mix of single requests (.ts; the default)' },
        journey: { type: 'boolean', describe: "a user's session in code: requests, think time, checks (.ts)" },
        steps: { type: 'boolean', describe: 'the same journey as YAML steps, no code (.yaml)' },
        'from-k6': { type: 'string', describe: 'convert this k6 script into a journey (.ts): options, requests, checks, sleeps and groups; the rest is marked "flowgauge: not converted"' },
        force: { type: 'boolean', default: false, describe: 'overwrite an existing file' },
      })
      .conflicts('mix', ['journey', 'steps', 'from-k6'])
      .conflicts('journey', ['steps', 'from-k6'])
      .conflicts('steps', 'from-k6'),
  handler: async (argv) => {
    const args = argv as unknown as NewArgs;
    const { io } = ctx;
    if (args['from-k6'] !== undefined) return fromK6(args['from-k6'], args, io);
    if (args.name === undefined) throw new UsageError('name the scenario: flowgauge new <name> (e.g. my-check), or convert a k6 script: flowgauge new --from-k6 script.js');
    const form: NewForm = args.journey === true ? 'journey' : args.steps === true ? 'steps' : 'mix';
    const { path, name } = targetOf(io.cwd, args.name, form);
    await writeNew(path, scenarioTemplate(form, name), args.force === true);
    const shown = shownPath(io.cwd, path);
    io.stdout.write(`wrote ${shown} (a ${form} scenario)\nrun it:  flowgauge run ${shown} --duration 30s\n`);
  },
});

/** `new --from-k6 script [name]`: the script converted, written as `<name>.ts`, with what was not converted listed. */
async function fromK6(script: string, args: NewArgs, io: Parameters<MakeCommand>[0]['io']): Promise<void> {
  if (script === '') throw new UsageError('--from-k6 needs the k6 script to convert, e.g. --from-k6 script.js');
  const source = resolve(io.cwd, script);
  const { path, name } = targetOf(io.cwd, args.name ?? scenarioNameOf(basename(script, extname(script))), 'journey');
  const text = await readInputFile(source, { what: 'k6 script', maxBytes: SCENARIO_LIMITS.maxBytes, shownAs: script });
  // A module the script imports by path is imported from where the converted file lies.
  const rebase = (spec: string): string => {
    const rel = relative(dirname(path), resolve(dirname(source), spec)).split('\\').join('/');
    return rel.startsWith('.') ? rel : `./${rel}`;
  };
  const converted = convertK6Script(text, { name, script: basename(script), relative: rebase });
  await writeNew(path, converted.text, args.force === true);
  const shown = shownPath(io.cwd, path);
  const n = converted.notConverted.length;
  const plan = converted.scenarios.length > 1 ? `${converted.scenarios.length} scenarios (${converted.scenarios.join(', ')})` : 'a journey';
  const lines = [`wrote ${shown} (${plan} converted from ${script}; ${n === 0 ? 'everything converted' : `${n} thing${n === 1 ? '' : 's'} not converted, each marked "flowgauge: not converted" in the file`})`];
  for (const note of converted.notConverted.slice(0, NOTES_SHOWN)) lines.push(`  - ${note}`);
  if (n > NOTES_SHOWN) lines.push(`  … and ${n - NOTES_SHOWN} more`);
  lines.push(`run it:  flowgauge run ${shown} --duration 30s`);
  io.stdout.write(`${lines.join('\n')}\n`);
}
