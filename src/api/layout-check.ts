/**
 * Accepting a 2xx body without parsing it: one regular expression per body *layout* (which keys,
 * in which order, at every level), built from the response schema and from the layout of a body
 * the schema accepted. A live service answers every request of an operation with the same layout
 * and new values, so after the first body each next one is judged by one native regular
 * expression over its text: no `JSON.parse`, no objects, no strings for the collector to sweep.
 * Its value is parsed only if something reads it (`response.ts`). Compact JSON, what most
 * services send, is tried first against the same expression without whitespace (`compactOf`).
 *
 * Soundness is the whole point: the expression matches only text that `JSON.parse` turns into a
 * JSON object the schema accepts; text it does not match says nothing and takes the parsed path
 * (the depth check, `JSON.parse`, the compiled check, zod), so the verdict is exactly zod's
 * either way (`test/api/layout-check.test.ts` holds generated and broken bodies to that). Each
 * part is a subset of what it stands for: strings by JSON's own grammar, integers of at most 15
 * digits (always safe), numbers with at most 16 digits before the point and a two-digit exponent
 * (always finite), formats by zod's own pattern or the certain-URL pattern and only where the
 * raw text holds no escape (so the decoded value is the text), enums by their JSON spelling, and
 * every key of the layout literal, once (so no key repeats); every required key of the schema
 * must be in a layout. Anything the schema allows that this cannot say exactly (unions,
 * refinements, `unknown` holding an object, other formats…) leaves that layout unlearned.
 *
 * Nesting is bounded by construction (a layout is as deep as the body it was learned from), so
 * a body that matches needs no depth check; bodies over `MAX_LAYOUT_TEXT` are never tried.
 */
import type { z } from 'zod';
import { isRecord } from '../core/is-record.js';
import { checkFormat, defOf, hasChecks, type Def } from './fast-validate.js';
import { embeddedFormatSource } from './format-checks.js';

const WS = /[ \t\n\r]*/.source;
const STRING = /"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"/.source;
/** Finite by construction: at most 16 digits before the point and an exponent of two digits. */
const FINITE = /-?(?:0|[1-9][0-9]{0,15})(?:\.[0-9]+)?(?:[eE][+-]?[0-9]{1,2})?/.source;
/** Safe by construction: at most 15 digits (2^53 has 16). */
const SAFE_INT = /-?(?:0|[1-9][0-9]{0,14})/.source;
const JSON_NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.source;
/** Any JSON value but an object or array. */
const SCALAR = `(?:${STRING}|${JSON_NUMBER}|true|false|null)`;
const SEP = `${WS},${WS}`;

/** Distinct element layouts of one array (or values of one record) a layout spells out at most. */
const MAX_VARIANTS = 4;
/** Layouts kept per schema (a run answers `running` and `completed` differently, say). */
const MAX_LAYOUTS = 4;
/** Longest generated source; past it the layout is not worth a regular expression. */
const MAX_SOURCE_CHARS = 64 * 1024;
/**
 * Longest text tried. Past it the parsed path decides: the expression's backtracking state grows
 * with the elements of an array, and a body this large is not a page of an ordinary answer.
 */
export const MAX_LAYOUT_TEXT = 1024 * 1024;
/** Attempts to learn before learning slows to one body in `RELEARN_EVERY`. */
const EAGER_ATTEMPTS = 16;
const RELEARN_EVERY = 256;

const escapeRe = (s: string): string => s.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
/** A key or enum value as JSON spells it, as a pattern. */
const literal = (s: string): string => escapeRe(JSON.stringify(s));
const isContainer = (v: unknown): boolean => typeof v === 'object' && v !== null;

/** The pattern of values of `schema` shaped like `example` (undefined: no example, as for a `null` seen in place of an object). */
function valuePattern(schema: z.ZodType, example: unknown): string | undefined {
  const def = defOf(schema);
  if (def === undefined) return undefined;
  switch (def.type) {
    case 'unknown':
    case 'any':
      return isContainer(example) ? undefined : SCALAR;
    case 'string': {
      if (def.coerce === true) return undefined;
      if (def.format === undefined && !hasChecks(def)) return STRING;
      const format = embeddedFormatSource(schema);
      return format === undefined ? undefined : `"${format}"`;
    }
    case 'boolean':
      return def.coerce === true ? undefined : '(?:true|false)';
    case 'number':
      if (def.coerce === true) return undefined;
      if (!hasChecks(def)) return FINITE;
      return def.checks?.length === 1 && checkFormat(def.checks[0]) === 'safeint' ? SAFE_INT : undefined;
    case 'enum': {
      const values = Object.values(def.entries ?? {});
      if (values.length === 0 || !values.every((v): v is string => typeof v === 'string')) return undefined;
      return `(?:${values.map(literal).join('|')})`;
    }
    case 'optional':
      return def.innerType === undefined ? undefined : valuePattern(def.innerType, example);
    case 'nullable': {
      const inner = def.innerType === undefined ? undefined : valuePattern(def.innerType, example === null ? undefined : example);
      if (inner === undefined) return example === null ? 'null' : undefined;
      return `(?:null|${inner})`;
    }
    case 'object':
      return objectPattern(def, example);
    case 'array':
      return arrayPattern(def, example);
    case 'record':
      return recordPattern(def, example);
    default:
      return undefined;
  }
}

