/**
 * The layout check (`layout-check.ts`) accepts a body without parsing it, so it must be sound:
 * whatever text a learned layout matches, `JSON.parse` must turn into a JSON object zod accepts.
 * Held here on generated bodies of every response schema: the layout is learned from one valid
 * body, then bodies broken at a random place (as values, and as text one character off) are
 * offered to it. Seeded, so a failure replays.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileLayout, LayoutCheck, MAX_LAYOUT_TEXT } from '../../src/api/layout-check.js';
import * as schemas from '../../src/api/schemas.js';
import { flowListBody } from '../../bench/lib/flow-list-body.js';
import { brokenValue, nearTimestamp, nearUrl, validArbitrary } from './schema-arbitrary.js';
import { DELETE, mutate, paths } from './json-paths.js';

const SEED = 44;
const all: [string, z.ZodType][] = Object.entries(schemas as Record<string, unknown>).flatMap(([name, v]) => (v instanceof z.ZodType ? [[name, v] as [string, z.ZodType]] : []));
const asJson = (v: unknown): unknown => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

/**
 * The generated body with its numbers brought to a service's usual sizes (integers under a
 * million, decimals of three places), still valid: the arbitraries favour edge values (2^53 − 1,
 * 1.7e308), which a layout leaves to the parsed path, so few bodies would be offered to one.
 */
function tame(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? v % 1_000_000 : Math.round((v % 1_000_000) * 1000) / 1000;
  if (Array.isArray(v)) return v.map(tame);
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, tame(x)]));
  return v;
}

/** zod's verdict on text as the client parses it: a JSON object the schema accepts. */
function zodAccepts(schema: z.ZodType, text: string): boolean {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return false;
  }
  return typeof v === 'object' && v !== null && !Array.isArray(v) && schema.safeParse(v).success;
}

/** Text one edit away: a character inserted, deleted or replaced by one that matters to JSON. */
const CHARS = ['"', '\\', '{', '}', '[', ']', ',', ':', ' ', '\n', '\u0000', '\u001f', '0', '9', '-', '.', 'e', 'E', '+', 'a', 'Z', 'T', '/', 'u', 'n', 'é', '\u2028'];
function textEdit(text: string): fc.Arbitrary<string> {
  return fc.tuple(fc.nat({ max: Math.max(0, text.length - 1) }), fc.constantFrom('insert', 'delete', 'replace'), fc.constantFrom(...CHARS)).map(([at, how, c]) => {
    if (how === 'insert') return text.slice(0, at) + c + text.slice(at);
    if (how === 'delete') return text.slice(0, at) + text.slice(at + 1);
    return text.slice(0, at) + c + text.slice(at + 1);
  });
}

