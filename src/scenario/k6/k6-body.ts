/**
 * Writing a k6 function's code as the journey's: the source kept as written (comments and
 * layout too) except k6's calls — `http.*` as operations or `vu.http` (`k6-requests.ts`),
 * `check` as `vu.check`, `sleep` as `vu.sleep`, `group` as `vu.step`, `fail` as `vu.fail`, the
 * script's own helpers given `vu`, `__ENV` as `process.env`, `__ITER` as `vu.iteration`.
 * What cannot be converted gets a `// flowgauge: not converted: …` line before its statement
 * and, where it would run, a stub that fails the iteration saying so. Pure.
 */
import { firstToken, isGroup, isName, isPunct, isToken, lastToken, type Group, type JsNode, type Token } from './js-scan.js';
import { splitCommas, statementsOf, textOf } from './js-read.js';
import { convertRequest, K6_REQUEST_FUNCTIONS, type RequestContext } from './k6-requests.js';

/** The names the script binds to k6's API. */
export interface K6Bindings {
  /** Names of the k6/http module (`import http from 'k6/http'`). */
  readonly http: ReadonlySet<string>;
  /** Functions imported from k6/http by name: local name → k6's name (`get`, `post`, …). */
  readonly httpFunctions: ReadonlyMap<string, string>;
  /** Functions imported from k6: local name → k6's name (`check`, `sleep`, `group`, `fail`, `randomSeed`), and k6's global `open`. */
  readonly k6Functions: ReadonlyMap<string, string>;
  /** The script's own functions that send requests: they are given `vu` and awaited. */
  readonly helpers: ReadonlySet<string>;
}

/** What writing the code learns, for the rest of the file. */
export interface WriteState {
  /** Rows of `ops` the code sends, as far as they are known before it runs. */
  readonly rows: Set<string>;
  /** k6 `name` tags and URLs → the row their requests are counted in. */
  readonly k6Names: Map<string, string>;
  /** Shims the code calls. */
  readonly shims: Set<string>;
  /** Whether some request's row is named only when it runs (a batch, params in a variable). */
  dynamicRows: boolean;
  /** Seconds of `sleep(n)` with a literal `n`, summed. */
  sleepS: number;
  /** Notes raised and not yet placed before a statement. */
  readonly notes: string[];
}

/** A fresh state. */
export const createWriteState = (): WriteState => ({ rows: new Set(), k6Names: new Map(), shims: new Set(), dynamicRows: false, sleepS: 0, notes: [] });

/** Words before a `(…) {…}` whose braces are a block of the same function, not a function's body. */
const BLOCK_WORDS = new Set(['if', 'for', 'while', 'with', 'switch', 'catch']);

/** Writes code of a k6 script as a journey's. */
export class BodyWriter {
  constructor(
    private readonly src: string,
    private readonly names: K6Bindings,
    readonly state: WriteState,
    /** False in the script's top level (its init code), where there is no `vu`. */
    private readonly hasVu: boolean,
  ) {}

  /** The statements of a block, from source offset `from` to `to`, each after the notes raised in it. */
  block(items: readonly JsNode[], from: number, to: number, inAsync: boolean): string {
    let out = '';
    let pos = from;
    for (const stmt of statementsOf(items)) {
      const first = firstToken(stmt[0] as JsNode);
      const end = lastToken(stmt[stmt.length - 1] as JsNode).end;
      const before = this.state.notes.length;
      const text = this.seq(stmt, first.start, end, inAsync);
      const notes = [...new Set(this.state.notes.splice(before))];
      out += this.src.slice(pos, first.start) + notes.map((n) => `// flowgauge: not converted: ${n}\n${this.indentOf(first)}`).join('') + text;
      pos = end;
    }
    return out + this.src.slice(pos, to);
  }

  /** The leading whitespace of the line `t` is on. */
  private indentOf(t: Token): string {
    const lineStart = this.src.lastIndexOf('\n', t.start - 1) + 1;
    return /^[ \t]*/.exec(this.src.slice(lineStart, t.start))?.[0] ?? '';
  }

