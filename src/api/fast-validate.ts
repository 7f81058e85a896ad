/**
 * A check compiled once from a zod response schema into one JavaScript function, run before
 * zod itself: it says true exactly when zod would accept the (JSON) value, in one pass over
 * the parsed body, allocating nothing. zod then runs only for a body it rejects, to say why.
 *
 * Why generated code: a walk by nested closures shares one property-load site per closure
 * kind across every object of every schema, so V8 sees hundreds of shapes there and falls back
 * to slow generic loads; generated code has a site per field (`o["created_at"]`) that only ever
 * sees the one shape the service answers with. With a unique 4.2 KB flow page per answer, the
 * closure walk and its per-string memo cost ≈5 µs, the generated check ≈1 µs (docs/performance.md).
 *
 * Exactness is the whole point (a property test holds it against zod, `test/api/compiled-validator.test.ts`):
 * only constructs whose zod 4 semantics are mirrored exactly are compiled; anything else
 * (unions, refinements, strict objects, coercion, transforms, lazy…) leaves the whole schema
 * uncompiled, and zod alone decides. Where code generation is not allowed
 * (`--disallow-code-generation-from-strings`), zod decides too. The generated source holds
 * only the schema's own keys and enum values, quoted by `JSON.stringify`, never anything a
 * server sent.
 */
import type { z } from 'zod';
import { formatLeafOf } from './format-checks.js';

/** A compiled check: true exactly when zod would accept the (JSON) value. */
export type FastCheck = (value: unknown) => boolean;

/** The slice of zod 4's internal definition this compiler (and `layout-check.ts`) reads. */
export interface Def {
  readonly type: string;
  readonly checks?: readonly unknown[];
  readonly format?: string;
  readonly coerce?: boolean;
  readonly shape?: Readonly<Record<string, z.ZodType>>;
  readonly catchall?: z.ZodType;
  readonly element?: z.ZodType;
  readonly innerType?: z.ZodType;
  readonly keyType?: z.ZodType;
  readonly valueType?: z.ZodType;
  readonly entries?: Readonly<Record<string, unknown>>;
}

/** A schema's zod 4 definition, or undefined when it is not one this module knows. */
export function defOf(schema: z.ZodType): Def | undefined {
  const def = (schema as unknown as { _zod?: { def?: Def } })._zod?.def;
  return def !== undefined && typeof def.type === 'string' ? def : undefined;
}

/** True when a definition carries checks (refinements, lengths, formats of numbers…). */
export const hasChecks = (def: Def): boolean => def.checks !== undefined && def.checks.length > 0;

/** The number format a check stands for (`safeint` for `.int()`), if it is one. */
export function checkFormat(check: unknown): string | undefined {
  const d = (check as { _zod?: { def?: { check?: string; format?: string } } })._zod?.def;
  return d?.check === 'number_format' ? d.format : undefined;
}

/** True for the field types zod 4 accepts undefined for yet still requires the key of. */
function acceptsUndefined(schema: z.ZodType): boolean {
  const type = defOf(schema)?.type;
  return type === 'unknown' || type === 'any' || type === 'nullable' || type === 'undefined';
}

/** Enums up to this size compile to `===` comparisons; larger ones to a Set. */
const INLINE_ENUM_MAX = 8;

/** Generated source beyond this is not worth compiling (a schema that large is left to zod). */
const MAX_SOURCE_CHARS = 256 * 1024;

/** A JavaScript string literal for `s` (JSON strings are valid JavaScript literals). */
const lit = (s: string): string => JSON.stringify(s);

/** The state of one compilation: fresh variable names and the helpers the code refers to. */
class Emitter {
  private vars = 0;
  /** Format checks and enum sets, referenced from the code as `H[i]`. */
  readonly helpers: unknown[] = [];

  fresh(): string {
    return `v${++this.vars}`;
  }

  helper(h: unknown): string {
    this.helpers.push(h);
    return `H[${this.helpers.length - 1}]`;
  }

  /** Statements that `return false` unless the value in variable `x` satisfies `schema`. */
  emit(schema: z.ZodType, x: string): string | undefined {
    const def = defOf(schema);
    if (def === undefined) return undefined;
    switch (def.type) {
      case 'unknown':
      case 'any':
        return '';
      case 'string':
        if (def.coerce === true) return undefined;
        if (def.format === undefined && !hasChecks(def)) return `if (typeof ${x} !== "string") return false;\n`;
        return `if (typeof ${x} !== "string" || !(${this.formatTest(schema, x)})) return false;\n`;
      case 'boolean':
        return def.coerce === true ? undefined : `if (typeof ${x} !== "boolean") return false;\n`;
      case 'number':
        return this.number(def, x);
      case 'enum':
        return this.enumeration(def, x);
      case 'object':
        return this.object(def, x);
      case 'optional':
      case 'nullable': {
        const inner = def.innerType === undefined ? undefined : this.emit(def.innerType, x);
        if (inner === undefined) return undefined;
        return `if (${x} !== ${def.type === 'optional' ? 'undefined' : 'null'}) {\n${inner}}\n`;
      }
      case 'array':
        return this.array(def, x);
      case 'record':
        return this.record(def, x);
      default:
        return undefined;
    }
  }

