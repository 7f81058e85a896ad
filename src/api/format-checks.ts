/**
 * The string-format leaves of the compiled check (`fast-validate.ts`): a format is decided
 * without a zod parse and without a memo lookup where zod's own rule can be run directly, and
 * by zod itself, once per distinct string, where it cannot.
 *
 * With every body different (ids, timestamps and URLs that change from answer to answer), a
 * memo keyed by the string missed and, even when it hit, hashing a freshly parsed string cost
 * more than the check it saved (≈65 ns for a timestamp, ≈165 ns for a URL, 42 per flow page).
 *
 * - Formats whose whole zod rule is one regular expression (`datetime`, `date`, `time`): the
 *   very `RegExp` zod built for the schema, so the verdict is zod's by construction. (A
 *   hand-written scanner of the timestamp pattern measured no faster than V8's compiled
 *   regular expression, ≈35 ns either way.)
 * - `url` without options: zod accepts when `URL.canParse(value.trim())`. A plain `http(s)`
 *   URL of an ordinary host is accepted by a regular expression (`CERTAIN_URL`, ≈50 ns) that
 *   only matches strings the URL parser cannot reject; anything else goes to zod.
 * - Anything else: zod, remembered per distinct string.
 */
import type { z } from 'zod';

/** The slice of a zod 4 string schema's definition read here. */
interface StringDef {
  readonly format?: string;
  readonly pattern?: unknown;
  readonly checks?: readonly unknown[];
}

/** Formats whose zod check is exactly `def.pattern.test(value)` (no override of `_zod.check`). */
const PATTERN_FORMATS: ReadonlySet<string> = new Set(['datetime', 'date', 'time']);

/** Keys of a bare `z.url()` definition; options (hostname, protocol, normalize) change its rule. */
const BARE_URL_KEYS: ReadonlySet<string> = new Set(['type', 'format', 'check', 'abort', 'error', 'message']);

/**
 * An `http`/`https` URL that WHATWG URL parsing (what `URL.canParse` runs) cannot reject: a
 * host of dotted labels of letters, digits and inner single hyphens whose last label starts
 * with a letter (so it never "ends in a number" and is never taken for IPv4, and no label
 * can be `xn--` punycode, whose decoding can fail), or a dotted-quad IPv4 address in range;
 * a port of at most 4 digits; then any printable ASCII after `/`, `?` or `#`, which the
 * parser percent-encodes but never fails on. No whitespace, so zod's `trim()` changes nothing.
 */
