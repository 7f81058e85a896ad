import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fastCheckOf } from '../../src/api/fast-validate.js';
import * as schemas from '../../src/api/schemas.js';
import * as fx from './fixtures.js';
import { DELETE, mutate, paths } from './json-paths.js';

const cases: readonly [string, z.ZodType, unknown][] = [
  ['run', schemas.runSchema, fx.run],
  ['runStatus', schemas.runStatusBodySchema, fx.runStatus],
  ['flowList', schemas.flowListSchema, { flows: [fx.flowItem(1), fx.flowItem(2)], total: 2, limit: 20, offset: 0 }],
  ['flow', schemas.flowSchema, fx.flow],
  ['session', schemas.sessionSchema, fx.session],
  ['history', schemas.historySchema, fx.history],
  ['usage', schemas.usageStatsSchema, fx.usageStats],
  ['trigger', schemas.triggerAckSchema, fx.triggerAck],
  ['error', schemas.errorBodySchema, fx.errorBody('NOT_FOUND', 'gone', { id: 'x' })],
  ['endEvent', schemas.endEventSchema, { type: 'end', run_id: 'run_1', usage: fx.usage }],
];


// Values near the edges of what the schemas accept: wrong types, almost-timestamps, non-URLs.
const tricky = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom(
    DELETE, null, undefined, '', ' ', 1.5, -1, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY, '1', [], {},
    '2026-01-01', '2026-13-01T00:00:00Z', '2026-02-30T00:00:00Z', '2026-01-01T00:00:00', '2026-01-01T00:00:00+01:00',
    'not a url', 'https://', ' https://example.com ', 'ftp://x', 'completed', 'running', 'user', 'published',
  ),
  fc.string(),
);

describe('fastCheckOf', () => {
  it('compiles every response schema of the interface', () => {
    for (const [name, schema] of cases) expect(fastCheckOf(schema), name).toBeTypeOf('function');
  });

  it('accepts the valid fixtures, so healthy bodies skip zod', () => {
    for (const [name, schema, valid] of cases) {
      expect(schema.safeParse(valid).success, name).toBe(true);
      expect(fastCheckOf(schema)?.(valid), name).toBe(true);
    }
  });

  it('never accepts a body zod rejects (random mutations of valid bodies)', () => {
    for (const [name, schema, valid] of cases) {
      const check = fastCheckOf(schema) as (v: unknown) => boolean;
      const all = paths(valid);
      fc.assert(
        fc.property(fc.constantFrom(...all), tricky, (path, replacement) => {
          const v = mutate(valid, path, replacement);
          if (check(v)) expect(schema.safeParse(v).success, `${name} at ${path.join('.')}`).toBe(true);
        }),
        { numRuns: 300, seed: 7 },
      );
    }
  });

  it('rejects the common breakages, so zod reports them', () => {
    const list = schemas.flowListSchema;
    const check = fastCheckOf(list) as (v: unknown) => boolean;
    const page = { flows: [fx.flowItem(1)], total: 1, limit: 20, offset: 0 };
    expect(check(mutate(page, ['total'], '1'))).toBe(false);
    expect(check(mutate(page, ['flows', 0, 'endpoint'], 'not a url'))).toBe(false);
    expect(check(mutate(page, ['flows', 0, 'created_at'], '2026-01-01'))).toBe(false);
    expect(check(mutate(page, ['flows', 0, 'status'], 'archived'))).toBe(false);
    expect(check(mutate(page, ['flows'], DELETE))).toBe(false);
  });

  it('leaves schemas it cannot mirror exactly to zod', () => {
    expect(fastCheckOf(z.union([z.string(), z.number()]))).toBeUndefined();
    expect(fastCheckOf(z.strictObject({ a: z.string() }))).toBeUndefined();
    expect(fastCheckOf(z.object({ a: z.string() }).refine(() => false))).toBeUndefined();
    expect(fastCheckOf(z.array(z.string()).min(1))).toBeUndefined();
    expect(fastCheckOf(z.coerce.number())).toBeUndefined();
    expect(fastCheckOf(z.looseObject({ a: z.number().min(3) }))).toBeUndefined();
  });
});