  /** `nodes`, from source offset `from` to `to`, with k6's calls rewritten. */
  seq(nodes: readonly JsNode[], from: number, to: number, inAsync: boolean): string {
    let out = '';
    let pos = from;
    for (let k = 0; k < nodes.length; ) {
      const node = nodes[k] as JsNode;
      out += this.src.slice(pos, firstToken(node).start);
      const m = this.call(nodes, k, inAsync);
      if (m !== undefined) {
        out += m.text;
        pos = lastToken(nodes[m.end - 1] as JsNode).end;
        k = m.end;
        continue;
      }
      if (isPunct(node, '=>') && !isGroup(nodes[k + 1], '{')) {
        // An arrow's expression body runs to the next comma or semicolon of this level.
        let end = k + 1;
        while (end < nodes.length && !isPunct(nodes[end], ',') && !isPunct(nodes[end], ';')) end++;
        const body = nodes.slice(k + 1, end);
        const last = body[body.length - 1];
        out += '=>';
        if (last !== undefined) out += this.src.slice(node.end, firstToken(body[0] as JsNode).start) + this.seq(body, firstToken(body[0] as JsNode).start, lastToken(last).end, this.asyncArrow(nodes, k));
        pos = last === undefined ? node.end : lastToken(last).end;
        k = end;
        continue;
      }
      out += this.node(nodes, k, inAsync);
      pos = lastToken(node).end;
      k++;
    }
    return out + this.src.slice(pos, to);
  }

  /** One node: a group (a function's body, a block or a literal), a template, a name, a token. */
  private node(nodes: readonly JsNode[], k: number, inAsync: boolean): string {
    const node = nodes[k] as JsNode;
    if (node.kind === 'group') {
      const inner = (asBlock: boolean, isAsync: boolean): string =>
        node.open.text + (asBlock ? this.block(node.items, node.open.end, node.close.start, isAsync) : this.seq(node.items, node.open.end, node.close.start, isAsync)) + node.close.text;
      if (node.open.text !== '{') return inner(false, inAsync);
      const body = this.functionBody(nodes, k);
      if (body !== undefined) return inner(true, body.isAsync);
      const prev = nodes[k - 1];
      const isBlock = k === 0 || isPunct(prev, ';') || (isName(prev) && ['else', 'try', 'finally', 'do'].includes(prev.text)) || (isGroup(prev, '(') && isName(nodes[k - 2]) && BLOCK_WORDS.has((nodes[k - 2] as Token).text));
      return inner(isBlock, inAsync);
    }
    if (node.kind === 'tpl') {
      return `\`${(node.parts ?? []).map((p) => (p.kind === 'text' ? p.raw : `\${${p.nodes.length === 0 ? '' : this.seq(p.nodes, firstToken(p.nodes[0] as JsNode).start, lastToken(p.nodes[p.nodes.length - 1] as JsNode).end, inAsync)}}`)).join('')}\``;
    }
    const property = isPunct(nodes[k - 1], '.') || isPunct(nodes[k - 1], '?.');
    if (node.kind === 'name' && !property) {
      if (node.text === '__ENV') return 'process.env';
      if (node.text === '__ITER' && this.hasVu) return 'vu.iteration';
      if (node.text === '__VU') {
        this.state.notes.push('__VU (an open model has no numbered VUs; vu.iteration numbers the iterations)');
        return this.hasVu ? '(vu.iteration + 1)' : '1';
      }
    }
    return node.text;
  }

  /** Whether the `{…}` at `k` is a function's body, and whether that function is async. */
  private functionBody(nodes: readonly JsNode[], k: number): { isAsync: boolean } | undefined {
    const prev = nodes[k - 1];
    if (isPunct(prev, '=>')) return { isAsync: this.asyncArrow(nodes, k - 1) };
    if (!isGroup(prev, '(')) return undefined;
    let j = k - 2;
    const name = nodes[j];
    if (isName(name) && BLOCK_WORDS.has(name.text)) return undefined;
    if (isName(name) && name.text !== 'function') j--;
    if (isPunct(nodes[j], '*')) j--;
    const isFunction = isName(nodes[j], 'function');
    // A method (`name() {…}`, `async name() {…}`) or a function.
    if (!isFunction && !isName(name)) return undefined;
    return { isAsync: isName(nodes[isFunction ? j - 1 : j], 'async') };
  }