export const CERTAIN_URL =
  /^https?:\/\/(?:(?:[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*\.)*[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*|(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})(?::\d{1,4})?(?:[/?#][\x21-\x7e]*)?$/;

/** Longer URLs skip the pattern (its backtracking grows with the host's length) and go to zod. */
const CERTAIN_URL_MAX = 2048;

/** `CERTAIN_URL`'s scheme part, after which its host begins. */
const URL_SCHEME = 'https?:\\/\\/';

/** Longest host of a URL inside a whole-body pattern: a DNS name's (RFC 1035, without the root dot). */
const EMBEDDED_HOST_MAX = 253;

/** Most distinct strings remembered per leaf; the memo is dropped when it fills. */
const LEAF_MEMO_MAX = 4096;

/** zod's verdict on a string, remembered per distinct string. */
function zodLeaf(schema: z.ZodType): (v: string) => boolean {
  const memo = new Map<string, boolean>();
  return (v) => {
    let ok = memo.get(v);
    if (ok === undefined) {
      ok = schema.safeParse(v).success;
      if (memo.size >= LEAF_MEMO_MAX) memo.clear();
      memo.set(v, ok);
    }
    return ok;
  };
}

function stringDefOf(schema: z.ZodType): StringDef | undefined {
  return (schema as unknown as { _zod?: { def?: StringDef } })._zod?.def;
}

/** zod's own pattern for a pattern-only format, when it can be run as zod runs it. */
function zodPattern(def: StringDef): RegExp | undefined {
  const p = def.pattern;
  // A global or sticky pattern keeps state between tests; zod resets it, so leave those to zod.
  if (!(p instanceof RegExp) || p.global || p.sticky) return undefined;
  return def.format !== undefined && PATTERN_FORMATS.has(def.format) ? p : undefined;
}

function isBareUrl(def: StringDef): boolean {
  return def.format === 'url' && Object.keys(def).every((k) => BARE_URL_KEYS.has(k));
}

/**
 * How the compiled check decides a string schema that carries a format or checks: `pattern`
 * alone when that is zod's whole rule; `pattern` (for strings up to `maxLength`) and, when it
 * does not match, `fallback`; or `fallback` alone. The check emits `pattern.test(v)` inline
 * rather than calling a wrapper, which cost ≈15 ns a leaf. Only ever given strings: the
 * compiled check tests `typeof` first.
 */
export interface FormatLeaf {
  readonly pattern: RegExp | undefined;
  readonly maxLength: number;
  readonly fallback: ((v: string) => boolean) | undefined;
}

/** The leaf of a string schema with a format or checks. */
export function formatLeafOf(schema: z.ZodType): FormatLeaf {
  const def = stringDefOf(schema) ?? {};
  const extraChecks = def.checks !== undefined && def.checks.length > 0;
  const pattern = extraChecks ? undefined : zodPattern(def);
  if (pattern !== undefined) return { pattern, maxLength: Infinity, fallback: undefined };
  const zod = zodLeaf(schema);
  if (!extraChecks && isBareUrl(def)) return { pattern: CERTAIN_URL, maxLength: CERTAIN_URL_MAX, fallback: zod };
  return { pattern: undefined, maxLength: 0, fallback: zod };
}

/** The leaf as one function (for callers that are not generated code). */
export function formatCheckOf(schema: z.ZodType): (v: string) => boolean {
  const { pattern, maxLength, fallback } = formatLeafOf(schema);
  if (pattern === undefined) return fallback ?? (() => true);
  if (fallback === undefined) return (v) => pattern.test(v);
  return (v) => (v.length <= maxLength && pattern.test(v)) || fallback(v);
}

/**
 * What an embedded pattern may hold once `\d` and `\.` are taken out: literal characters,
 * groups, plain classes and quantifiers, with no escape, wildcard or negated class left, so
 * it can never match `"`, `\` or a control character.
 */
const EMBEDDABLE_REST = /^[A-Za-z0-9()[\]{}|?:+*,-]*$/;

const isDigitChar = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/**
 * True when `source` (anchored `^…$`, `\d` and `\.` taken out) can be embedded: no alternation
 * outside every group (which would change meaning once the anchors go) and no class range but
 * between digits (`[0-z]` would take in `\`).
 */
function embeddable(source: string): boolean {
  if (!EMBEDDABLE_REST.test(source)) return false;
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (inClass) {
      if (c === ']') inClass = false;
      else if (c === '-' && source[i + 1] !== ']' && !(isDigitChar(source[i - 1]) && isDigitChar(source[i + 1]))) return false;
    } else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) return false;
  }
  return true;
}

/**
 * The format of a string schema as a pattern that can stand inside a whole-body pattern
 * (`layout-check.ts`) between the JSON string's quotes, matching exactly the strings zod
 * accepts for it when they hold no escape; undefined for formats that cannot be (the body then
 * takes the parsed path). Pattern-only formats embed zod's own pattern without its anchors
 * (refused unless it provably cannot cross a quote); a bare `url` embeds `CERTAIN_URL`, its tail
 * narrowed to exclude `"` and `\\`, its host kept to `EMBEDDED_HOST_MAX` characters by a look-ahead.
 *
 * The bound sits on the host alone, the only part whose backtracking grows faster than its
 * length; the path after it is one class up to the closing quote, linear. A look-ahead over the
 * whole URL (`[^"]{0,CERTAIN_URL_MAX}"`) cost ≈100 ns a URL, a third of the layout check of a
 * flow page; over the host it costs ≈10 ns. A longer host only takes the body to the parsed path.
 */
export function embeddedFormatSource(schema: z.ZodType): string | undefined {
  const def = stringDefOf(schema) ?? {};
  if (def.checks !== undefined && def.checks.length > 0) return undefined;
  if (isBareUrl(def)) {
    const inner = CERTAIN_URL.source.slice(1, -1).replace('[\\x21-\\x7e]', '[\\x21\\x23-\\x5b\\x5d-\\x7e]');
    if (!inner.startsWith(URL_SCHEME)) return undefined;
    return `(?:${URL_SCHEME}(?=[A-Za-z0-9.-]{0,${EMBEDDED_HOST_MAX}}[^A-Za-z0-9.-])${inner.slice(URL_SCHEME.length)})`;
  }
  const p = zodPattern(def);
  if (p === undefined || p.flags !== '') return undefined;
  const src = p.source;
  if (!src.startsWith('^') || !src.endsWith('$') || src.endsWith('\\$')) return undefined;
  const inner = src.slice(1, -1);
  if (!embeddable(inner.replace(/\\[d.]/g, ''))) return undefined;
  return `(?:${inner})`;
}
