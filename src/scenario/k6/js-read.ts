/**
 * Reading scanned source (`js-scan.ts`) without running it: statements of a block (semicolons,
 * line breaks where JavaScript inserts one, and the block statements `if`/`for`/`try`/…),
 * comma-separated lists, and the value of a literal (objects, arrays, strings, numbers, `const`
 * names bound to literals), with anything else kept as `Unread` source text. Pure.
 */
import { firstToken, isGroup, isName, isPunct, isToken, lastToken, type JsNode, type Token } from './js-scan.js';

/** An expression that is not a literal: its source text and line, and the literal it falls back to, if any (`__ENV.X || 10`). */
export class Unread {
  constructor(
    readonly text: string,
    readonly line: number,
    readonly fallback?: unknown,
  ) {}
}

/** Names after which an expression is not finished: a line break does not end the statement. */
const OPERATOR_WORDS = new Set(['typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'await', 'yield', 'return', 'throw', 'case', 'extends']);
/** Punctuators that may start a statement, so a line break before them ends the one before. */
const STATEMENT_START_PUNCT = new Set(['++', '--', '!', '~', ';']);

/** The source text from the first to the last of `nodes`. */
export function textOf(src: string, nodes: readonly JsNode[]): string {
  const first = nodes[0];
  const last = nodes[nodes.length - 1];
  return first === undefined || last === undefined ? '' : src.slice(firstToken(first).start, lastToken(last).end);
}

/** Whether JavaScript would end a statement at the line break before `next` (automatic semicolon insertion, as it reads). */
function endsAtBreak(prev: JsNode, next: JsNode): boolean {
  const complete = isGroup(prev) || (prev.kind === 'name' ? !OPERATOR_WORDS.has(prev.text) : prev.kind !== 'punct' || prev.text === '++' || prev.text === '--');
  if (!complete) return false;
  if (isGroup(next)) return next.open.text === '{';
  if (next.kind === 'tpl') return false;
  if (next.kind === 'punct') return STATEMENT_START_PUNCT.has(next.text);
  return !(next.kind === 'name' && (next.text === 'in' || next.text === 'instanceof'));
}

/**
 * Where the statement starting at `i` ends (the index after it). Walked with an explicit stack of
 * the `if`s that may take an `else` and the `do`s that wait for their `while`, so a chain of
 * thousands of `else if` (or of unbraced nestings) cannot exhaust the stack.
 */
function statementEnd(nodes: readonly JsNode[], i: number): number {
  const pending: ('if' | 'do')[] = [];
  for (;;) {
    // Headers whose body is the statement that follows: `if (…)`, `for (…)`, `while (…)`, `do`, `else`.
    const t = nodes[i];
    if (isName(t, 'if')) {
      pending.push('if');
      i += isGroup(nodes[i + 1], '(') ? 2 : 1;
      continue;
    }
    if (isName(t, 'for') || isName(t, 'while') || isName(t, 'with')) {
      i++;
      if (isName(nodes[i], 'await')) i++;
      if (isGroup(nodes[i], '(')) i++;
      continue;
    }
    if (isName(t, 'do')) {
      pending.push('do');
      i++;
      continue;
    }
    let end = simpleStatementEnd(nodes, i);
    // Close what waited for this statement: an `else` goes on, a `do` takes its `while (…)`.
    for (;;) {
      const top = pending.pop();
      if (top === undefined) return end;
      if (top === 'if' && isName(nodes[end], 'else')) {
        i = end + 1;
        break;
      }
      if (top === 'do') {
        if (isName(nodes[end], 'while')) end++;
        if (isGroup(nodes[end], '(')) end++;
        if (isPunct(nodes[end], ';')) end++;
      }
    }
  }
}

/** Where a statement that is no `if`/`for`/`while`/`do` ends. */
function simpleStatementEnd(nodes: readonly JsNode[], i: number): number {
  const n = nodes.length;
  const t = nodes[i];
  if (t === undefined) return n;
  if (isPunct(t, ';') || isGroup(t, '{')) return i + 1;
  if (isName(t)) {
    const at = (j: number, word: string): boolean => isName(nodes[j], word);
    switch (t.text) {
      case 'try': {
        let j = i + 1;
        if (isGroup(nodes[j], '{')) j++;
        if (at(j, 'catch')) {
          j++;
          if (isGroup(nodes[j], '(')) j++;
          if (isGroup(nodes[j], '{')) j++;
        }
        if (at(j, 'finally')) j += isGroup(nodes[j + 1], '{') ? 2 : 1;
        return j;
      }
      case 'switch':
        return Math.min(n, i + 3);
      case 'export':
        if (at(i + 1, 'default') && declarationAt(nodes, i + 2)) return declarationEnd(nodes, i + 2);
        if (declarationAt(nodes, i + 1)) return declarationEnd(nodes, i + 1);
        break;
      case 'return':
      case 'break':
      case 'continue':
        if (nodes[i + 1] !== undefined && firstToken(nodes[i + 1] as JsNode).nl) return i + 1;
        break;
      default:
        if (declarationAt(nodes, i)) return declarationEnd(nodes, i);
    }
  }
  for (let j = i + 1; j < n; j++) {
    const node = nodes[j] as JsNode;
    if (isPunct(node, ';')) return j + 1;
    if (firstToken(node).nl && endsAtBreak(nodes[j - 1] as JsNode, node)) return j;
  }
  return n;
}

/** True when a function or class declaration starts at `i` (`function`, `async function`, `class`). */
function declarationAt(nodes: readonly JsNode[], i: number): boolean {
  return isName(nodes[i], 'function') || isName(nodes[i], 'class') || (isName(nodes[i], 'async') && isName(nodes[i + 1], 'function') && !firstToken(nodes[i + 1] as JsNode).nl);
}

/** The end of a declaration at `i`: after its body's braces. */
function declarationEnd(nodes: readonly JsNode[], i: number): number {
  for (let j = i; j < nodes.length; j++) if (isGroup(nodes[j], '{')) return j + 1;
  return nodes.length;
}

/** The statements of a block, each as its nodes. */
export function statementsOf(nodes: readonly JsNode[]): JsNode[][] {
  const out: JsNode[][] = [];
  for (let i = 0; i < nodes.length; ) {
    const end = Math.max(i + 1, statementEnd(nodes, i));
    out.push(nodes.slice(i, end));
    i = end;
  }
  return out;
}

/** `nodes` split at its top-level commas (a trailing comma leaves no empty last item). */
export function splitCommas(nodes: readonly JsNode[]): JsNode[][] {
  const out: JsNode[][] = [[]];
  for (const node of nodes) {
    if (isPunct(node, ',')) out.push([]);
    else (out[out.length - 1] as JsNode[]).push(node);
  }
  if (out.length > 1 && (out[out.length - 1] as JsNode[]).length === 0) out.pop();
  return out.length === 1 && (out[0] as JsNode[]).length === 0 ? [] : out;
}

/** A property of an object literal: its key (undefined when computed or spread) and its value's nodes. */
export interface Property {
  readonly key: string | undefined;
  readonly value: readonly JsNode[];
  readonly line: number;
}

/** The properties of an object literal's items (`{ a: 1, 'b': 2, c, ...d }`). */
export function propertiesOf(items: readonly JsNode[]): Property[] {
  return splitCommas(items).map((entry) => {
    const first = entry[0] as JsNode;
    const line = firstToken(first).line;
    const colon = entry.findIndex((x) => isPunct(x, ':'));
    if (colon === 1 && isToken(first) && (first.kind === 'name' || first.kind === 'str' || first.kind === 'num')) {
      return { key: first.kind === 'str' ? (first.value as string) : first.text, value: entry.slice(2), line };
    }
    if (entry.length === 1 && isName(first)) return { key: first.text, value: entry, line };
    return { key: undefined, value: entry, line };
  });
}

/** The value of a literal expression; `Unread` for what is not one. `consts` are names bound to literals earlier. */
export function literalOf(src: string, nodes: readonly JsNode[], consts: ReadonlyMap<string, unknown> = new Map()): unknown {
  const unread = (fallback?: unknown): Unread => new Unread(textOf(src, nodes), nodes[0] === undefined ? 0 : firstToken(nodes[0]).line, fallback);
  if (nodes.length === 1) {
    const node = nodes[0] as JsNode;
    if (isGroup(node, '{')) {
      const out: Record<string, unknown> = {};
      for (const p of propertiesOf(node.items)) {
        if (p.key === undefined || p.key === '__proto__') return unread();
        out[p.key] = literalOf(src, p.value, consts);
      }
      return out;
    }
    if (isGroup(node, '[')) return splitCommas(node.items).map((item) => literalOf(src, item, consts));
    if (isGroup(node, '(')) return literalOf(src, node.items, consts);
    if (isToken(node)) {
      const v = readToken(node, consts);
      return v === NO_VALUE ? unread() : v;
    }
  }
  if (nodes.length === 2 && isPunct(nodes[0], '-') && isToken(nodes[1]) && nodes[1].kind === 'num') return -Number((nodes[1] as Token).text.replace(/_/g, ''));
  // `__ENV.X || 10`: the literal it falls back to, marked as read from the environment.
  const or = nodes.findIndex((x) => isPunct(x, '||') || isPunct(x, '??'));
  if (or > 0) {
    const fallback = literalOf(src, nodes.slice(or + 1), consts);
    if (!(fallback instanceof Unread)) return unread(fallback);
  }
  return unread();
}

const NO_VALUE = Symbol('no value');

function readToken(t: Token, consts: ReadonlyMap<string, unknown>): unknown {
  if (t.kind === 'str') return t.value;
  if (t.kind === 'num') {
    const n = Number(t.text.replace(/_/g, ''));
    return Number.isFinite(n) ? n : NO_VALUE;
  }
  if (t.kind === 'tpl' && t.parts?.length === 1 && t.parts[0]?.kind === 'text' && !t.parts[0].raw.includes('\\')) return t.parts[0].raw;
  if (t.kind === 'name') {
    if (t.text === 'true') return true;
    if (t.text === 'false') return false;
    if (t.text === 'null') return null;
    if (consts.has(t.text)) return consts.get(t.text);
  }
  return NO_VALUE;
}
