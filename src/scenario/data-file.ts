/**
 * Reading a scenario's data file once, before the run: `.jsonl`/`.ndjson` and `.csv` line by
 * line (streamed), `.json` as one array. Every row must be an object (CSV rows are keyed by
 * the header). A bad row is a `ConfigError` naming the file and its line.
 */
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { createInterface } from 'node:readline';
import { ConfigError } from '../core/errors.js';
import { checkInputFile } from './input-file.js';
import { DATA_EXTENSIONS, type ResolvedData } from './data-schema.js';
import { rowSourceOf, type RowSource } from './data-source.js';
import type { DataRow } from './journey.js';
import { loadTokenCounter } from './tokenizer.js';
import { isRecord } from '../core/is-record.js';
import { jsonTooDeepAt } from '../core/input-limits.js';

/** Most rows kept, and largest file read: data is held in memory for the whole run. */
export const MAX_DATA_ROWS = 1_000_000;
export const MAX_DATA_BYTES = 512 * 1024 * 1024;
/**
 * Deepest nesting of a row (the row object is level 1). Rows feed templates and request bodies:
 * 64 levels hold any real one, and every walk of a row (freezing it, filling a template, sending
 * it as JSON) stays far from the stack's end. Checked on the text, before it is parsed.
 */
const MAX_ROW_DEPTH = 64;

/** Freezes a row at every level; recursive, so only rows within MAX_ROW_DEPTH reach it. */
const freeze = <T>(v: T): T => {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    for (const x of Object.values(v)) freeze(x);
    Object.freeze(v);
  }
  return v;
};

const tooDeep = (max: number): string =>
  `a row is nested deeper than ${max} levels of arrays and objects; the limit is ${max}`;

/** The line (1-based) of offset `at` in `text`. */
function lineAt(text: string, at: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

const isRow = (v: unknown): v is DataRow => isRecord(v);

function bad(file: string, where: string, message: string): ConfigError {
  return new ConfigError([{ path: `${file}${where}`, message }], 'data file');
}

async function readJsonLines(file: string): Promise<DataRow[]> {
  const rows: DataRow[] = [];
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === '') continue;
    if (jsonTooDeepAt(line, MAX_ROW_DEPTH) >= 0) {
      lines.close();
      throw bad(file, `:${n}`, tooDeep(MAX_ROW_DEPTH));
    }
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch (err) {
      lines.close();
      throw bad(file, `:${n}`, `invalid JSON: ${(err as Error).message}`);
    }
    if (!isRow(v)) {
      lines.close();
      throw bad(file, `:${n}`, 'each line must be a JSON object such as {"prompt": "…"}');
    }
    if (rows.length >= MAX_DATA_ROWS) {
      lines.close();
      throw bad(file, `:${n}`, `more than ${MAX_DATA_ROWS} rows; split the file or sample it`);
    }
    rows.push(freeze(v));
  }
  return rows;
}

async function readJsonArray(file: string): Promise<DataRow[]> {
  let v: unknown;
  const text = await readFile(file, 'utf8');
  // The array is one level more than its rows.
  const deep = jsonTooDeepAt(text, MAX_ROW_DEPTH + 1);
  if (deep >= 0) throw bad(file, `:${lineAt(text, deep)}`, tooDeep(MAX_ROW_DEPTH));
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw bad(file, '', `invalid JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(v)) throw bad(file, '', 'must be a JSON array of objects');
  if (v.length > MAX_DATA_ROWS) throw bad(file, '', `more than ${MAX_DATA_ROWS} rows; split the file or sample it`);
  const i = v.findIndex((x) => !isRow(x));
  if (i >= 0) throw bad(file, `[${i}]`, 'must be a JSON object such as {"prompt": "…"}');
  return v.map((x: DataRow) => freeze(x));
}

async function readCsv(file: string): Promise<DataRow[]> {
  const rows: DataRow[] = [];
  // The CSV parser is loaded for a CSV data file only.
  const { parse: parseCsv } = await import('csv-parse');
  const parser = createReadStream(file).pipe(parseCsv({ columns: true, bom: true, skip_empty_lines: true, relax_quotes: false }));
  try {
    for await (const record of parser as AsyncIterable<Record<string, string>>) {
      if (rows.length >= MAX_DATA_ROWS) throw bad(file, `:${parser.info.lines}`, `more than ${MAX_DATA_ROWS} rows; split the file or sample it`);
      rows.push(Object.freeze(record));
    }
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    const e = err as Error & { lines?: number };
    throw bad(file, e.lines !== undefined ? `:${e.lines}` : '', `invalid CSV: ${e.message}`);
  }
  return rows;
}

/** Reads a data file's rows. Throws `FG_FILE_NOT_FOUND` or `ConfigError` (by file and line). */
export async function readDataFile(file: string): Promise<DataRow[]> {
  // Before any reader opens it: a FIFO would block the stream until a writer came.
  await checkInputFile(file, { what: 'data file', maxBytes: MAX_DATA_BYTES });
  const ext = extname(file).toLowerCase();
  let rows: DataRow[];
  if (ext === '.jsonl' || ext === '.ndjson') rows = await readJsonLines(file);
  else if (ext === '.json') rows = await readJsonArray(file);
  else if (ext === '.csv') rows = await readCsv(file);
  else throw bad(file, '', `unsupported data file type "${ext}"; use one of ${DATA_EXTENSIONS.join(', ')}`);
  if (rows.length === 0) throw bad(file, '', 'has no rows');
  return rows;
}

/**
 * The row source of a scenario's data: reads the file (once) or makes synthetic prompts (loading
 * the tokenizer that measures them; `ConfigError` when its package is missing).
 */
export async function loadRowSource(data: ResolvedData, seed: number): Promise<RowSource> {
  if (data.kind === 'synthetic-tokens') return rowSourceOf(data, undefined, seed, await loadTokenCounter(data.tokenizer));
  return rowSourceOf(data, data.kind === 'file' ? await readDataFile(data.path) : undefined, seed);
}
