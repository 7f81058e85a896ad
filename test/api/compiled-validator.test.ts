/**
 * The compiled check (`fast-validate.ts`) against zod, on generated bodies: for every response
 * schema of the interface, valid bodies and bodies broken at a random place must get exactly
 * zod's accept/reject, so skipping zod for a body the check accepts can never change a verdict.
 * Seeded, so a failure replays.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fastCheckOf, type FastCheck } from '../../src/api/fast-validate.js';
import { CERTAIN_URL, formatCheckOf } from '../../src/api/format-checks.js';
import * as schemas from '../../src/api/schemas.js';
import { brokenValue, nearTimestamp, nearUrl, plainUrl, validArbitrary, validTimestamp } from './schema-arbitrary.js';
import { DELETE, mutate, paths } from './json-paths.js';

const SEED = 17;

/** Every zod schema `schemas.ts` exports. */
const all: [string, z.ZodType][] = Object.entries(schemas as Record<string, unknown>).flatMap(([name, v]) => (v instanceof z.ZodType ? [[name, v] as [string, z.ZodType]] : []));

/** What a client sees: the value as JSON text, parsed again (undefined fields gone, -0 as 0). */
const asJson = (v: unknown): unknown => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));


/** A valid body of `schema` broken (perhaps) at one random place, as JSON. */
function brokenArbitrary(schema: z.ZodType): fc.Arbitrary<unknown> {
  return validArbitrary(schema).chain((valid) =>
    fc.tuple(fc.constantFrom(...paths(valid)), fc.oneof(brokenValue, fc.constant(DELETE))).map(([path, replacement]) => asJson(mutate(valid, path, replacement))),
  );
}

const accepts = (schema: z.ZodType, v: unknown): boolean => schema.safeParse(v).success;

describe('the compiled check agrees with zod', () => {
  it('compiles every response schema', () => {
    expect(all.length).toBeGreaterThanOrEqual(14);
    for (const [name, schema] of all) expect(fastCheckOf(schema), name).toBeTypeOf('function');
  });

  for (const [name, schema] of all) {
    it(`${name}: accepts generated valid bodies, as zod does`, () => {
      const check = fastCheckOf(schema) as FastCheck;
      fc.assert(
        fc.property(validArbitrary(schema).map(asJson), (v) => {
          expect(accepts(schema, v), 'zod accepts the generated body').toBe(true);
          expect(check(v)).toBe(true);
        }),
        { seed: SEED, numRuns: 300 },
      );
    });

    it(`${name}: gives zod's verdict on bodies broken at a random place`, () => {
      const check = fastCheckOf(schema) as FastCheck;
      let rejected = 0;
      let runs = 0;
      fc.assert(
        fc.property(brokenArbitrary(schema), (v) => {
          const zod = accepts(schema, v);
          runs++;
          if (!zod) rejected++;
          expect(check(v), JSON.stringify(v)?.slice(0, 300)).toBe(zod);
        }),
        { seed: SEED, numRuns: 600 },
      );
      // Enough of them must really be broken for the agreement to mean something.
      expect(rejected / runs).toBeGreaterThan(0.2);
    });
  }
});

describe('the string-format leaves agree with zod', () => {
  const timestamp = formatCheckOf(schemas.timestampSchema);
  const endpoint = (schemas.flowListItemSchema as unknown as { shape: { endpoint: z.ZodType } }).shape.endpoint;
  const url = formatCheckOf(endpoint);

  it('timestamps: valid and a few characters off', () => {
    let rejected = 0;
    fc.assert(
      fc.property(fc.oneof(validTimestamp, nearTimestamp), (s) => {
        const zod = accepts(schemas.timestampSchema, s);
        if (!zod) rejected++;
        expect(timestamp(s), s).toBe(zod);
      }),
      { seed: SEED, numRuns: 5000 },
    );
    expect(rejected).toBeGreaterThan(1000);
  });

  it('URLs: plain and a few characters off', () => {
    let rejected = 0;
    fc.assert(
      fc.property(fc.oneof(plainUrl, nearUrl), (s) => {
        const zod = accepts(endpoint, s);
        if (!zod) rejected++;
        expect(url(s), s).toBe(zod);
      }),
      { seed: SEED, numRuns: 5000 },
    );
    expect(rejected).toBeGreaterThan(500);
  });

  it('the certain-URL pattern only matches what URL parsing accepts, and matches plain URLs', () => {
    let matched = 0;
    fc.assert(
      fc.property(fc.oneof(plainUrl, nearUrl), (s) => {
        if (!CERTAIN_URL.test(s)) return;
        matched++;
        expect(URL.canParse(s.trim()), s).toBe(true);
      }),
      { seed: SEED, numRuns: 5000 },
    );
    expect(matched).toBeGreaterThan(500);
    for (const s of ['https://api.example.com/v1/flows/flow_1/run', 'http://127.0.0.1:4000/v1/flows/f/run', 'http://localhost:8080/']) expect(CERTAIN_URL.test(s), s).toBe(true);
  });
});
