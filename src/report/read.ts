/**
 * Reading a report back: `reportProblems` checks any value against the report@1 zod schema and
 * names every problem by path, and `readReport` turns report.json text (or its parsed value)
 * into a `Report` or throws saying what is wrong. It is the one reader of every command
 * (`report`, `merge`, `compare`): a report is input from anywhere, so its size, nesting, keys
 * and strings are checked against `REPORT_LIMITS` before zod sees it. Pure: the caller reads
 * the file (checking its kind and `REPORT_LIMITS.maxBytes` first).
 */
import type { z } from 'zod';
import { FlowgaugeError } from '../core/errors.js';
import { jsonTextDepth, sizeProblem, valueProblem, type InputLimits } from '../core/input-limits.js';
import { REPORT_SCHEMA, type Report } from './model.js';
import { reportSchema } from './report-schema.js';
import { isRecord } from '../core/is-record.js';

type Issue = z.core.$ZodIssue;
type Path = readonly PropertyKey[];
/** A problem line, or a required key that is absent (collected per object into one line). */
type Found = string | { readonly missing: string; readonly at: string };

/** Most documents that fail have a handful of problems; a wrong file has hundreds of no interest. */
const LIMIT = 20;

/** zod's names for JSON's types, as a reader of the file knows them. */
const TYPE_NAMES: Readonly<Record<string, string>> = { int: 'integer', record: 'object' };

const show = (v: unknown): string => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
};

const pathText = (path: Path): string =>
  path.reduce<string>((s, k) => (typeof k === 'number' ? `${s}[${k}]` : s === '' ? String(k) : `${s}.${String(k)}`), '');
const where = (path: Path): string => (path.length === 0 ? '(root)' : pathText(path));

