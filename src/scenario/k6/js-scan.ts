/**
 * A tolerant scanner of JavaScript (and TypeScript) source for reading k6 scripts without
 * running them: tokens with their offsets, lines and whether a line break precedes them, nested
 * into bracket groups. It knows strings, template literals (their `${…}` scanned as nested
 * code), comments and regular expressions, which is what it takes to find statements, calls and
 * object literals; it does not build a syntax tree. Nothing here evaluates the source. Every
 * loop is bounded by the text and nesting by `MAX_NESTING`, so no input exhausts the stack.
 */
import { FlowgaugeError } from '../../core/errors.js';

/** What a token is. `name` covers identifiers and keywords. */
export type TokenKind = 'name' | 'num' | 'str' | 'tpl' | 'regex' | 'punct';

/** One token, with where it is in the source. */
export interface Token {
  readonly kind: TokenKind;
  readonly start: number;
  readonly end: number;
  /** The source text of the token. */
  readonly text: string;
  /** 1-based line of its first character. */
  readonly line: number;
  /** True when a line break (or a comment holding one) comes between the previous token and this one. */
  readonly nl: boolean;
  /** A string's value, escapes read. */
  readonly value?: string;
  /** A template literal's parts, in order. */
  readonly parts?: readonly TemplatePart[];
}

/** A piece of a template literal: its text as written, or a `${…}` of code. */
export type TemplatePart = { readonly kind: 'text'; readonly raw: string } | { readonly kind: 'expr'; readonly nodes: readonly JsNode[] };

/** Tokens between a bracket and its match; `close` is absent only at the end of a tolerant scan. */
export interface Group {
  readonly kind: 'group';
  readonly open: Token;
  readonly close: Token;
  readonly items: readonly JsNode[];
}

/** A token, or a bracket group. */
export type JsNode = Token | Group;

/** Deepest nesting of brackets and template literals' `${…}` read (together). */
export const MAX_NESTING = 256;

/** A scan that could not go on: where and why (the converter names the script and exits 2). */
export class ScanError extends FlowgaugeError {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super('FG_SCRIPT_UNREADABLE', message);
    this.name = 'ScanError';
  }
}

const PUNCTUATORS = [
  '>>>=', '...', '===', '!==', '**=', '<<=', '>>=', '>>>', '&&=', '||=', '??=',
  '=>', '==', '!=', '<=', '>=', '&&', '||', '??', '?.', '++', '--', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '**', '<<', '>>',
];
/** Keywords after which `/` starts a regular expression, not a division. */
const BEFORE_REGEX = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);

const isNameStart = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 36 || c === 95 || c >= 0x80;
const isNamePart = (c: number): boolean => isNameStart(c) || (c >= 48 && c <= 57);
const isDigit = (c: number): boolean => c >= 48 && c <= 57;

const ESCAPES: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', '0': '\0' };

/** A scanner over `src`; `scanTokens` reads from `pos` to the end, or to an unmatched `}` when `inTemplate`. */
class Scanner {
  pos = 0;
  line = 1;
  /** Brackets and template holes open at `pos`. */
  depth = 0;

  constructor(readonly src: string) {}

