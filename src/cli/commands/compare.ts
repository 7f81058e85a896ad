/**
 * `flowgauge compare <baseline.json> <current.json>`: prints the two runs side by side and
 * exits 1 when a `--max-regression` rule is exceeded (0 otherwise, 2 for a bad rule or file).
 */
import { resolve } from 'node:path';
import { compareReports, parseRegressionRules, renderComparison } from '../../report/compare.js';
import { UsageError } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { readReportFile } from '../report-formats.js';
import type { MakeCommand } from './index.js';

interface CompareArgs {
  baseline: string;
  current: string;
  'max-regression'?: string | undefined;
}

/** The `compare` command. */
export const compareCommand: MakeCommand = (ctx) => ({
  command: 'compare <baseline> <current>',
  describe: 'compare two report.json files; exit 1 on a regression beyond --max-regression',
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
    ctx.setExit(comparison.regressions.length > 0 ? EXIT.FAILED : EXIT.OK);
  },
});