function valueAt(root: unknown, path: Path): unknown {
  let v = root;
  for (const k of path) v = isRecord(v) || Array.isArray(v) ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

/** True when a union branch's `issues` only say the value is not of its kind. */
const wrongKind = (issues: readonly Issue[]): boolean => issues.every((i) => i.code === 'invalid_type' && i.path.length === 0);

/** The kind a union branch wanted, for "is not number or null". */
const kindOf = (branch: readonly Issue[]): string => {
  const first = branch[0];
  return first?.code === 'invalid_type' ? (TYPE_NAMES[first.expected] ?? first.expected) : 'valid';
};

/** Turns zod's issues, found at `base` in `root`, into problems worded from the file's side. */
function describeIssues(issues: readonly Issue[], root: unknown, base: Path, out: Found[]): void {
  for (const issue of issues) {
    const path = [...base, ...issue.path];
    const at = where(path);
    const v = valueAt(root, path);
    // zod words an absent field as a wrong value (undefined); the reader wants "missing".
    const parent = valueAt(root, path.slice(0, -1));
    const key = path[path.length - 1];
    if (key !== undefined && isRecord(parent) && !(key in parent)) {
      out.push({ missing: String(key), at: where(path.slice(0, -1)) });
      continue;
    }
    switch (issue.code) {
      case 'invalid_type':
        out.push(`${at}: expected ${TYPE_NAMES[issue.expected] ?? issue.expected}, got ${show(v)}`);
        break;
      case 'too_small':
        out.push(issue.inclusive === true ? `${at}: ${show(v)} is below ${issue.minimum}` : `${at}: ${show(v)} must exceed ${issue.minimum}`);
        break;
      case 'too_big':
        out.push(issue.inclusive === true ? `${at}: ${show(v)} is above ${issue.maximum}` : `${at}: ${show(v)} must be below ${issue.maximum}`);
        break;
      case 'invalid_format':
        out.push(`${at}: ${show(v)} is not in the expected format`);
        break;
      case 'invalid_value':
        out.push(issue.values.length === 1 ? `${at}: expected ${show(issue.values[0])}, got ${show(v)}` : `${at}: ${show(v)} is not one of ${issue.values.join(', ')}`);
        break;
      case 'unrecognized_keys':
        for (const key of issue.keys) out.push(`${pathText([...path, key])}: ${issue.message}`);
        break;
      case 'invalid_union': {
        // A value of one branch's kind that fails inside it (an object missing a field) is
        // reported from inside; only a value of no branch's kind is "not A or B".
        const ofKind = issue.errors.filter((branch) => !wrongKind(branch));
        const only = ofKind.length === 1 ? ofKind[0] : undefined;
        if (only !== undefined) describeIssues(only, root, path, out);
        else out.push(`${at}: ${show(v)} is not ${issue.errors.map(kindOf).join(' or ')}`);
        break;
      }
      default:
        out.push(`${at}: ${issue.message}`);
    }
  }
}

/** One line per problem, an object's absent keys on one line where the first was found. */
function lines(found: readonly Found[]): string[] {
  const missing = new Map<string, string[]>();
  const out: (string | string[])[] = [];
  for (const f of found) {
    if (typeof f === 'string') out.push(f);
    else {
      const keys = missing.get(f.at);
      if (keys !== undefined) keys.push(f.missing);
      else {
        const fresh = [f.at, f.missing];
        missing.set(f.at, fresh);
        out.push(fresh);
      }
    }
  }
  return out.map((l) => (typeof l === 'string' ? l : `${l[0]}: missing ${l.slice(1).join(', ')}`));
}

/** Problems of `value` as a `flowgauge/report@1` document (empty when it is one). */
export function reportProblems(value: unknown): string[] {
  const schema = isRecord(value) ? value.schema : undefined;
  if (typeof schema === 'string' && schema !== REPORT_SCHEMA) {
    return [`schema: "${show(schema)}" is not ${REPORT_SCHEMA} (a report of another version; this flowgauge reads ${REPORT_SCHEMA})`];
  }
  const result = reportSchema.safeParse(value);
  if (result.success) return [];
  const found: Found[] = [];
  describeIssues(result.error.issues, value, [], found);
  return lines(found).slice(0, LIMIT);
}

/**
 * Limits of a report file. A report of a day-long run of many operations is a few MiB, nested
 * under ten levels, its longest strings encoded histograms of tens of KiB; the limits leave
 * wide room for that and none for a file that would exhaust the stack, or print 600 MB.
 */
export const REPORT_LIMITS: InputLimits = { maxBytes: 256 * 1024 * 1024, maxDepth: 64, maxStringChars: 1024 * 1024, maxKeyChars: 1024 };

const invalid = (source: string, what: string): FlowgaugeError => new FlowgaugeError('FG_REPORT_INVALID', `${source}: ${what}`);

/**
 * A `flowgauge/report@1` report from report.json's text (or the value parsed from it). Throws a
 * `FlowgaugeError` with code `FG_REPORT_INVALID` naming `source` and what is wrong: beyond
 * `REPORT_LIMITS`, not JSON, or not a report@1 (up to eight problems).
 *
 * @example readReport(await readFile('reports/latest/report.json', 'utf8'), 'report.json')
 */
export function readReport(input: unknown, source = 'report'): Report {
  let value: unknown = input;
  if (typeof input === 'string') {
    // Characters never outnumber bytes: a text within the limit in characters may still be read.
    const tooBig = sizeProblem('the report', input.length, REPORT_LIMITS.maxBytes);
    if (tooBig !== undefined) throw invalid(source, tooBig);
    if (jsonTextDepth(input, REPORT_LIMITS.maxDepth) > REPORT_LIMITS.maxDepth) {
      throw invalid(source, `nested deeper than ${REPORT_LIMITS.maxDepth} levels of arrays and objects; the limit is ${REPORT_LIMITS.maxDepth} (a report is nested under ten)`);
    }
    try {
      value = JSON.parse(input);
    } catch (err) {
      throw invalid(source, `not JSON (${err instanceof Error ? err.message : String(err)})`);
    }
  }
  const problem = valueProblem(value, REPORT_LIMITS);
  if (problem !== undefined) throw invalid(source, `not a ${REPORT_SCHEMA} report: ${where(problem.path)} ${problem.message}`);
  const problems = reportProblems(value);
  if (problems.length > 0) {
    const shown = problems.slice(0, 8).map((p) => `  - ${p}`);
    if (problems.length > 8) shown.push('  - … and more');
    throw invalid(source, `not a ${REPORT_SCHEMA} report:\n${shown.join('\n')}`);
  }
  // The document itself, not zod's copy: readers keep the fields this version does not know.
  return value as Report;
}