  /** Reads tokens; in a template's `${…}`, stops at its closing brace (left unread). */
  scanTokens(inTemplate: boolean): Token[] {
    const out: Token[] = [];
    let braces = 0;
    let nl = false;
    const src = this.src;
    while (this.pos < src.length) {
      const c = src.charCodeAt(this.pos);
      if (c === 10) {
        this.line++;
        nl = true;
        this.pos++;
        continue;
      }
      if (c === 32 || c === 9 || c === 13 || c === 11 || c === 12 || c === 0xa0 || c === 0xfeff || c === 0x2028 || c === 0x2029) {
        this.pos++;
        continue;
      }
      if (c === 47 && src.charCodeAt(this.pos + 1) === 47) {
        const end = src.indexOf('\n', this.pos);
        this.pos = end < 0 ? src.length : end;
        continue;
      }
      if (c === 47 && src.charCodeAt(this.pos + 1) === 42) {
        const end = src.indexOf('*/', this.pos + 2);
        const stop = end < 0 ? src.length : end + 2;
        for (let i = this.pos; i < stop; i++) {
          if (src.charCodeAt(i) === 10) {
            this.line++;
            nl = true;
          }
        }
        this.pos = stop;
        continue;
      }
      if (c === 35 && this.pos === 0 && src.charCodeAt(1) === 33) {
        const end = src.indexOf('\n');
        this.pos = end < 0 ? src.length : end;
        continue;
      }
      if (inTemplate) {
        if (c === 123) braces++;
        else if (c === 125 && braces-- === 0) return out;
      }
      const start = this.pos;
      const line = this.line;
      const prev = out[out.length - 1];
      let tok: Token;
      if (isNameStart(c)) {
        while (this.pos < src.length && isNamePart(src.charCodeAt(this.pos))) this.pos++;
        tok = this.token('name', start, line, nl);
      } else if (isDigit(c) || (c === 46 && isDigit(src.charCodeAt(this.pos + 1)))) {
        this.pos++;
        while (this.pos < src.length && (isNamePart(src.charCodeAt(this.pos)) || src[this.pos] === '.' || ((src[this.pos] === '+' || src[this.pos] === '-') && /[eE]/.test(src[this.pos - 1] ?? '') && !/^0[xX]/.test(src.slice(start, this.pos))))) this.pos++;
        tok = this.token('num', start, line, nl);
      } else if (c === 34 || c === 39) {
        tok = this.string(start, line, nl);
      } else if (c === 96) {
        tok = this.template(start, line, nl);
      } else if (c === 47 && regexAllowed(prev)) {
        tok = this.regex(start, line, nl);
      } else {
        const p = PUNCTUATORS.find((x) => src.startsWith(x, this.pos)) ?? src[this.pos] ?? '';
        this.pos += p.length;
        tok = this.token('punct', start, line, nl);
        if (p === '(' || p === '[' || p === '{') this.enter();
        else if ((p === ')' || p === ']' || p === '}') && this.depth > 0) this.depth--;
      }
      out.push(tok);
      nl = false;
    }
    return out;
  }

  /** One level deeper; past `MAX_NESTING` the scan stops, so nothing that walks the result can exhaust the stack. */
  private enter(): void {
    if (++this.depth > MAX_NESTING) throw new ScanError(this.line, `brackets and template literals are nested deeper than ${MAX_NESTING} levels`);
  }

  private token(kind: TokenKind, start: number, line: number, nl: boolean, extra: Partial<Token> = {}): Token {
    return { kind, start, end: this.pos, text: this.src.slice(start, this.pos), line, nl, ...extra };
  }

  private string(start: number, line: number, nl: boolean): Token {
    const src = this.src;
    const quote = src[this.pos];
    this.pos++;
    let value = '';
    while (this.pos < src.length) {
      const ch = src[this.pos] as string;
      if (ch === quote) {
        this.pos++;
        return this.token('str', start, line, nl, { value });
      }
      // An unterminated string ends at the line's end: the scan goes on.
      if (ch === '\n') break;
      if (ch === '\\') {
        const next = src[this.pos + 1] ?? '';
        if (next === '\n') this.line++;
        else if (next === 'u' || next === 'x') {
          const m = /^(?:u\{([0-9a-fA-F]+)\}|u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2}))/.exec(src.slice(this.pos + 1, this.pos + 12));
          if (m !== null) {
            const code = parseInt((m[1] ?? m[2] ?? m[3]) as string, 16);
            value += code <= 0x10ffff ? String.fromCodePoint(code) : '';
            this.pos += 1 + m[0].length;
            continue;
          }
        } else value += ESCAPES[next] ?? next;
        this.pos += 2;
        continue;
      }
      value += ch;
      this.pos++;
    }
    return this.token('str', start, line, nl, { value });
  }

  private template(start: number, line: number, nl: boolean): Token {
    const src = this.src;
    this.pos++;
    const parts: TemplatePart[] = [];
    let textStart = this.pos;
    while (this.pos < src.length) {
      const ch = src[this.pos];
      if (ch === '`') {
        parts.push({ kind: 'text', raw: src.slice(textStart, this.pos) });
        this.pos++;
        return this.token('tpl', start, line, nl, { parts });
      }
      if (ch === '\\') {
        if (src[this.pos + 1] === '\n') this.line++;
        this.pos += 2;
        continue;
      }
      if (ch === '\n') this.line++;
      if (ch === '$' && src[this.pos + 1] === '{') {
        parts.push({ kind: 'text', raw: src.slice(textStart, this.pos) });
        this.pos += 2;
        this.enter();
        const tokens = this.scanTokens(true);
        parts.push({ kind: 'expr', nodes: nest(tokens, this.line) });
        this.depth--;
        this.pos++; // the closing brace
        textStart = this.pos;
        continue;
      }
      this.pos++;
    }
    parts.push({ kind: 'text', raw: src.slice(textStart, this.pos) });
    return this.token('tpl', start, line, nl, { parts });
  }

  private regex(start: number, line: number, nl: boolean): Token {
    const src = this.src;
    let i = this.pos + 1;
    let inClass = false;
    while (i < src.length) {
      const ch = src[i];
      if (ch === '\n') break;
      if (ch === '\\') i += 2;
      else {
        if (ch === '[') inClass = true;
        else if (ch === ']') inClass = false;
        else if (ch === '/' && !inClass) {
          i++;
          while (i < src.length && isNamePart(src.charCodeAt(i))) i++;
          this.pos = i;
          return this.token('regex', start, line, nl);
        }
        i++;
      }
    }
    // No closing slash on the line: a division after all.
    this.pos++;
    return this.token('punct', start, line, nl);
  }
}

