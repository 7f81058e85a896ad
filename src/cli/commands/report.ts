/**
 * `flowgauge report <report.json>`: re-renders a saved report as HTML, Markdown or JSON, to a
 * file or to stdout. A file that is not a report@1 is bad input (exit 2), named with what is
 * wrong with it.
 */
import { basename, dirname, resolve } from 'node:path';
import { renderMarkdown } from '../../report/index.js';
import { renderHtml } from '../../report/html.js';
import { loadHtmlAssets, readReportFile } from '../report-formats.js';
import { makeDirectory } from '../report-files.js';
import { writeFilesAtomically } from '../safe-write.js';
import type { MakeCommand } from './command.js';

/** Output formats of `report`. */
export const REPORT_FORMATS = ['html', 'md', 'json'] as const;

interface ReportArgs {
  file: string;
  format: (typeof REPORT_FORMATS)[number];
  out?: string | undefined;
}

/** The `report` command. */
export const reportCommand: MakeCommand = (ctx) => ({
  command: 'report <file>',
  describe: 're-render a saved report.json as self-contained HTML, Markdown or JSON',
  builder: (y) =>
    y
      .positional('file', { type: 'string', demandOption: true, describe: 'a report.json written by run or merge' })
      .options({
        format: { type: 'string', choices: REPORT_FORMATS, default: 'html', describe: 'output format' },
        out: { type: 'string', alias: 'o', describe: 'write to this file instead of stdout' },
      }),
  handler: async (argv) => {
    const args = argv as unknown as ReportArgs;
    const { io } = ctx;
    const report = await readReportFile(resolve(io.cwd, args.file), args.file);
    const text =
      args.format === 'html'
        ? renderHtml(report, await loadHtmlAssets())
        : args.format === 'md'
          ? renderMarkdown(report)
          : `${JSON.stringify(report, null, 2)}\n`;
    if (args.out === undefined) {
      io.stdout.write(text);
      return;
    }
    const full = resolve(io.cwd, args.out);
    await makeDirectory(dirname(full), 'give a writable path with --out', 'files');
    // Whole or not at all: a full disk leaves neither half a page nor a temp file, and exits 2.
    await writeFilesAtomically(dirname(full), { [basename(full)]: text });
    io.stdout.write(`wrote ${full}\n`);
  },
});
