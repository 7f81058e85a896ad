/**
 * fast-check arbitraries derived from a zod response schema: bodies zod accepts, and strings at
 * the edges of the string formats (timestamps and URLs a character away from valid), for the
 * property test that holds the compiled check to zod's verdict.
 */
import fc from 'fast-check';
import type { z } from 'zod';

interface Def {
  readonly type: string;
  readonly format?: string;
  readonly checks?: readonly unknown[];
  readonly shape?: Readonly<Record<string, z.ZodType>>;
  readonly element?: z.ZodType;
  readonly innerType?: z.ZodType;
  readonly valueType?: z.ZodType;
  readonly entries?: Readonly<Record<string, unknown>>;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

const pad = (n: number, width: number): string => String(n).padStart(width, '0');
const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Valid RFC 3339 timestamps as the interface's schema takes them (seconds, optional fraction, Z or an offset). */
export const validTimestamp: fc.Arbitrary<string> = fc
  .record({
    year: fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.constantFrom(1900, 2000, 2024, 2100, 2400)),
    month: fc.integer({ min: 1, max: 12 }),
    dayPick: fc.nat(),
    h: fc.integer({ min: 0, max: 23 }),
    m: fc.integer({ min: 0, max: 59 }),
    s: fc.integer({ min: 0, max: 59 }),
    fraction: fc.option(fc.stringMatching(/^\d{1,9}$/), { nil: undefined }),
    zone: fc.oneof(fc.constant('Z'), fc.tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })).map(([sign, h, m]) => `${sign}${pad(h, 2)}:${pad(m, 2)}`)),
  })
  .map(({ year, month, dayPick, h, m, s, fraction, zone }) => {
    const days = month === 2 && isLeap(year) ? 29 : (DAYS[month - 1] as number);
    const day = 1 + (dayPick % days);
    return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}${fraction === undefined ? '' : `.${fraction}`}${zone}`;
  });

const LABEL_CHARS = 'abcxyzAZ0123456789-_.%@:é ';

/** URLs an ordinary service answers with, of every host form the fast path recognises or not. */
export const plainUrl: fc.Arbitrary<string> = fc
  .record({
    scheme: fc.constantFrom('http', 'https'),
    host: fc.oneof(
      fc.constantFrom('api.example.com', 'localhost', '127.0.0.1', 'a-b.c-d.io', 'x1.y2.zz', '10.0.0.255', '[::1]'),
      fc.array(fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,8}[a-z0-9])?$/), { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.')),
    ),
    port: fc.option(fc.integer({ min: 0, max: 65535 }), { nil: undefined }),
    path: fc.string({ unit: fc.constantFrom(...'abc/._~-%20?#=&\\[]@!$'.split('')), maxLength: 30 }),
  })
  .map(({ scheme, host, port, path }) => `${scheme}://${host}${port === undefined ? '' : `:${port}`}${path === '' || /^[/?#]/.test(path) ? path : `/${path}`}`);

/** Plain URLs that parse (what a valid body carries). */
export const validUrl = plainUrl.filter((s) => URL.canParse(s));

/** A string one or a few characters away from `s`: replaced, inserted or deleted, from `alphabet`. */
function nearMiss(s: fc.Arbitrary<string>, alphabet: string): fc.Arbitrary<string> {
  const edit = fc.tuple(fc.constantFrom('replace', 'insert', 'delete'), fc.nat(), fc.constantFrom(...alphabet.split('')));
  return fc.tuple(s, fc.array(edit, { minLength: 1, maxLength: 3 })).map(([text, edits]) => {
    let out = text;
    for (const [kind, at, c] of edits) {
      const i = out.length === 0 ? 0 : at % out.length;
      out = kind === 'replace' ? out.slice(0, i) + c + out.slice(i + 1) : kind === 'insert' ? out.slice(0, i) + c + out.slice(i) : out.slice(0, i) + out.slice(i + 1);
    }
    return out;
  });
}

/** Timestamps a character or three from valid (out-of-range fields, 29 February, a lost separator…). */
export const nearTimestamp = nearMiss(validTimestamp, '0123456789-:.TtZz+ 2');

/** URLs a character or three from a plain one (odd schemes, hosts, ports, whitespace, non-ASCII). */
export const nearUrl = fc.oneof(
  nearMiss(plainUrl, `${LABEL_CHARS}/\\?#\t\n[]`),
  fc.tuple(fc.constantFrom('http://', 'https://', 'HTTP://', 'ftp://', 'http:/', 'http:', ' https://', 'mailto:'), fc.string({ unit: fc.constantFrom(...LABEL_CHARS.split('')), maxLength: 20 })).map(([a, b]) => a + b),
  fc.constantFrom('http://xn--zz.com/', 'http://a..b/', 'http://1.2.3.4.5/', 'http://256.1.1.1/', 'http://0x7f.1/', 'http://a.b:65536/', 'http://a.b:/', 'http://a.b.', 'http://-a.b/', 'http://a-.b/'),
);

/** Values that zod accepts under `schema` (as a client would see them after JSON parsing). */
export function validArbitrary(schema: z.ZodType): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  switch (def.type) {
    case 'unknown':
    case 'any':
      return fc.jsonValue({ maxDepth: 2 });
    case 'string':
      if (def.format === 'datetime') return validTimestamp;
      if (def.format === 'url') return validUrl;
      return fc.oneof(fc.string(), fc.string({ unit: 'binary', maxLength: 8 }));
    case 'boolean':
      return fc.boolean();
    case 'number':
      return def.checks !== undefined && def.checks.length > 0 ? fc.maxSafeInteger() : fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries ?? {}));
    case 'optional':
      return fc.option(validArbitrary(def.innerType as z.ZodType), { nil: undefined });
    case 'nullable':
      return fc.option(validArbitrary(def.innerType as z.ZodType), { nil: null });
    case 'array':
      return fc.array(validArbitrary(def.element as z.ZodType), { maxLength: 3 });
    case 'record':
      return fc.dictionary(fc.string({ maxLength: 6 }), validArbitrary(def.valueType as z.ZodType), { maxKeys: 3 });
    case 'object': {
      const shape = def.shape ?? {};
      const fields = Object.fromEntries(Object.entries(shape).map(([k, s]) => [k, validArbitrary(s)]));
      const required = Object.keys(shape).filter((k) => defOf(shape[k] as z.ZodType).type !== 'optional');
      // Loose objects take fields the schema does not name.
      const extra = fc.dictionary(fc.string({ maxLength: 6 }).filter((k) => !(k in shape)), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 });
      return fc.tuple(fc.record(fields, { requiredKeys: required }), extra).map(([known, more]) => ({ ...more, ...known }));
    }
    default:
      throw new Error(`no arbitrary for zod type ${def.type}`);
  }
}

/** Replacement values that break (or just test) a field: other types, edge numbers, near-miss strings. */
export const brokenValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(null, '', ' ', 0, -0, 1.5, -1, 2 ** 53, 2 ** 53 - 1, -(2 ** 53), 1e308, '1', [], {}, true, 'completed', 'running', 'user', 'published', 'archived'),
  nearTimestamp,
  nearUrl,
  fc.string(),
);
