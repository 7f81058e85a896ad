/**
 * The building blocks of the report@1 zod schema, shared by `report-schema.ts` and the section
 * modules that own a piece of it. Every object is loose: @1 may grow fields and readers must
 * ignore what they do not know.
 */
import { z } from 'zod';
import { HTTP_OP_NAME, OPS, type ByOp } from '../../core/ops.js';
import { PCT_STATS } from '../../slo/threshold-grammar.js';

type Shape = Record<string, z.ZodType>;
/** An added field this version always writes (see `written`). */
export type Written<S extends z.ZodType> = S & { readonly '~written': true };
type Added<A extends Shape> = { [K in keyof A]: A[K] extends { readonly '~written': true } ? A[K] : z.ZodOptional<A[K]> };

/**
 * An added field (in `obj`'s `added`) this version always writes: optional in the schema (and the
 * JSON Schema), as earlier @1 writers left it out, but required in the type taken from the schema,
 * which says what this version writes. Only the type changes; the schema is the field's own.
 */
export const written = <S extends z.ZodType>(schema: S): Written<S> => schema as Written<S>;

/**
 * A loose object whose `design` fields (those report@1 always had: docs/report-json.md) are required and whose `added` ones
 * (this implementation's) are optional; kept apart so which is which reads off the call.
 */
export function obj<D extends Shape, A extends Shape = Record<never, never>>(design: D, added?: A): z.ZodObject<D & Added<A>, z.core.$loose> {
  const optional = Object.fromEntries(Object.entries(added ?? {}).map(([k, s]) => [k, s.optional()]));
  return z.looseObject({ ...design, ...optional }) as z.ZodObject<D & Added<A>, z.core.$loose>;
}

/** One field per name, so key lists that exist as constants are not written out again. */
export function keyed<K extends string, S extends z.ZodType>(keys: readonly K[], schema: S): Record<K, S> {
  return Object.fromEntries(keys.map((k) => [k, schema])) as Record<K, S>;
}

// A union rather than `.nullable()`: a wrong value then fails as a whole ("is not number or
// null") instead of as the inner kind alone, which reads as if null were not allowed.
export const nullable = <S extends z.ZodType>(s: S) => z.union([s, z.null()]);

export const num = z.number();
export const nonNegative = z.number().min(0);
export const int = z.int();
export const count = z.int().min(0);
export const ratio = z.number().min(0).max(1);
export const str = z.string();
export const bool = z.boolean();
export const countMap = z.record(z.string(), count);
export const timestamp = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
/** HdrHistogram compressed base64 (`HISTFAAA…`). */
export const hdr = z.string().regex(/^HISTF[A-Za-z0-9+/=]*$/);
/** Keyed by operation name; any other key is refused, naming the ones allowed. */
export const byOp = <S extends z.ZodType>(value: S) =>
  z.partialRecord(z.enum(OPS), value, {
    // zod's type for a record's issues leaves out the one it raises for a key outside the enum.
    error: (iss) => ((iss.code as string) === 'unrecognized_keys' ? `unexpected key (allowed: ${OPS.join(', ')})` : undefined),
  });

/** The keys `ops` allows: an operation, or `http:<name>` (`vu.http`); one pattern, so the JSON Schema says it too. */
const OP_KEY = new RegExp(`^(${OPS.join('|')}|http:${HTTP_OP_NAME.source.slice(1, -1)})$`);

/**
 * `ops`: keyed by operation name, or `http:<name>` for a journey's own requests (`vu.http`); any
 * other key is refused, naming the forms allowed. Typed as `ByOp`: the regex says what the key's
 * type says.
 */
export const byOpOrHttp = <S extends z.ZodType>(value: S): z.ZodType<ByOp<z.output<S>>, ByOp<z.input<S>>> =>
  z.record(z.string().regex(OP_KEY, { error: `unexpected key (allowed: ${OPS.join(', ')}, http:<name>)` }), value, {
    error: (iss) => ((iss.code as string) === 'invalid_key' ? `unexpected key (allowed: ${OPS.join(', ')}, http:<name>)` : undefined),
  }) as unknown as z.ZodType<ByOp<z.output<S>>, ByOp<z.input<S>>>;

/** A `Pct`: percentiles, maximum and mean of an HDR histogram, and the number of values. */
export const pct = obj({ ...keyed(PCT_STATS, nonNegative), count });

/**
 * A schema's output as the report's types say it: every field readonly at every depth, and a
 * loose object's `[key: string]: unknown` (which lets readers skip fields they do not know, and
 * says nothing about any field) left out.
 */
export type DeepReadonly<T> = T extends readonly (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T as string extends K ? (unknown extends T[K] ? never : K) : K]: DeepReadonly<T[K]> }
    : T;
