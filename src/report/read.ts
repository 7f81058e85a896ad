/**
 * Reading a report back: a structural check of any value against the report@1 JSON Schema that
 * names every problem by path, and `readReport`, which turns report.json text (or its parsed
 * value) into a `Report` or throws saying what is wrong. Pure: the caller reads the file.
 */
import { FlowgaugeError } from '../core/errors.js';
import { REPORT_SCHEMA, type Report } from './model.js';
import { REPORT_JSON_SCHEMA } from './report-json-schema.js';

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
 * A `flowgauge/report@1` report from report.json's text (or the value parsed from it). Throws a
 * `FlowgaugeError` with code `FG_REPORT_INVALID` naming `source` and up to eight problems when
 * it is not JSON or not a report@1.
 *
 * @example readReport(await readFile('reports/latest/report.json', 'utf8'), 'report.json')
 */
export function readReport(input: unknown, source = 'report'): Report {
  let value: unknown = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (err) {
      throw new FlowgaugeError('FG_REPORT_INVALID', `${source}: not JSON (${err instanceof Error ? err.message : String(err)})`);
    }
  }
  const problems = reportProblems(value);
  if (problems.length > 0) {
    const shown = problems.slice(0, 8).map((p) => `  - ${p}`);
    if (problems.length > 8) shown.push('  - … and more');
    throw new FlowgaugeError('FG_REPORT_INVALID', `${source}: not a ${REPORT_SCHEMA} report:\n${shown.join('\n')}`);
  }
  return value as Report;
}
