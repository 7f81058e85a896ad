/**
 * Turns schema mismatches into `ContractViolation`s: data for the conformance report, never
 * exceptions. A body that passes costs one compiled check (`fast-validate.ts`) and no allocation here.
 */
import type { z } from 'zod';
import type { OpName } from '../core/ops.js';
import type { ContractViolation } from '../core/types.js';
import { fastCheckOf } from './fast-validate.js';

/** Replaces the token in text that came from the server (see `redact.ts`). */
export type Redact = (text: string) => string;

/**
 * How much of each 2xx body a call checks: `full` parses and checks every body against its
 * schema (the default); `sample` parses and checks one body in `VALIDATE_SAMPLE_EVERY` (the
 * rest, like every body under `off`, are judged on status and HTTP framing only, and parsed
 * only if something reads their value). Error bodies are read in every mode (their code is
 * the error); under `off` they are not checked against the error schema either.
 */
export type ValidateMode = 'full' | 'sample' | 'off';

/** Under `sample`, one 2xx body in this many is checked: the client's 1st, 17th, 33rd, … not repeating the last one judged. */
export const VALIDATE_SAMPLE_EVERY = 16;

/** Picks the bodies `sample` checks: deterministic, one in `VALIDATE_SAMPLE_EVERY`, counted per client. */
export class BodySampler {
  private n = 0;

  /** True when this body is one to check. */
  next(): boolean {
    return this.n++ % VALIDATE_SAMPLE_EVERY === 0;
  }
}

/** Shared empty list, so a clean body allocates nothing. */
export const NO_VIOLATIONS: readonly ContractViolation[] = Object.freeze([]);

/** At most this many violations are kept per body, so a garbage page stays cheap. */
export const MAX_VIOLATIONS_PER_BODY = 50;

const LITERAL_MAX = 64;
const EXPECTED_PREFIX = 'expected:';

/** Names the JSON type of a value: `missing`, `null`, `array`, `string`, `number`, `boolean`, `object`. */
export function describeType(v: unknown): string {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** Formats a path as `flows[3].endpoint`, after an optional prefix (`end.`). */
export function formatPath(path: readonly PropertyKey[], prefix = ''): string {
  let out = prefix;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' || out.endsWith('.') ? String(key) : `.${String(key)}`;
  }
  if (out.endsWith('.')) out = out.slice(0, -1);
  return out === '' ? '(root)' : out;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur = root;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

function literal(v: unknown, redact: Redact): string {
  if (v === undefined) return 'missing';
  const s = JSON.stringify(v) ?? String(v);
  return redact(s.length > LITERAL_MAX ? `${s.slice(0, LITERAL_MAX)}…` : s);
}

function toViolation(op: OpName, issue: z.core.$ZodIssue, root: unknown, redact: Redact, prefix: string): ContractViolation {
  const path = formatPath(issue.path, prefix);
  const value = valueAt(root, issue.path);
  const custom = issue.message.startsWith(EXPECTED_PREFIX) ? issue.message.slice(EXPECTED_PREFIX.length) : undefined;
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.expected === 'int') {
        const got = typeof value === 'number' ? literal(value, redact) : describeType(value);
        return { op, path, expected: 'integer', got };
      }
      const expected = custom ?? (issue.expected === 'nonoptional' ? 'present' : issue.expected);
      return { op, path, expected, got: describeType(value) };
    }
    case 'invalid_value':
      return { op, path, expected: `one of ${issue.values.map(String).join('|')}`, got: literal(value, redact) };
    case 'invalid_format':
      return { op, path, expected: custom ?? issue.format, got: value === undefined ? 'missing' : literal(value, redact) };
    default:
      return { op, path, expected: custom ?? issue.code, got: value === undefined ? 'missing' : describeType(value) };
  }
}

/**
 * Checks `value` against `schema` and returns what breaks the contract, paths prefixed by
 * `prefix` (e.g. `end.`). Appends to `out` when given, returning it.
 */
export function violationsOf(
  op: OpName,
  schema: z.ZodType,
  value: unknown,
  redact: Redact,
  prefix = '',
  out?: ContractViolation[],
): readonly ContractViolation[] {
  // The compiled check gives zod's verdict on a parsed body; zod runs only to say what breaks.
  if (fastCheckOf(schema)?.(value) === true) return out ?? NO_VIOLATIONS;
  const parsed = schema.safeParse(value);
  if (parsed.success) return out ?? NO_VIOLATIONS;
  const list = out ?? [];
  for (const issue of parsed.error.issues) {
    if (list.length >= MAX_VIOLATIONS_PER_BODY) break;
    list.push(toViolation(op, issue, value, redact, prefix));
  }
  return list;
}

/** True for a JSON object (not null, not an array): the one guard, under the client's name. */
export { isRecord as isJsonObject } from '../core/is-record.js';
