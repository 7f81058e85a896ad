/**
 * Writing a run's report as an observer: the schedule's report is written as soon as the
 * schedule has drained, before anything that can wait on the target (following, notification
 * grace, the audit); the final report then replaces it. A run whose finishing hangs or is
 * killed still leaves its figures behind.
 */
import type { Report } from '../report/index.js';
import type { RunObserver } from '../run/index.js';
import { renderReportFiles } from './report-formats.js';
import { reportDir, updateLatest, writeReportFiles } from './report-files.js';

/** Where a run's report goes. */
export interface ReportWriter extends RunObserver {
  /** The directory, once the first report was written. */
  readonly dir: string | undefined;
}

/** A report writer for a run named `name` under `cwd` (or in `out`). */
export function createReportWriter(o: { readonly cwd: string; readonly name: string; readonly out: string | undefined }): ReportWriter {
  let dir: string | undefined;
  const write = async (report: Report): Promise<void> => {
    dir ??= reportDir(o.cwd, o.name, Date.parse(report.startedAt), o.out);
    await writeReportFiles(dir, await renderReportFiles(report));
  };
  return {
    name: 'report-writer',
    get dir() {
      return dir;
    },
    scheduleEnded: write,
    async end(report) {
      await write(report);
      if (o.out === undefined && dir !== undefined) await updateLatest(o.cwd, dir);
    },
  };
}
