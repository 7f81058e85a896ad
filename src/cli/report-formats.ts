/**
 * The files a report is written as (report.json, report.md, report.html), the assets the HTML
 * page inlines, and reading a report file from disk for `report`, `compare` and `merge`
 * (the checks are `report/read.ts`'s `readReport`, so each names what is wrong with a file).
 * The renderers and the reader are imported when first used: a run loads them after its last
 * request, not before its first.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { ConfigError, FlowgaugeError } from '../core/errors.js';
import { readInputFile } from '../scenario/input-file.js';
import type { Report } from '../report/index.js';
import type { HtmlAssets } from '../report/html.js';
import { UsageError } from './context.js';

let assets: Promise<HtmlAssets> | undefined;

/** Reads the uPlot sources the HTML report inlines (once per process). */
export function loadHtmlAssets(): Promise<HtmlAssets> {
  assets ??= (async () => {
    const require = createRequire(import.meta.url);
    const [uplotJs, uplotCss] = await Promise.all([
      readFile(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
      readFile(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
    ]);
    return { uplotJs, uplotCss };
  })();
  return assets;
}

/** report.json (pretty, newline-terminated), report.md and report.html of `report`. */
export async function renderReportFiles(report: Report): Promise<Record<string, string>> {
  const [{ renderMarkdown }, { renderHtml }] = await Promise.all([import('../report/markdown.js'), import('../report/html.js')]);
  return {
    'report.json': `${JSON.stringify(report, null, 2)}\n`,
    'report.md': renderMarkdown(report),
    'report.html': renderHtml(report, await loadHtmlAssets()),
  };
}

/**
 * Reads and checks a report file with `readReport`, the one reader: a FIFO, device or
 * directory is refused before it is opened, a file beyond `REPORT_LIMITS` before it is read.
 * Throws `UsageError` (exit 2) naming the file and what is wrong.
 */
export async function readReportFile(path: string, shownAs = path): Promise<Report> {
  const { readReport, REPORT_LIMITS } = await import('../report/read.js');
  let text: string;
  try {
    text = await readInputFile(path, { what: 'report', maxBytes: REPORT_LIMITS.maxBytes, shownAs });
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(`${shownAs}: ${err.issues.map((i) => i.message).join('; ')}`);
    if (err instanceof FlowgaugeError && err.code === 'FG_FILE_NOT_FOUND') {
      throw new UsageError(`${shownAs}: cannot read the file (${/directory/.test(err.message) ? 'a directory; give a report.json file' : 'no such file'})`);
    }
    throw err;
  }
  try {
    return readReport(text, shownAs);
  } catch (err) {
    if (err instanceof FlowgaugeError && err.code === 'FG_REPORT_INVALID') throw new UsageError(err.message);
    throw err;
  }
}
