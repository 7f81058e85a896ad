/**
 * Limits on files flowgauge reads from users (scenarios, reports, token files): size before
 * reading, nesting before parsing, and keys and string lengths after. Every check is a loop
 * over the input, never a recursion, so no input can exhaust the stack; each returns what was
 * wrong, for the caller to word as its own error (exit 2).
 */

/** Keys that would reach an object's prototype when copied with `out[k] = v`. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Limits of one kind of file. */
export interface InputLimits {
  /** Largest file read, in bytes (checked from `stat`, before reading). */
  readonly maxBytes: number;
  /** Deepest nesting of arrays and objects (the top level is depth 1). */
  readonly maxDepth: number;
  /** Longest string value, in characters. */
  readonly maxStringChars: number;
  /** Longest object key, in characters. */
  readonly maxKeyChars: number;
}

/** A problem found in a value: where (a path of keys and indexes) and what. */
export interface InputProblem {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/** `n` bytes as people read sizes: "512 B", "16 MiB", "1.2 GiB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${Number.isInteger(v) ? v : v.toFixed(1)} ${units[i]}`;
}

/** The "is N bytes; the limit is M" message of a file over `maxBytes`, or undefined. */
export function sizeProblem(what: string, size: number, maxBytes: number): string | undefined {
  return size > maxBytes ? `${what} is ${size} bytes (${formatBytes(size)}); the limit is ${formatBytes(maxBytes)}` : undefined;
}

/**
 * The deepest nesting of `[`/`{` in JSON text, read without parsing (brackets inside strings do
 * not count). Stops as soon as `max` is passed and returns `max + 1`.
 */
export function jsonTextDepth(text: string, max: number): number {
  return scanJsonDepth(text, max).deepest;
}

/**
 * Where JSON text first goes deeper than `max`: the offset of the bracket that does, or -1 when
 * it never does. Read without parsing, as `jsonTextDepth`; for messages that name a line.
 */
export function jsonTooDeepAt(text: string, max: number): number {
  return scanJsonDepth(text, max).at;
}

function scanJsonDepth(text: string, max: number): { deepest: number; at: number } {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > max) return { deepest: max + 1, at: i };
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return { deepest, at: -1 };
}

/**
 * Deepest nesting of arrays and objects accepted in an answer a target sends (a response body,
 * an SSE event, a probe's or the conformance battery's answers) before it is parsed. The
 * interface's bodies nest under ten; past this an answer is malformed, decided by
 * `jsonDeeperThan` before `JSON.parse` builds it (an answer nested millions deep cost 1.3 GB and
 * seconds of a blocked loop to parse).
 */
export const MAX_ANSWER_DEPTH = 256;

/**
 * True when JSON `text` nests arrays and objects deeper than `max` (`MAX_ANSWER_DEPTH` by
 * default). Text no longer than `max` cannot, so short answers cost one comparison; text with no
 * more than `max` opening brackets cannot either; others one loop over the text that stops as
 * soon as the limit is passed (a bomb costs `max` characters).
 */
export function jsonDeeperThan(text: string, max: number = MAX_ANSWER_DEPTH): boolean {
  if (text.length <= max) return false;
  // No more than `max` opening brackets in all cannot nest deeper. Counted by `indexOf`, which
  // skips the text natively: on an ordinary page (tens of objects) that costs a tenth of the loop.
  let opens = 0;
  for (let i = text.indexOf('{'); i !== -1 && opens <= max; i = text.indexOf('{', i + 1)) opens++;
  for (let i = text.indexOf('['); i !== -1 && opens <= max; i = text.indexOf('[', i + 1)) opens++;
  return opens > max && jsonTextDepth(text, max) > max;
}

/**
 * An upper bound of the nesting of YAML text, read without parsing: the indentation levels
 * open on a line, its leading `- `/`? ` indicators, and the `[`/`{` open in flow collections
 * (across lines). Quoted strings, comments and block scalars (`|`, `>`) do not count. It may
 * overcount a little (never undercount), so callers compare it with a looser bound than the
 * exact check made after parsing; it exists so the parser never sees a nesting that would
 * exhaust its stack. Stops once `max` is passed and returns `max + 1`.
 */