function objectPattern(def: Def, example: unknown): string | undefined {
  const shape = def.shape;
  const catchallType = def.catchall === undefined ? undefined : defOf(def.catchall)?.type;
  // Loose and stripping objects accept extra keys; strict ones (and refined ones) are left to the parsed path.
  if (!isRecord(example) || shape === undefined || hasChecks(def) || (catchallType !== undefined && catchallType !== 'unknown')) return undefined;
  for (const key of Object.keys(shape)) {
    if (!Object.hasOwn(example, key) && defOf(shape[key] as z.ZodType)?.type !== 'optional') return undefined;
  }
  const parts: string[] = [];
  for (const key of Object.keys(example)) {
    if (key === '__proto__') return undefined;
    const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
    const v = example[key];
    const p = field === undefined ? (isContainer(v) ? undefined : SCALAR) : valuePattern(field, v);
    if (p === undefined) return undefined;
    parts.push(`${literal(key)}${WS}:${WS}${p}`);
  }
  return `\\{${WS}${parts.join(SEP)}${WS}\\}`;
}

/** `[ e, e, … ]` or `{ k: e, … }` whose elements match one of the distinct layouts of `examples`. */
function repeated(open: string, close: string, prefix: string, element: z.ZodType, examples: readonly unknown[]): string | undefined {
  const variants = new Set<string>();
  for (const e of examples) {
    const p = valuePattern(element, e);
    if (p === undefined) return undefined;
    variants.add(p);
    if (variants.size > MAX_VARIANTS) return undefined;
  }
  if (variants.size === 0) return `${open}${WS}${close}`;
  const one = variants.size === 1 ? `${prefix}${[...variants][0] as string}` : `${prefix}(?:${[...variants].join('|')})`;
  return `${open}${WS}(?:${one}(?:${SEP}${one})*)?${WS}${close}`;
}

function arrayPattern(def: Def, example: unknown): string | undefined {
  if (!Array.isArray(example) || def.element === undefined || hasChecks(def)) return undefined;
  return repeated('\\[', '\\]', '', def.element, example);
}

function recordPattern(def: Def, example: unknown): string | undefined {
  const keyDef = def.keyType === undefined ? undefined : defOf(def.keyType);
  if (!isRecord(example) || keyDef?.type !== 'string' || keyDef.format !== undefined || hasChecks(keyDef) || def.valueType === undefined) return undefined;
  // Every value is held to the value schema, a repeated key's too (zod reads only the last): stricter, so still sound.
  return repeated('\\{', '\\}', `${STRING}${WS}:${WS}`, def.valueType, Object.values(example));
}

/** The whole-body expression of `value`'s layout under `schema`, or undefined when it cannot be said exactly. */
export function compileLayout(schema: z.ZodType, value: unknown): RegExp | undefined {
  const type = defOf(schema)?.type;
  // Only a JSON object is a body; a root that could be null or an array is left to the parsed path.
  if (type !== 'object' && type !== 'record') return undefined;
  const root = valuePattern(schema, value);
  if (root === undefined || root.length > MAX_SOURCE_CHARS) return undefined;
  try {
    return new RegExp(`^${WS}${root}${WS}$`);
  } catch {
    return undefined;
  }
}

/**
 * A layout's expression for compact JSON (what `JSON.stringify` writes, what most services
 * send): the whole-body expression with no whitespace between tokens. Taking out a `[ \t\n\r]*`
 * anywhere leaves a pattern that matches a subset of the text the whole one matches (the
 * expression has no negative look-ahead, and a format embedded in it none either), so it is
 * exactly as sound; it ran in ≈85% of the time on a unique flow page, and fails at the first
 * whitespace of a body that has some, which the whole expression then judges.
 */
function compactOf(loose: RegExp): RegExp | undefined {
  try {
    return new RegExp(loose.source.split(WS).join(''));
  } catch {
    return undefined;
  }
}

/** One learned layout: its whole-body expression, and that expression for compact text. */
interface Layout {
  readonly loose: RegExp;
  readonly compact: RegExp | undefined;
}

/** The layouts learned for one response schema. */
export class LayoutCheck {
  private readonly layouts: Layout[] = [];
  private replace = 0;
  private attempts = 0;

  constructor(private readonly schema: z.ZodType) {}

  /** True only when `JSON.parse(text)` is a JSON object the schema accepts; false says nothing. */
  accepts(text: string): boolean {
    if (text.length > MAX_LAYOUT_TEXT) return false;
    const layouts = this.layouts;
    for (let i = 0; i < layouts.length; i++) {
      const l = layouts[i] as Layout;
      try {
        if (l.compact?.test(text) === true || l.loose.test(text)) return true;
      } catch {
        // The expression's own limits (a backtracking stack overflow): the parsed path decides.
        return false;
      }
    }
    return false;
  }

  /** Learns the layout of `value`, parsed from a body the schema accepted that no layout matched. */
  learn(value: unknown): void {
    // Layouts that cannot be said (or a service whose every answer has a new layout) stop costing a walk per body.
    if (++this.attempts > EAGER_ATTEMPTS && this.attempts % RELEARN_EVERY !== 0) return;
    const re = compileLayout(this.schema, value);
    if (re === undefined) return;
    if (this.layouts.some((l) => l.loose.source === re.source)) return;
    const layout: Layout = { loose: re, compact: compactOf(re) };
    if (this.layouts.length < MAX_LAYOUTS) this.layouts.push(layout);
    else this.layouts[this.replace++ % MAX_LAYOUTS] = layout;
  }
}

const checks = new WeakMap<z.ZodType, LayoutCheck>();

/** The layout check of `schema` (one per schema, shared by every client of the process). */
export function layoutCheckOf(schema: z.ZodType): LayoutCheck {
  let c = checks.get(schema);
  if (c === undefined) {
    c = new LayoutCheck(schema);
    checks.set(schema, c);
  }
  return c;
}
