/**
 * `flowgauge merge <shard.json...> -o merged.json`: merges the reports of a distributed run's
 * shards (exact percentiles from the histograms) and writes the merged report as JSON, with
 * Markdown and HTML next to it. Exits like `run`: 0 when every threshold passed on the whole,
 * 1 when one failed, 2 for a file that is not a report or shards that do not belong together
 * (other runs or scenarios, a shard twice). A shard missing is 1 too, the report written and
 * marked PARTIAL, unless `--allow-partial` (then the thresholds on what is there decide).
 */
import { basename, dirname, extname, resolve } from 'node:path';
import { FlowgaugeError } from '../../core/errors.js';
import { renderSummary } from '../../report/index.js';
import { mergeReports } from '../../report/merge.js';
import { UsageError } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { writeReportFiles } from '../report-files.js';
import { readReportFile, renderReportFiles } from '../report-formats.js';
import type { MakeCommand } from './command.js';

interface MergeArgs {
  shards: string[];
  out: string;
  'allow-partial'?: boolean | undefined;
}

/** Names of the three files for `--out`: `merged.json` → `merged.json`, `merged.md`, `merged.html`. */
export function mergedFileNames(out: string): { dir: string; json: string; md: string; html: string } {
  const base = basename(out, extname(out) === '.json' ? '.json' : '');
  return { dir: dirname(out), json: `${base}.json`, md: `${base}.md`, html: `${base}.html` };
}

/** The `merge` command. */
export const mergeCommand: MakeCommand = (ctx) => ({
  command: 'merge <shards..>',
  describe: 'merge the report.json files of sharded runs into one report (exact percentiles)',
  builder: (y) =>
    y
      .positional('shards', { type: 'string', array: true, demandOption: true, describe: 'report.json of every shard' })
      .options({
        out: { type: 'string', alias: 'o', default: 'merged.json', describe: 'merged report.json (.md and .html are written next to it)' },
        'allow-partial': {
          type: 'boolean',
          describe: 'with a shard missing, exit by the thresholds on the shards that are there instead of 1 (the report still says PARTIAL and which shards)',
        },
      }),
  handler: async (argv) => {
    const args = argv as unknown as MergeArgs;
    const { io } = ctx;
    const seen = new Map<string, string>();
    for (const file of args.shards) {
      const twice = seen.get(resolve(io.cwd, file));
      if (twice !== undefined) throw new UsageError(`${file} is given twice (also as ${twice}): give each report once`);
      seen.set(resolve(io.cwd, file), file);
    }
    const reports = [];
    for (const file of args.shards) reports.push(await readReportFile(resolve(io.cwd, file), file));
    let merged;
    try {
      merged = mergeReports(reports, { names: args.shards });
    } catch (err) {
      if (err instanceof FlowgaugeError) throw new UsageError(err.message);
      throw err;
    }
    // Shards run without --base-url each started their own embedded service.
    const services = new Set(reports.filter((r) => r.target.embedded).map((r) => r.target.baseUrl));
    if (services.size > 1) {
      io.stderr.write(`flowgauge: ${services.size} of these shards ran against their own embedded service: the merged figures describe ${services.size} services, not one (give every shard the same --base-url)\n`);
    }
    const files = await renderReportFiles(merged);
    const names = mergedFileNames(resolve(io.cwd, args.out));
    const written = await writeReportFiles(names.dir, {
      [names.json]: files['report.json'] as string,
      [names.md]: files['report.md'] as string,
      [names.html]: files['report.html'] as string,
    });
    io.stdout.write(renderSummary(merged, { color: io.isTTY }));
    io.stdout.write(`\nmerged ${reports.length} reports: ${written.join(', ')}\n`);
    const missing = merged.shards?.missing ?? [];
    if (missing.length > 0) {
      const count = merged.shards?.count ?? 0;
      const names = missing.map((i) => `missing shard ${i}/${count}`).join(', ');
      const allowed = args['allow-partial'] === true;
      io.stderr.write(
        `flowgauge: ${names}: the merged report holds ${count - missing.length} of ${count} shards and is marked PARTIAL (shards.missing)` +
          `${allowed ? '; --allow-partial: exiting by the thresholds on the shards that are there' : ': exit 1, never a pass (--allow-partial to exit by the thresholds on what is there)'}\n`,
      );
      ctx.setExit(allowed && merged.thresholds.every((t) => t.passed) ? EXIT.OK : EXIT.FAILED);
      return;
    }
    ctx.setExit(merged.passed ? EXIT.OK : EXIT.FAILED);
  },
});