/** Whether a `/` after `prev` starts a regular expression. */
function regexAllowed(prev: Token | undefined): boolean {
  if (prev === undefined) return true;
  if (prev.kind === 'name') return BEFORE_REGEX.has(prev.text);
  if (prev.kind === 'punct') return prev.text !== ')' && prev.text !== ']' && prev.text !== '}' && prev.text !== '++' && prev.text !== '--';
  return false;
}

const CLOSE: Readonly<Record<string, string>> = { '(': ')', '[': ']', '{': '}' };

/** Nests tokens into bracket groups, with an explicit stack. An unmatched bracket is a `ScanError`. */
function nest(tokens: readonly Token[], lastLine: number): JsNode[] {
  const root: JsNode[] = [];
  const stack: { open: Token; items: JsNode[] }[] = [];
  let items = root;
  for (const t of tokens) {
    if (t.kind === 'punct' && CLOSE[t.text] !== undefined) {
      stack.push({ open: t, items });
      items = [];
    } else if (t.kind === 'punct' && (t.text === ')' || t.text === ']' || t.text === '}')) {
      const top = stack.pop();
      if (top === undefined || CLOSE[top.open.text] !== t.text) {
        throw new ScanError(t.line, top === undefined ? `"${t.text}" closes nothing` : `"${t.text}" closes the "${top.open.text}" of line ${top.open.line}`);
      }
      top.items.push({ kind: 'group', open: top.open, close: t, items });
      items = top.items;
    } else items.push(t);
  }
  const open = stack.pop();
  if (open !== undefined) throw new ScanError(lastLine, `the "${open.open.text}" of line ${open.open.line} is never closed`);
  return root;
}

/** The flat tokens of `src` (template literals' code is in their parts). Throws `ScanError`. */
export function scanTokens(src: string): Token[] {
  return new Scanner(src).scanTokens(false);
}

/** The tokens of `src` nested into bracket groups. Throws `ScanError` naming the line of a bracket that does not match. */
export function scanScript(src: string): JsNode[] {
  const scanner = new Scanner(src);
  const tokens = scanner.scanTokens(false);
  return nest(tokens, scanner.line);
}

/*
 * The guards below narrow to refined types (a group opened by a bracket, a token of a kind), so
 * a false answer narrows nothing away: `isPunct(t, ';')` being false says nothing of `t`'s type.
 */

/** A group, as the bracket guards see it. */
type BracketGroup = Group & { readonly open: Token & { readonly text: '(' | '[' | '{' } };
/** A token of one kind. */
type TokenOf<K extends TokenKind> = Token & { readonly kind: K };

/** True for a token. */
export const isToken = (n: JsNode | undefined): n is Token => n !== undefined && n.kind !== 'group';
/** True for a group opened by `open` (any when omitted). */
export const isGroup = (n: JsNode | undefined, open?: '(' | '[' | '{'): n is BracketGroup => n !== undefined && n.kind === 'group' && (open === undefined || n.open.text === open);
/** True for a name token `text` (any name when omitted). */
export const isName = (n: JsNode | undefined, text?: string): n is TokenOf<'name'> => n !== undefined && n.kind === 'name' && (text === undefined || n.text === text);
/** True for a punctuator `text`. */
export const isPunct = (n: JsNode | undefined, text: string): n is TokenOf<'punct'> => n !== undefined && n.kind === 'punct' && n.text === text;
/** The first token of a node. */
export const firstToken = (n: JsNode): Token => (n.kind === 'group' ? n.open : n);
/** The last token of a node. */
export const lastToken = (n: JsNode): Token => (n.kind === 'group' ? n.close : n);
