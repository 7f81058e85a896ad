/**
 * The files a report is written as (report.json, report.md, report.html), the assets the HTML
 * page inlines, and reading a report back from disk with a structural check against the
 * report@1 JSON Schema, so `report`, `compare` and `merge` name what is wrong with a file.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { REPORT_SCHEMA, renderMarkdown } from '../report/index.js';
import { reportProblems } from '../report/read.js';
import type { Report } from '../report/index.js';
import { renderHtml } from '../report/html.js';
import type { HtmlAssets } from '../report/html.js';
import { UsageError } from './context.js';

/** Kept here for callers that check a report next to reading it; the check lives in report/. */
export { reportProblems };

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
  return {
    'report.json': `${JSON.stringify(report, null, 2)}\n`,
    'report.md': renderMarkdown(report),
    'report.html': renderHtml(report, await loadHtmlAssets()),
  };
}

/**
 * Reads and checks a report file. Throws `UsageError` (exit 2) naming the file and what is
 * wrong: missing, not JSON, or not a report@1.
 */
export async function readReportFile(path: string, shownAs = path): Promise<Report> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new UsageError(`${shownAs}: cannot read the file (${code === 'ENOENT' ? 'no such file' : (code ?? 'read failed')})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${shownAs}: not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const problems = reportProblems(value);
  if (problems.length > 0) {
    const shown = problems.slice(0, 8).map((p) => `  - ${p}`);
    if (problems.length > 8) shown.push(`  - … and more`);
    throw new UsageError(`${shownAs}: not a ${REPORT_SCHEMA} report:\n${shown.join('\n')}`);
  }
  return value as Report;
}