  /** The expression deciding a string `x` under a format (see `FormatLeaf`). */
  private formatTest(schema: z.ZodType, x: string): string {
    const { pattern, maxLength, fallback } = formatLeafOf(schema);
    const fb = fallback === undefined ? undefined : `${this.helper(fallback)}(${x})`;
    if (pattern === undefined) return fb ?? 'true';
    const test = `${this.helper(pattern)}.test(${x})`;
    if (fb === undefined) return test;
    return `(${maxLength === Infinity ? '' : `${x}.length <= ${maxLength} && `}${test}) || ${fb}`;
  }

  private number(def: Def, x: string): string | undefined {
    if (def.coerce === true) return undefined;
    // zod's number is finite; `.int()` (its only check compiled) is its safeint format.
    if (!hasChecks(def)) return `if (!Number.isFinite(${x})) return false;\n`;
    if (def.checks?.length === 1 && checkFormat(def.checks[0]) === 'safeint') return `if (!Number.isSafeInteger(${x})) return false;\n`;
    return undefined;
  }

  private enumeration(def: Def, x: string): string | undefined {
    const values = Object.values(def.entries ?? {});
    if (values.length === 0 || !values.every((v): v is string => typeof v === 'string')) return undefined;
    if (values.length > INLINE_ENUM_MAX) return `if (typeof ${x} !== "string" || !${this.helper(new Set(values))}.has(${x})) return false;\n`;
    return `if (${values.map((v) => `${x} !== ${lit(v)}`).join(' && ')}) return false;\n`;
  }

  private object(def: Def, x: string): string | undefined {
    const catchallType = def.catchall === undefined ? undefined : defOf(def.catchall)?.type;
    // Loose (catchall unknown) and stripping objects accept extra keys; strict ones do not.
    if (def.shape === undefined || hasChecks(def) || (catchallType !== undefined && catchallType !== 'unknown')) return undefined;
    let out = `if (typeof ${x} !== "object" || ${x} === null || Array.isArray(${x}) || getPrototypeOf(${x}) !== ObjectPrototype) return false;\n`;
    for (const key of Object.keys(def.shape)) {
      // zod skips a `__proto__` key of a shape; mirroring that is not worth a special case.
      if (key === '__proto__') return undefined;
      const field = def.shape[key] as z.ZodType;
      const v = this.fresh();
      const body = this.emit(field, v);
      if (body === undefined) return undefined;
      // zod reports a missing key of a non-optional field even when the field accepts undefined.
      const presence = acceptsUndefined(field) ? `if (!(${lit(key)} in ${x})) return false;\n` : '';
      out += presence;
      if (body !== '') out += `{\nconst ${v} = ${x}[${lit(key)}];\n${body}}\n`;
    }
    return out;
  }

  private array(def: Def, x: string): string | undefined {
    if (def.element === undefined || hasChecks(def)) return undefined;
    const i = this.fresh();
    const v = this.fresh();
    const body = this.emit(def.element, v);
    if (body === undefined) return undefined;
    const loop = body === '' ? '' : `for (let ${i} = 0; ${i} < ${x}.length; ${i}++) {\nconst ${v} = ${x}[${i}];\n${body}}\n`;
    return `if (!Array.isArray(${x})) return false;\n${loop}`;
  }

  private record(def: Def, x: string): string | undefined {
    const keyDef = def.keyType === undefined ? undefined : defOf(def.keyType);
    if (keyDef?.type !== 'string' || keyDef.format !== undefined || hasChecks(keyDef) || def.valueType === undefined) return undefined;
    const k = this.fresh();
    const v = this.fresh();
    const body = this.emit(def.valueType, v);
    if (body === undefined) return undefined;
    // zod reads a record's own enumerable keys but `__proto__`; for a parsed JSON object, for…in with hasOwn is that set.
    const loop = body === '' ? '' : `for (const ${k} in ${x}) {\nif (${k} === "__proto__" || !hasOwn(${x}, ${k})) continue;\nconst ${v} = ${x}[${k}];\n${body}}\n`;
    return `if (typeof ${x} !== "object" || ${x} === null || Array.isArray(${x}) || getPrototypeOf(${x}) !== ObjectPrototype) return false;\n${loop}`;
  }
}

function compile(schema: z.ZodType): FastCheck | undefined {
  const e = new Emitter();
  const body = e.emit(schema, 'v0');
  if (body === undefined || body.length > MAX_SOURCE_CHARS) return undefined;
  try {
    const make = new Function('H', 'getPrototypeOf', 'ObjectPrototype', 'hasOwn', `"use strict";\nreturn function compiledCheck(v0) {\n${body}return true;\n};`);
    return make(e.helpers, Object.getPrototypeOf, Object.prototype, Object.hasOwn) as FastCheck;
  } catch {
    return undefined;
  }
}

const compiled = new WeakMap<z.ZodType, FastCheck | null>();

/** The compiled check of `schema` (compiled once), or undefined when it cannot be compiled. */
export function fastCheckOf(schema: z.ZodType): FastCheck | undefined {
  let c = compiled.get(schema);
  if (c === undefined) {
    c = compile(schema) ?? null;
    compiled.set(schema, c);
  }
  return c ?? undefined;
}
