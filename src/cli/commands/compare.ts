/**
 * `flowgauge compare <baseline.json> <current.json>`: prints the two runs side by side and
 * exits 1 when a `--max-regression` rule is exceeded by a change the samples can support (0
 * otherwise; a change they cannot is printed `inconclusive`), 2 for a bad rule or file, and for
 * runs that are not comparable (different scenarios, executors or target rates).
 */
import { resolve } from 'node:path';
import { compareReports, parseRegressionRules, renderComparison } from '../../report/compare.js';
import { UsageError } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { readReportFile } from '../report-formats.js';
import type { MakeCommand } from './command.js';

interface CompareArgs {
  baseline: string;
  current: string;
  'max-regression'?: string | undefined;
}

const comparable = (c: { readonly comparable: boolean }): boolean => c.comparable;

/** The `compare` command. */
export const compareCommand: MakeCommand = (ctx) => ({
  command: 'compare <baseline> <current>',
  describe: 'compare two report.json files; exit 1 on a regression beyond --max-regression that the samples support',
  builder: (y) =>
    y
      .positional('baseline', { type: 'string', demandOption: true, describe: 'report.json of the reference run' })
      .positional('current', { type: 'string', demandOption: true, describe: 'report.json of the run to judge' })
      .options({
        'max-regression': {
          type: 'string',
          describe: 'allowed changes, e.g. "run.latency.p99=10%,availability=0.05pp,stream.ttft.p95=50ms"',
        },
      }),
  handler: async (argv) => {
    const args = argv as unknown as CompareArgs;
    const { io } = ctx;
    // Rules first: a typo in them is bad input whatever the files hold.
    const parsed = parseRegressionRules(args['max-regression'] ?? '');
    if (!parsed.ok) throw new UsageError(`--max-regression ${parsed.error}`);
    const baseline = await readReportFile(resolve(io.cwd, args.baseline), args.baseline);
    const current = await readReportFile(resolve(io.cwd, args.current), args.current);
    const comparison = compareReports(baseline, current, parsed.rules);
    io.stdout.write(renderComparison(comparison));
    // Two runs that measured different things cannot pass or fail a gate: the files are the mistake.
    if (!comparable(comparison)) {
      io.stderr.write(`flowgauge: ${args.baseline} and ${args.current} are not comparable: ${comparison.notes.join('; ')}\n`);
      ctx.setExit(EXIT.BAD_INPUT);
      return;
    }
    ctx.setExit(comparison.regressions.length > 0 ? EXIT.FAILED : EXIT.OK);
  },
});
