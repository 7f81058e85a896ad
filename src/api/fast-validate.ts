/**
 * A fast "certainly valid" check compiled from a zod schema, run before zod itself. On a
 * healthy service nearly every body is valid, and a full zod parse of a 4 KB flow page costs
 * about as much as reading it (≈10 µs). The compiled check walks the same structure with plain
 * `typeof` tests; string formats (URL, timestamp) are decided by zod itself, one leaf at a time,
 * with the verdict remembered per distinct string (ids, names and URLs repeat from page to page).
 *
 * Soundness is the whole point: the check may say "not sure" (false) for a valid body, and zod
 * then runs as before and finds nothing; it must never say true where zod would complain. So
 * only constructs whose zod semantics are mirrored exactly are compiled; anything else (unions,
 * refinements, strict objects, coercion, transforms…) makes the whole schema uncompiled, and
 * zod alone decides, as before.
 */
import type { z } from 'zod';

/** A compiled check: true only when zod would accept the value. */
export type FastCheck = (value: unknown) => boolean;

/** The slice of zod 4's internal definition this compiler reads. */
interface Def {
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

function defOf(schema: z.ZodType): Def | undefined {
  const def = (schema as unknown as { _zod?: { def?: Def } })._zod?.def;
  return def !== undefined && typeof def.type === 'string' ? def : undefined;
}

const hasChecks = (def: Def): boolean => def.checks !== undefined && def.checks.length > 0;

function checkFormat(check: unknown): string | undefined {
  const d = (check as { _zod?: { def?: { check?: string; format?: string } } })._zod?.def;
  return d?.check === 'number_format' ? d.format : undefined;
}

/** Most distinct strings remembered per leaf; the memo is dropped when it fills. */
const LEAF_MEMO_MAX = 4096;

/** A string leaf with a format or checks: zod decides, once per distinct string. */
function stringLeaf(schema: z.ZodType): FastCheck {
  const memo = new Map<string, boolean>();
  return (v) => {
    if (typeof v !== 'string') return false;
    let ok = memo.get(v);
    if (ok === undefined) {
      ok = schema.safeParse(v).success;
      if (memo.size >= LEAF_MEMO_MAX) memo.clear();
      memo.set(v, ok);
    }
    return ok;
  };
}

const isFiniteNumber: FastCheck = (v) => typeof v === 'number' && Number.isFinite(v);
const isSafeInteger: FastCheck = (v) => Number.isSafeInteger(v);
const isPlainJsonObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

/** True for the field types zod 4 accepts undefined for yet still requires the key of. */
function acceptsUndefined(schema: z.ZodType): boolean {
  const type = defOf(schema)?.type;
  return type === 'unknown' || type === 'any' || type === 'nullable' || type === 'undefined';
}

function compileObject(def: Def): FastCheck | undefined {
  const catchallType = def.catchall === undefined ? undefined : defOf(def.catchall)?.type;
  // Loose (catchall unknown) and stripping objects accept extra keys; strict ones do not.
  if (def.shape === undefined || hasChecks(def) || (catchallType !== undefined && catchallType !== 'unknown')) return undefined;
  const keys = Object.keys(def.shape);
  const fields: FastCheck[] = [];
  // zod reports a missing key of a non-optional field even when the field accepts anything.
  const ownKeys: string[] = [];
  for (const key of keys) {
    const schema = def.shape[key] as z.ZodType;
    const f = compile(schema);
    if (f === undefined) return undefined;
    fields.push(f);
    if (acceptsUndefined(schema)) ownKeys.push(key);
  }
  const n = keys.length;
  return (v) => {
    if (!isPlainJsonObject(v)) return false;
    for (let i = 0; i < n; i++) if (!(fields[i] as FastCheck)(v[keys[i] as string])) return false;
    for (let i = 0; i < ownKeys.length; i++) if (!Object.hasOwn(v, ownKeys[i] as string)) return false;
    return true;
  };
}

function compileNumber(def: Def): FastCheck | undefined {
  if (def.coerce === true) return undefined;
  if (!hasChecks(def)) return isFiniteNumber;
  // `.int()` is the only check compiled: zod's safeint format means a safe integer.
  if (def.checks?.length === 1 && checkFormat(def.checks[0]) === 'safeint') return isSafeInteger;
  return undefined;
}

function compileEnum(def: Def): FastCheck | undefined {
  const values = Object.values(def.entries ?? {});
  if (values.length === 0 || !values.every((x) => typeof x === 'string')) return undefined;
  const set = new Set(values);
  return (v) => typeof v === 'string' && set.has(v);
}

function compile(schema: z.ZodType): FastCheck | undefined {
  const def = defOf(schema);
  if (def === undefined) return undefined;
  switch (def.type) {
    case 'unknown':
    case 'any':
      return () => true;
    case 'string':
      if (def.coerce === true) return undefined;
      return def.format === undefined && !hasChecks(def) ? (v) => typeof v === 'string' : stringLeaf(schema);
    case 'boolean':
      return def.coerce === true ? undefined : (v) => typeof v === 'boolean';
    case 'number':
      return compileNumber(def);
    case 'enum':
      return compileEnum(def);
    case 'object':
      return compileObject(def);
    case 'optional': {
      const inner = def.innerType === undefined ? undefined : compile(def.innerType);
      return inner === undefined ? undefined : (v) => v === undefined || inner(v);
    }
    case 'nullable': {
      const inner = def.innerType === undefined ? undefined : compile(def.innerType);
      return inner === undefined ? undefined : (v) => v === null || inner(v);
    }
    case 'array': {
      const element = def.element === undefined || hasChecks(def) ? undefined : compile(def.element);
      if (element === undefined) return undefined;
      return (v) => {
        if (!Array.isArray(v)) return false;
        for (let i = 0; i < v.length; i++) if (!element(v[i])) return false;
        return true;
      };
    }
    case 'record': {
      const keyDef = def.keyType === undefined ? undefined : defOf(def.keyType);
      const value = def.valueType === undefined ? undefined : compile(def.valueType);
      if (keyDef?.type !== 'string' || keyDef.format !== undefined || hasChecks(keyDef) || value === undefined) return undefined;
      return (v) => {
        if (!isPlainJsonObject(v)) return false;
        for (const k in v) if (Object.hasOwn(v, k) && !value(v[k])) return false;
        return true;
      };
    }
    default:
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