  /** Whether the arrow `=>` at `k` is async (`async (x) => …`, `async x => …`). */
  private asyncArrow(nodes: readonly JsNode[], k: number): boolean {
    return isName(nodes[k - 2], 'async');
  }

  /** A call of k6's API (or of a helper that sends requests) at `k`, rewritten; undefined when there is none. */
  private call(nodes: readonly JsNode[], k: number, inAsync: boolean): { end: number; text: string } | undefined {
    const node = nodes[k];
    if (!isName(node) || isPunct(nodes[k - 1], '.') || isPunct(nodes[k - 1], '?.') || isName(nodes[k - 1], 'function')) return undefined;
    // A method of the same name (`{ check(x) {…} }`) is no call.
    if (isGroup(nodes[k + 1], '(') && isGroup(nodes[k + 2], '{')) return undefined;
    // http.get(…), http.batch(…), http.url`…`, and k6/http's other members.
    if (this.names.http.has(node.text) && isPunct(nodes[k + 1], '.') && isName(nodes[k + 2])) {
      const member = (nodes[k + 2] as Token).text;
      const args = nodes[k + 3];
      if (member === 'url' && isToken(args) && args.kind === 'tpl') return { end: k + 4, text: this.node(nodes, k + 3, inAsync) };
      if (!isGroup(args, '(')) return undefined;
      return { end: k + 4, text: this.request(member, args, inAsync, `${node.text}.${member}`) };
    }
    const args = nodes[k + 1];
    if (!isGroup(args, '(')) return undefined;
    const httpFunction = this.names.httpFunctions.get(node.text);
    if (httpFunction !== undefined) return { end: k + 2, text: this.request(httpFunction, args, inAsync, node.text) };
    const k6 = this.names.k6Functions.get(node.text);
    if (k6 !== undefined) return { end: k + 2, text: this.k6Call(k6, node.text, args, inAsync) };
    if (this.names.helpers.has(node.text)) {
      const list = this.args(args, inAsync);
      return { end: k + 2, text: this.awaited(`${node.text}(...)`, inAsync, () => `(await ${node.text}(${['vu', ...list].join(', ')}))`) };
    }
    return undefined;
  }

  /** The arguments of a call's group, each written. */
  private args(group: Group, inAsync: boolean): string[] {
    return splitCommas(group.items).map((arg) => this.seq(arg, firstToken(arg[0] as JsNode).start, lastToken(arg[arg.length - 1] as JsNode).end, inAsync));
  }

  /** `make()` where the journey can await (with `vu` in reach); a stub that fails saying why elsewhere. */
  private awaited(what: string, inAsync: boolean, make: () => string): string {
    if (this.hasVu && inAsync) return make();
    const why = this.hasVu ? `${what} in a function that is not async (make it async and await it)` : `${what} in the script's init code (k6 sends no request there either)`;
    this.state.notes.push(why);
    return this.stub(what);
  }

  /**
   * What stands where a call was not converted: in an iteration, a call that fails it saying so;
   * in the init code, `undefined`, so the file still loads.
   */
  private stub(what: string): string {
    if (!this.hasVu) return 'undefined';
    this.state.shims.add('k6NotConverted');
    return `k6NotConverted(${JSON.stringify(what)})`;
  }

