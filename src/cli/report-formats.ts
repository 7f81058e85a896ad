/**
 * The files a report is written as (report.json, report.md, report.html), the assets the HTML
 * page inlines, and reading a report back from disk with a structural check against the
 * report@1 JSON Schema, so `report`, `compare` and `merge` name what is wrong with a file.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { REPORT_JSON_SCHEMA, REPORT_SCHEMA, renderMarkdown } from '../report/index.js';
import type { Report } from '../report/index.js';
import { renderHtml } from '../report/html.js';
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
  return {
    'report.json': `${JSON.stringify(report, null, 2)}\n`,
    'report.md': renderMarkdown(report),
    'report.html': renderHtml(report, await loadHtmlAssets()),
  };
}

type Schema = Readonly<Record<string, unknown>>;

const typeOk = (type: unknown, v: unknown): boolean => {
  switch (type) {
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'integer':
      return Number.isInteger(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'null':
      return v === null;
    default:
      return true;
  }
};

const show = (v: unknown): string => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
};

/**
 * Checks `v` against the subset of JSON Schema that `REPORT_JSON_SCHEMA` uses (type,
 * required, properties, additionalProperties, propertyNames.enum, items, anyOf, enum, const,
 * pattern, minimum/maximum and their exclusive forms). Pushes `path: problem` lines.
 */
function check(schema: Schema, v: unknown, path: string, out: string[], limit = 20): void {
  if (out.length >= limit) return;
  const at = path === '' ? '(root)' : path;
  if (Array.isArray(schema.anyOf)) {
    const ok = (schema.anyOf as Schema[]).some((s) => {
      const sub: string[] = [];
      check(s, v, path, sub, 1);
      return sub.length === 0;
    });
    if (!ok) out.push(`${at}: ${show(v)} is not ${(schema.anyOf as Schema[]).map((s) => String(s.type ?? 'valid')).join(' or ')}`);
    return;
  }
  if ('const' in schema && v !== schema.const) return void out.push(`${at}: expected ${show(schema.const)}, got ${show(v)}`);
  if (Array.isArray(schema.enum) && !schema.enum.includes(v)) {
    return void out.push(`${at}: ${show(v)} is not one of ${schema.enum.join(', ')}`);
  }
  if (schema.type !== undefined && !typeOk(schema.type, v)) return void out.push(`${at}: expected ${String(schema.type)}, got ${show(v)}`);
  if (typeof v === 'number') {
    if (typeof schema.minimum === 'number' && v < schema.minimum) out.push(`${at}: ${v} is below ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && v > schema.maximum) out.push(`${at}: ${v} is above ${schema.maximum}`);
    if (typeof schema.exclusiveMinimum === 'number' && v <= schema.exclusiveMinimum) out.push(`${at}: ${v} must exceed ${schema.exclusiveMinimum}`);
    if (typeof schema.exclusiveMaximum === 'number' && v >= schema.exclusiveMaximum) out.push(`${at}: ${v} must be below ${schema.exclusiveMaximum}`);
  }
  if (typeof v === 'string' && typeof schema.pattern === 'string' && !new RegExp(schema.pattern).test(v)) {
    out.push(`${at}: ${show(v)} is not in the expected format`);
  }
  if (Array.isArray(v) && schema.items !== undefined) {
    v.forEach((item, i) => check(schema.items as Schema, item, `${path}[${i}]`, out, limit));
  }
  if (typeOk('object', v)) {
    const o = v as Record<string, unknown>;
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    const names = (schema.propertyNames as Schema | undefined)?.enum;
    for (const [key, value] of Object.entries(o)) {
      const sub = path === '' ? key : `${path}.${key}`;
      if (Array.isArray(names) && !names.includes(key)) out.push(`${sub}: unexpected key (allowed: ${names.join(', ')})`);
      const s = props[key] ?? (typeof schema.additionalProperties === 'object' ? (schema.additionalProperties as Schema) : undefined);
      if (s !== undefined) check(s, value, sub, out, limit);
    }
    const missing = ((schema.required ?? []) as string[]).filter((key) => !(key in o));
    if (missing.length > 0) out.push(`${at}: missing ${missing.join(', ')}`);
  }
}

/** Problems of `value` as a `flowgauge/report@1` document (empty when it is one). */
export function reportProblems(value: unknown): string[] {
  const out: string[] = [];
  const schema = typeOk('object', value) ? (value as { schema?: unknown }).schema : undefined;
  if (typeof schema === 'string' && schema !== REPORT_SCHEMA) {
    return [`schema: "${show(schema)}" is not ${REPORT_SCHEMA} (a report of another version; this flowgauge reads ${REPORT_SCHEMA})`];
  }
  check(REPORT_JSON_SCHEMA, value, '', out);
  return out;
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
