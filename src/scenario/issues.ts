/**
 * Turns zod issues into `ConfigIssue`s: paths written as `mix[2].weight`, messages that say
 * what is allowed, one issue per unknown field with the nearest allowed one.
 */
import type { z } from 'zod';
import type { ConfigIssue } from '../core/errors.js';
import { show } from './schema.js';
import { formKeyHint, unknownKeyMessage } from './unknown-keys.js';
import { isOpName, type OpName } from '../core/ops.js';
import { k6ArrayHint } from '../slo/k6-thresholds.js';

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Formats a path: `load.stages[0].target`, `thresholds["run.latency.p99"]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && IDENT.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

const ARTICLE: Readonly<Record<string, string>> = {
  object: 'an object',
  array: 'an array',
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  int: 'an integer',
};

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  return typeof v === 'object' ? 'an object' : `${typeof v} ${show(v)}`;
}

/**
 * A per-parse error map for zod: a missing field says "is required", a wrong type says what
 * was expected and what came. Messages set on a schema take precedence over this.
 */
export function zodErrorMap(iss: z.core.$ZodRawIssue): string | undefined {
  if (iss.code === 'invalid_type') {
    if (iss.input === undefined) return 'is required';
    const expected = ARTICLE[String(iss.expected)] ?? String(iss.expected);
    return `must be ${expected}, got ${kindOf(iss.input)}`;
  }
  if (iss.code === 'too_small') {
    if (iss.origin === 'string') return 'must not be empty';
    if (iss.origin === 'array') return `needs at least ${String(iss.minimum)} entries`;
    return `must be ${iss.inclusive ? '>=' : '>'} ${String(iss.minimum)}`;
  }
  if (iss.code === 'too_big') {
    if (iss.origin === 'array') return `takes at most ${String(iss.maximum)} entries`;
    return `must be ${iss.inclusive ? '<=' : '<'} ${String(iss.maximum)}`;
  }
  if (iss.code === 'invalid_value') {
    return `${show(iss.input)} is not allowed; one of ${iss.values.map((v) => show(v)).join(', ')}`;
  }
  if (iss.code === 'invalid_union') return `${show(iss.input)} has the wrong type`;
  return undefined;
}

/** The operations a raw scenario's mix sends; `undefined` when it may send others (a journey, steps). */
function mixOps(raw: unknown): OpName[] | undefined {
  const mix = raw !== null && typeof raw === 'object' ? (raw as { mix?: unknown }).mix : undefined;
  if (!Array.isArray(mix)) return undefined;
  const ops = mix.map((e: unknown) => (e !== null && typeof e === 'object' ? (e as { op?: unknown }).op : undefined)).filter(isOpName);
  return ops.length === 0 ? undefined : [...new Set(ops)];
}

/**
 * Maps zod's issues, splitting an unknown-fields issue into one issue per field. `raw` is the
 * scenario as written, so k6's threshold arrays are answered with its own operations.
 */
export function toConfigIssues(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[] = [], raw?: unknown): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const iss of issues) {
    const input: unknown = (iss as { input?: unknown }).input;
    if (iss.path.length === 2 && iss.path[0] === 'thresholds' && Array.isArray(input)) {
      out.push({ path: formatPath([...prefix, ...iss.path]), message: k6ArrayHint(String(iss.path[1]), input, mixOps(raw)) });
      continue;
    }
    // Keys starting with "~" are the schema's own routing fields, never the user's.
    const path = [...prefix, ...iss.path].filter((k) => typeof k !== 'string' || !k.startsWith('~'));
    if (iss.code === 'unrecognized_keys') {
      for (const key of iss.keys) {
        out.push({ path: formatPath([...path, key]), message: unknownKeyMessage(key, iss.message, path.length === 0) });
      }
    } else {
      out.push({ path: formatPath(path), message: iss.message + (iss.code === 'invalid_union' ? formKeyHint(input, iss.message) : '') });
    }
  }
  return out;
}