  /** A k6/http function's call. */
  private request(fn: string, group: Group, inAsync: boolean, shown: string): string {
    if (fn === 'batch') {
      const list = this.args(group, inAsync);
      return this.awaited(`${shown}(...)`, inAsync, () => {
        this.state.shims.add('k6Batch');
        this.state.dynamicRows = true;
        return `(await k6Batch(vu, ${list.join(', ')}))`;
      });
    }
    if (K6_REQUEST_FUNCTIONS[fn] === undefined) {
      this.state.notes.push(`${shown}(...) (k6/http's ${fn} has no flowgauge form)`);
      return this.stub(`${shown}(...)`);
    }
    return this.awaited(`${shown}(...)`, inAsync, () => {
      const ctx: RequestContext = {
        code: (nodes) => (nodes.length === 0 ? '' : this.seq(nodes, firstToken(nodes[0] as JsNode).start, lastToken(nodes[nodes.length - 1] as JsNode).end, inAsync)),
        isHttp: (name) => this.names.http.has(name),
        text: (nodes) => textOf(this.src, nodes),
      };
      const r = convertRequest(fn, splitCommas(group.items), ctx);
      if (r.problem !== undefined) {
        this.state.notes.push(r.problem);
        this.state.shims.add('k6NotConverted');
        return r.text;
      }
      this.state.shims.add('k6Response');
      if (r.text.includes('k6Request(')) this.state.shims.add('k6Request');
      for (const s of ['k6Json', 'k6Query', 'k6Options']) if (r.text.includes(`${s}(`)) this.state.shims.add(s);
      if (r.row === undefined) this.state.dynamicRows = true;
      else {
        this.state.rows.add(r.row);
        for (const n of r.k6Names) this.state.k6Names.set(n, r.row);
      }
      return r.text;
    });
  }

  /** A call of k6's own functions: check, sleep, group, fail, randomSeed. */
  private k6Call(fn: string, local: string, group: Group, inAsync: boolean): string {
    const args = splitCommas(group.items);
    const list = this.args(group, inAsync);
    switch (fn) {
      case 'check':
        if (!this.hasVu) break;
        this.state.shims.add('k6Check');
        return `k6Check(${['vu', ...list].join(', ')})`;
      case 'sleep':
        return this.awaited(`${local}(...)`, inAsync, () => {
          const only = args[0]?.[0];
          if (args.length === 1 && args[0]?.length === 1 && isToken(only) && only.kind === 'num') {
            const s = Number(only.text.replace(/_/g, ''));
            if (Number.isFinite(s)) {
              this.state.sleepS += s;
              return `await vu.sleep('${s}s')`;
            }
          }
          return `await vu.sleep((${list[0] ?? '0'}) * 1000)`;
        });
      case 'group': {
        const fnNodes = args[1];
        if (args.length !== 2 || fnNodes === undefined) break;
        return this.awaited(`${local}(...)`, inAsync, () => `await vu.step(${list[0] as string}, ${this.groupCallback(fnNodes)})`);
      }
      case 'fail':
        if (!this.hasVu) break;
        return `vu.fail(${list.join(', ')})`;
      case 'open':
        this.state.shims.add('k6Open');
        return `k6Open(${list.join(', ')})`;
    }
    this.state.notes.push(`${local}(...) (${fn === 'randomSeed' ? "flowgauge's data order is set by the scenario's seed" : `k6's ${fn} has no flowgauge form here`})`);
    return this.stub(`${local}(...)`);
  }

  /** A group's callback as the async function vu.step runs: `function () {…}` and `() => {…}` alike. */
  private groupCallback(nodes: readonly JsNode[]): string {
    const body = nodes[nodes.length - 1];
    const params = nodes.find((n) => isGroup(n, '('));
    if (isGroup(body, '{') && params !== undefined) return `async () => {${this.block(body.items, body.open.end, body.close.start, true)}}`;
    const arrow = nodes.findIndex((n) => isPunct(n, '=>'));
    if (arrow >= 0) {
      const expr = nodes.slice(arrow + 1);
      return `async () => ${this.seq(expr, firstToken(expr[0] as JsNode).start, lastToken(expr[expr.length - 1] as JsNode).end, true)}`;
    }
    // A function passed by name: awaited, so a helper that sends requests may be given too.
    const code = this.seq(nodes, firstToken(nodes[0] as JsNode).start, lastToken(body as JsNode).end, true);
    return this.names.helpers.has(code) ? `() => ${code}(vu)` : `async () => (${code})()`;
  }
}