export function yamlTextDepth(text: string, max: number): number {
  const indents: number[] = [];
  let flow = 0;
  let deepest = 0;
  let quote: '"' | "'" | undefined;
  /** Indent of the line that opened a block scalar: deeper lines are its text. */
  let scalarIndent = -1;
  let pos = 0;
  while (pos <= text.length) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = text.length;
    const line = text.slice(pos, end);
    pos = end + 1;
    let i = 0;
    while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
    const blank = i === line.length || line[i] === '#' || line[i] === '\r';
    if (scalarIndent >= 0) {
      if (blank || i > scalarIndent) continue;
      scalarIndent = -1;
    }
    let depth = flow;
    if (quote === undefined && flow === 0) {
      if (blank) continue;
      while (indents.length > 0 && (indents[indents.length - 1] as number) >= i) indents.pop();
      indents.push(i);
      depth = indents.length;
      // Compact nesting on one line: "- - - x", "? - x".
      while (i + 1 < line.length && (line[i] === '-' || line[i] === '?') && (line[i + 1] === ' ' || line[i + 1] === '\t')) {
        depth++;
        i += 2;
        while (i < line.length && line[i] === ' ') i++;
      }
    }
    let last = '';
    for (; i < line.length; i++) {
      const c = line[i] as string;
      if (quote !== undefined) {
        if (quote === '"' && c === '\\') i++;
        else if (c === quote) quote = undefined;
        continue;
      }
      if (c === '#' && (last === '' || last === ' ' || last === '\t')) break;
      if (c === '"' || c === "'") {
        // A quote opens a string only where a scalar may start, not inside a plain word (it's).
        if (last === '' || /[\s[{,:-]/.test(last)) quote = c;
      } else if (c === '[' || c === '{') {
        flow++;
        depth++;
      } else if (c === ']' || c === '}') {
        if (flow > 0) flow--;
      }
      if (c !== ' ' && c !== '\t' && c !== '\r') last = c;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > max) return max + 1;
      }
    }
    if (depth > deepest) {
      deepest = depth;
      if (deepest > max) return max + 1;
    }
    // "key: |" or "- >-": the deeper lines that follow are text.
    if (quote === undefined && flow === 0 && /(^|[\s:-])[|>][-+0-9]*\s*(#.*)?\r?$/.test(line)) scalarIndent = indents[indents.length - 1] ?? 0;
  }
  return deepest;
}

/**
 * The first problem of a parsed value against `limits` (depth, forbidden keys, key and string
 * lengths), walked with an explicit stack; undefined when there is none.
 */
export function valueProblem(value: unknown, limits: Omit<InputLimits, 'maxBytes'>): InputProblem | undefined {
  const stack: { v: unknown; path: (string | number)[] }[] = [{ v: value, path: [] }];
  while (stack.length > 0) {
    const { v, path } = stack.pop() as { v: unknown; path: (string | number)[] };
    if (typeof v === 'string') {
      if (v.length > limits.maxStringChars) return { path, message: `is a string of ${v.length} characters; the limit is ${limits.maxStringChars}` };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (path.length + 1 > limits.maxDepth) return { path, message: `is nested deeper than ${limits.maxDepth} levels of arrays and objects; the limit is ${limits.maxDepth}` };
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: [...path, i] });
      continue;
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i] as string;
      if (FORBIDDEN_KEYS.has(k)) return { path: [...path, k], message: `the key "${k}" is not allowed (${[...FORBIDDEN_KEYS].join(', ')} are refused: they would reach an object's prototype)` };
      if (k.length > limits.maxKeyChars) return { path, message: `has a key of ${k.length} characters; the limit is ${limits.maxKeyChars}` };
      stack.push({ v: (v as Record<string, unknown>)[k], path: [...path, k] });
    }
  }
  return undefined;
}