describe('a learned layout accepts only what zod accepts', () => {
  const totals = { accepted: 0, selfAccepted: 0 };
  // Only an object can be a body.
  for (const [name, schema] of all.filter(([, s]) => (s as unknown as { _zod: { def: { type: string } } })._zod.def.type === 'object')) {
    it(`${name}: value edits and text edits of a learned body`, () => {
      let learned = 0;
      let selfAccepted = 0;
      let accepted = 0;
      let rejectedByZod = 0;
      fc.assert(
        fc.property(
          fc
            .tuple(validArbitrary(schema).map(asJson), fc.boolean())
            .map(([v, t]) => (t ? tame(v) : v))
            .chain((valid) => {
              const text = JSON.stringify(valid);
              const valueEdit = fc.tuple(fc.constantFrom(...paths(valid)), fc.oneof(brokenValue, nearTimestamp, nearUrl, fc.constant(DELETE))).map(([p, r]) => JSON.stringify(asJson(mutate(valid, p, r))) ?? '');
              return fc.tuple(fc.constant(valid), fc.oneof(valueEdit, textEdit(text), valueEdit.map((t) => (t === '' ? t : JSON.stringify(JSON.parse(t), null, 2)))));
            }),
          ([valid, text]) => {
            const re = compileLayout(schema, valid);
            if (re === undefined) return;
            learned++;
            // The check as the client runs it: the compact expression first, then the whole one.
            const check = new LayoutCheck(schema);
            check.learn(valid);
            // The body it was learned from, compact or pretty-printed, is accepted unless a value
            // of it lies outside what a layout spells (a 16-digit integer, a 5-digit port…).
            const self = re.test(JSON.stringify(valid));
            expect(re.test(JSON.stringify(valid, null, 2))).toBe(self);
            expect(check.accepts(JSON.stringify(valid))).toBe(self);
            expect(check.accepts(JSON.stringify(valid, null, 2))).toBe(self);
            if (self) selfAccepted++;
            const zod = zodAccepts(schema, text);
            if (!zod) rejectedByZod++;
            if (re.test(text)) {
              accepted++;
              expect(zod, text.slice(0, 400)).toBe(true);
            }
            if (check.accepts(text)) expect(zod, text.slice(0, 400)).toBe(true);
          },
        ),
        { seed: SEED, numRuns: 400 },
      );
      // The property means something only when layouts were learned and the edits broke bodies.
      expect(learned).toBeGreaterThanOrEqual(8);
      expect(rejectedByZod).toBeGreaterThanOrEqual(5);
      expect(selfAccepted).toBeGreaterThan(0);
      totals.accepted += accepted;
      totals.selfAccepted += selfAccepted;
      // A guard against a hang only: the URL arbitraries cost seconds on a busy machine.
    }, 180_000);
  }

  it('across the schemas, hundreds of bodies were accepted by a layout and each was checked against zod', () => {
    expect(totals.selfAccepted).toBeGreaterThan(800);
    expect(totals.accepted).toBeGreaterThan(200);
  });

  it('the flow page: one-place edits of its values and of its text', () => {
    const page = flowListBody();
    const re = compileLayout(schemas.flowListSchema, JSON.parse(page)) as RegExp;
    expect(re).toBeInstanceOf(RegExp);
    const check = new LayoutCheck(schemas.flowListSchema);
    check.learn(JSON.parse(page));
    const value = JSON.parse(page) as unknown;
    const fieldValue = fc.oneof(brokenValue, nearTimestamp, nearUrl, fc.string({ maxLength: 12 }), fc.integer({ min: -5, max: 5 }), fc.constant(DELETE));
    const valueEdit = fc.tuple(fc.constantFrom(...paths(value)), fieldValue).map(([p, r]) => JSON.stringify(asJson(mutate(value, p, r))) ?? '');
    let accepted = 0;
    let rejected = 0;
    fc.assert(
      fc.property(fc.oneof(valueEdit, textEdit(page)), (text) => {
        const zod = zodAccepts(schemas.flowListSchema, text);
        if (!zod) rejected++;
        if (re.test(text)) {
          accepted++;
          expect(zod, text).toBe(true);
        }
        if (check.accepts(text)) expect(zod, text).toBe(true);
      }),
      { seed: SEED, numRuns: 3000 },
    );
    expect(accepted).toBeGreaterThan(300);
    expect(rejected).toBeGreaterThan(300);
  }, 180_000);

  it('learns the layout of the flow page, and then accepts every page of that layout with new values', () => {
    const check = new LayoutCheck(schemas.flowListSchema);
    const page = flowListBody();
    expect(check.accepts(page)).toBe(false);
    check.learn(JSON.parse(page));
    expect(check.accepts(page)).toBe(true);
    const other = page.replaceAll('flow_', 'flow_9f8e7d6c-').replaceAll('2026-01-', '2027-12-').replaceAll('T09:30:00Z', 'T23:59:59.123456+05:30');
    expect(zodAccepts(schemas.flowListSchema, other)).toBe(true);
    expect(check.accepts(other)).toBe(true);
    // Whitespace between tokens, early or only near the end: past the compact expression, the whole one accepts.
    expect(check.accepts(JSON.stringify(JSON.parse(other), null, 2))).toBe(true);
    expect(check.accepts(other.replace('"total":', '"total" :\n '))).toBe(true);
  });

  it('bounds a URL by its host (253 characters, a DNS name), not by its path', () => {
    const check = new LayoutCheck(schemas.flowListSchema);
    const page = flowListBody();
    check.learn(JSON.parse(page));
    const withHost = (host: string, path = '/v1'): string => page.replaceAll('https://api.example.com/v1', `https://${host}${path}`);
    // Labels of 63 characters, as DNS has them: 3 of them and a 61-character one are 253 in all.
    const label = (n: number): string => 'a'.repeat(n);
    const host253 = [label(63), label(63), label(63), `b${label(60)}`].join('.');
    const host254 = [label(63), label(63), label(63), `b${label(61)}`].join('.');
    expect(host253).toHaveLength(253);
    for (const [text, accepted] of [
      [withHost(host253), true],
      [withHost(host253, `/${'x'.repeat(10_000)}`), true],
      [withHost('api.example.com', `/${'p/'.repeat(5_000)}`), true],
      [withHost(host254), false],
      [withHost(`${host253}:8080`), true],
      [withHost(`${host254}:8080`), false],
    ] as const) {
      // Every one of these is a valid page: a longer host only takes it to the parsed path.
      expect(zodAccepts(schemas.flowListSchema, text)).toBe(true);
      expect(check.accepts(text), text.slice(0, 300)).toBe(accepted);
    }
  });

  it('leaves what it cannot say exactly to the parsed path', () => {
    const check = new LayoutCheck(schemas.flowListSchema);
    const page = flowListBody();
    check.learn(JSON.parse(page));
    const rejected = [
      page.replace('"total":14', '"total":14,"total":15'), // a repeated key: JSON.parse keeps the last
      page.replace('"total":14', '"total":1e400'), // Infinity
      page.replace('"total":14', '"total":9007199254740993'), // not a safe integer
      page.replace('"total":14', '"total":14.0'), // an integer zod accepts, spelt as JSON allows
      page.replace('2026-01-01T09:30:00Z', '2026\\u002d01-01T09:30:00Z'), // an escape inside a timestamp
      page.replace('2026-01-01T09:30:00Z', '2026-02-30T09:30:00Z'), // no such day
      page.replace('"status":"published"', '"status":"archived"'),
      page.replace('https://api.example.com', 'https://api.exa"mple.com'),
      page.replace('"limit":20', '"limit":20,"more":{"a":1}'), // an extra key holding an object: not in the layout
      `\uFEFF${page}`,
      page.slice(0, -1),
    ];
    for (const text of rejected) expect(check.accepts(text), text.slice(0, 120)).toBe(false);
    // 14.0 is valid, and the parsed path says so: a layout only ever speeds acceptance up.
    expect(zodAccepts(schemas.flowListSchema, page.replace('"total":14', '"total":14.0'))).toBe(true);
    expect(check.accepts(' '.repeat(MAX_LAYOUT_TEXT) + page)).toBe(false);
  });

  it('a required key missing from a body makes no layout; an optional one may be absent', () => {
    const run = { id: 'r', flow_id: 'f', status: 'running', output: '', created_at: '2026-01-01T00:00:00Z' };
    expect(compileLayout(schemas.runSchema, run)).toBeInstanceOf(RegExp);
    const { flow_id: _gone, ...noFlow } = run;
    expect(compileLayout(schemas.runSchema, noFlow)).toBeUndefined();
    // An unknown field holding an object cannot be spelt by a layout.
    expect(compileLayout(schemas.runStatusBodySchema, { ...run, progress: 1, error: { code: 'X' } })).toBeUndefined();
    expect(compileLayout(schemas.runStatusBodySchema, { ...run, progress: 1, error: null })).toBeInstanceOf(RegExp);
  });
});
