/**
 * Writing a run's report as an output: the schedule's report is written as soon as the
 * schedule has drained, before anything that can wait on the target (following, notification
 * grace, the audit); the final report then replaces it. A run whose finishing hangs or is
 * killed still leaves its figures behind.
 *
 * A write that fails (a full disk, a read-only file system) is the writer's own to record, as
 * an observer's failures are: the run goes on to its end, and the CLI says why the report is
 * missing (`failure`) and exits 2. A later write that succeeds (space freed) clears it.
 */
import type { Report } from '../report/index.js';
import type { RunOutput } from '../run/index.js';
import { FlowgaugeError } from '../core/errors.js';
import { renderReportFiles } from './report-formats.js';
import { chooseReportDir, updateLatest, writeReportFiles } from './report-files.js';

/** Where a run's report goes. */
export interface ReportWriter extends RunOutput {
  /** The directory, once the first report was written. */
  readonly dir: string | undefined;
  /** The last report.html written (the live dashboard serves it at the end). */
  readonly html: string | undefined;
  /** `reports/latest`, once it points at `dir`. */
  readonly latest: string | undefined;
  /** Why the latest write failed (its message names the path and the reason), or undefined. */
  readonly failure: Error | undefined;
}

/** A report writer for a run named `name` under `cwd` (or in `out`). */
export function createReportWriter(o: { readonly cwd: string; readonly name: string; readonly out: string | undefined }): ReportWriter {
  let dir: string | undefined;
  let html: string | undefined;
  let latest: string | undefined;
  let written = false;
  let failure: Error | undefined;
  const write = async (report: Report): Promise<void> => {
    const files = await renderReportFiles(report);
    html = files['report.html'];
    try {
      dir ??= await chooseReportDir(o.cwd, o.name, Date.parse(report.startedAt), o.out);
      await writeReportFiles(dir, files);
      written = true;
      failure = undefined;
    } catch (err) {
      // Only the writes' own failures (named by their path; a UsageError is one too) are the disk's; anything else is a bug.
      if (!(err instanceof FlowgaugeError)) throw err;
      failure = err;
    }
  };
  return {
    name: 'report-writer',
    get dir() {
      return written ? dir : undefined;
    },
    get failure() {
      return failure;
    },
    get html() {
      return html;
    },
    get latest() {
      return latest;
    },
    scheduleEnded: write,
    async end(report) {
      await write(report);
      if (o.out === undefined && dir !== undefined && failure === undefined) latest = await updateLatest(o.cwd, dir);
    },
  };
}
