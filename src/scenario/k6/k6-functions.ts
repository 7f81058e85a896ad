/**
 * The functions of a k6 script's top level, read from their statements: `export default
 * function`, `export function name`, `function name`, `const name = (…) => {…}`; which of them
 * reach k6's API (and so take `vu` in the converted file); and each written back as an async
 * function of `vu`. Pure.
 */
import { firstToken, isGroup, isName, isPunct, isToken, lastToken, type Group, type JsNode, type Token } from './js-scan.js';
import { textOf } from './js-read.js';
import type { BodyWriter, K6Bindings } from './k6-body.js';

/** A function of the script's top level. */
export interface ScriptFunction {
  /** Its name in the script; undefined for an unnamed default export. */
  readonly name: string | undefined;
  readonly isDefault: boolean;
  readonly isAsync: boolean;
  /** Its parameters as written, without the parentheses. */
  readonly params: string;
  readonly body: Group;
}

/** The function a top-level statement declares, if it declares one. */
export function functionOf(src: string, stmt: readonly JsNode[]): ScriptFunction | undefined {
  let i = 0;
  if (isName(stmt[i], 'export')) i++;
  const isDefault = isName(stmt[i], 'default');
  if (isDefault) i++;
  let name: string | undefined;
  if (isName(stmt[i]) && ['const', 'let', 'var'].includes((stmt[i] as Token).text) && isName(stmt[i + 1]) && isPunct(stmt[i + 2], '=')) {
    name = (stmt[i + 1] as Token).text;
    i += 3;
  }
  const isAsync = isName(stmt[i], 'async');
  if (isAsync) i++;
  let params: JsNode | undefined;
  let body: JsNode | undefined;
  // A TypeScript script may type the parameters' function (`(): void`, `: Promise<void>`) before its body.
  const afterType = (from: number, stop: (n: JsNode | undefined) => boolean): number => {
    let j = from;
    while (j < stmt.length && !stop(stmt[j])) j++;
    return j;
  };
  if (isName(stmt[i], 'function')) {
    i++;
    if (isPunct(stmt[i], '*')) return undefined;
    if (isName(stmt[i])) name ??= (stmt[i++] as Token).text;
    params = stmt[i];
    body = stmt[afterType(i + 1, (n) => isGroup(n, '{'))];
  } else if (isGroup(stmt[i], '(') || isName(stmt[i])) {
    const arrow = afterType(i + 1, (n) => isPunct(n, '=>') || isPunct(n, ';') || isGroup(n, '{'));
    if (!isPunct(stmt[arrow], '=>')) return undefined;
    [params, body] = [stmt[i], stmt[arrow + 1]];
  } else return undefined;
  if (!isGroup(body, '{') || params === undefined) return undefined;
  const paramText = isGroup(params, '(') ? textOf(src, params.items) : (params as Token).text;
  return { name, isDefault, isAsync, params: paramText, body };
}

/**
 * What `nodes` (templates' code included) call: whether k6's API directly, and which of the
 * script's functions (`declared`). Walked with an explicit stack.
 */
function callsOf(nodes: readonly JsNode[], names: K6Bindings, declared: ReadonlySet<string>): { k6: boolean; calls: Set<string> } {
  const calls = new Set<string>();
  let k6 = false;
  const stack: (readonly JsNode[])[] = [nodes];
  for (let list = stack.pop(); list !== undefined; list = stack.pop()) {
    for (let k = 0; k < list.length; k++) {
      const n = list[k] as JsNode;
      if (isGroup(n)) stack.push(n.items);
      if (n.kind === 'group') continue;
      if (n.kind === 'tpl') for (const p of n.parts ?? []) if (p.kind === 'expr') stack.push(p.nodes);
      if (n.kind !== 'name' || isPunct(list[k - 1], '.')) continue;
      const called = isGroup(list[k + 1], '(');
      const fn = names.k6Functions.get(n.text);
      if ((names.http.has(n.text) && isPunct(list[k + 1], '.')) || (called && (names.httpFunctions.has(n.text) || (fn !== undefined && fn !== 'open' && fn !== 'randomSeed')))) k6 = true;
      else if (called && declared.has(n.text)) calls.add(n.text);
    }
  }
  return { k6, calls };
}

/** The script's functions that reach k6's API, themselves or through one another (each body read once). */
export function functionsReachingK6(functions: readonly ScriptFunction[], names: K6Bindings): Set<string> {
  const declared = new Set(functions.flatMap((f) => (f.name === undefined ? [] : [f.name])));
  const callers = new Map<string, Set<string>>();
  const reach = new Set<string>();
  for (const f of functions) {
    if (f.name === undefined) continue;
    const { k6, calls } = callsOf(f.body.items, names, declared);
    if (k6) reach.add(f.name);
    for (const c of calls) callers.set(c, (callers.get(c) ?? new Set()).add(f.name));
  }
  // What calls a function that reaches k6 reaches it too.
  const queue = [...reach];
  for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
    for (const caller of callers.get(name) ?? []) {
      if (!reach.has(caller)) {
        reach.add(caller);
        queue.push(caller);
      }
    }
  }
  return reach;
}

/** A function written as an async function of `vu` (its own parameters after), under `name`. */
export function writeVuFunction(f: ScriptFunction, name: string, writer: BodyWriter): string {
  const body = writer.block(f.body.items, f.body.open.end, f.body.close.start, true);
  return `async function ${name}(vu: Vu${f.params.trim() === '' ? '' : `, ${f.params}`}) {${body}}`;
}

/** The source text of a statement, every line commented out. */
export function commentedOut(src: string, stmt: readonly JsNode[]): string {
  const start = firstToken(stmt[0] as JsNode).start;
  const end = lastToken(stmt[stmt.length - 1] as JsNode).end;
  return src.slice(start, end).split('\n').map((l) => `// ${l}`).join('\n');
}

/** True for a statement `export default name;` (the default export is a function declared elsewhere). */
export function defaultExportName(stmt: readonly JsNode[]): string | undefined {
  const [a, b, c, d] = stmt;
  return isName(a, 'export') && isName(b, 'default') && isName(c) && (d === undefined || isPunct(d, ';')) && stmt.length <= 4 && isToken(c) ? c.text : undefined;
}
