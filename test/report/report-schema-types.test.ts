/**
 * model.ts (the report's TypeScript types, which the writers build) and report-schema.ts (what
 * readers accept and the JSON Schema says) describe one document: tsc fails this file when
 * they drift. The runtime test only keeps vitest from reporting an empty file.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { Report } from '../../src/report/model.js';
import type { reportSchema } from '../../src/report/report-schema.js';

/**
 * The declared fields of `T`, all readonly: a loose object's `[key: string]: unknown` (which
 * lets readers skip fields they do not know) says nothing about a field and is dropped.
 */
type Known<T> = T extends readonly (infer U)[]
  ? readonly Known<U>[]
  : T extends object
    ? { readonly [K in keyof T as string extends K ? (unknown extends T[K] ? never : K) : K]: Known<T[K]> }
    : T;

/** `T` with every field required, at every depth: compares which fields exist and their types, not which may be left out. */
type Every<T> = T extends readonly (infer U)[] ? readonly Every<U>[] : T extends object ? { readonly [K in keyof T]-?: Every<T[K]> } : T;

// `scenarios` holds the top level's sections again; the schema leaves their shape to those (an
// opaque object per scenario), so it is compared in neither direction. (Omit after Known: on a
// type with an index signature, Omit keeps only the signature.)
type Model = Omit<Known<Report>, 'scenarios'>;
type Schema = Omit<Known<z.input<typeof reportSchema>>, 'scenarios'>;

describe('model.ts and the report@1 zod schema', () => {
  it('every report the model describes is one the schema accepts: the schema requires nothing the model may leave out', () => {
    expectTypeOf<Model>().toExtend<Schema>();
  });

  it('name the same fields with the same types at every depth', () => {
    expectTypeOf<Every<Model>>().toExtend<Every<Schema>>();
    expectTypeOf<Every<Schema>>().toExtend<Every<Model>>();
  });
});
