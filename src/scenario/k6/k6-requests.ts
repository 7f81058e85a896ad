/**
 * One k6 request (`http.get(url, params)`, `http.post(url, body, params)`, `http.request(…)`)
 * as the journey's: the interface's operation when its method and URL match one of the
 * interface's paths (`POST …/flows/${id}/run` → `vu.run(id, body)`), `vu.http` otherwise, named
 * by its `name` tag or its URL. The URL is read from its text (a string, a template literal, a
 * concatenation); the arguments keep their own code. Pure.
 */
import { httpRowName } from '../../slo/k6-thresholds.js';
import type { OpName } from '../../core/ops.js';
import { isGroup, isName, isPunct, isToken, type JsNode, type Token } from './js-scan.js';
import { propertiesOf, splitCommas } from './js-read.js';

/** A URL read from its text: pieces of literal text and holes of code (`${id}`, `BASE + …`). */
type UrlPiece = { readonly text: string } | { readonly code: readonly JsNode[] };

/** The interface's operations by method and path (the path's last segments; `*` is an id). */
const OPERATION_PATHS: readonly { readonly method: string; readonly path: readonly string[]; readonly op: OpName }[] = [
  { method: 'POST', path: ['flows', '*', 'run'], op: 'run' },
  { method: 'POST', path: ['flows', '*', 'stream'], op: 'stream' },
  { method: 'GET', path: ['runs', '*'], op: 'getRun' },
  { method: 'GET', path: ['flows'], op: 'listFlows' },
  { method: 'GET', path: ['flows', '*'], op: 'getFlow' },
  { method: 'POST', path: ['sessions'], op: 'createSession' },
  { method: 'GET', path: ['sessions', '*', 'history'], op: 'getHistory' },
  { method: 'GET', path: ['analytics', 'usage'], op: 'getUsage' },
  { method: 'POST', path: ['api', 'v1', 'webhook', '*'], op: 'trigger' },
];

/** k6's request functions: their HTTP method, and where the body and params are among the arguments. */
export const K6_REQUEST_FUNCTIONS: Readonly<Record<string, { readonly method: string | undefined; readonly body: boolean }>> = {
  get: { method: 'GET', body: false },
  head: { method: 'HEAD', body: false },
  options: { method: 'OPTIONS', body: true },
  del: { method: 'DELETE', body: true },
  post: { method: 'POST', body: true },
  put: { method: 'PUT', body: true },
  patch: { method: 'PATCH', body: true },
  request: { method: undefined, body: true },
  asyncRequest: { method: undefined, body: true },
};

/** What the writer gives a request: how to write a piece of code, and what it learns. */
export interface RequestContext {
  /** The code of `nodes`, with k6's calls in it rewritten. */
  code(nodes: readonly JsNode[]): string;
  /** True for a name bound to k6/http (`http.url` tags a URL). */
  isHttp(name: string): boolean;
  /** The source text of `nodes`, as written. */
  text(nodes: readonly JsNode[]): string;
}

/** A converted request: the expression to write, the row it is counted in when known, and the k6 names that point at it. */
export interface ConvertedRequest {
  readonly text: string;
  readonly row: string | undefined;
  /** k6 `name` tag values (or the URL, k6's default name) of its requests. */
  readonly k6Names: readonly string[];
  /** Set when it could not be converted (the text then throws when it runs). */
  readonly problem?: string;
}

/** The URL of `nodes` as pieces, or undefined when it is no literal shape (a variable, a call). */
function urlPieces(nodes: readonly JsNode[], ctx: RequestContext): UrlPiece[] | undefined {
  // http.url`…` (k6's URL grouping) is its template.
  const tagged = nodes.length === 4 && isName(nodes[0]) && ctx.isHttp(nodes[0].text) && isPunct(nodes[1], '.') && isName(nodes[2], 'url') && isToken(nodes[3]) && nodes[3].kind === 'tpl';
  const operands = tagged ? [[nodes[3] as JsNode]] : splitOn(nodes, '+');
  const out: UrlPiece[] = [];
  for (const operand of operands) {
    const only = operand[0];
    if (operand.length === 1 && isToken(only) && only.kind === 'str') out.push({ text: only.value ?? '' });
    else if (operand.length === 1 && isToken(only) && only.kind === 'tpl') {
      for (const part of only.parts ?? []) out.push(part.kind === 'text' ? { text: part.raw } : { code: part.nodes });
    } else if (operands.length > 1) out.push({ code: operand });
    else return undefined;
  }
  return out;
}

function splitOn(nodes: readonly JsNode[], punct: string): JsNode[][] {
  const out: JsNode[][] = [[]];
  for (const n of nodes) {
    if (isPunct(n, punct)) out.push([]);
    else (out[out.length - 1] as JsNode[]).push(n);
  }
  return out;
}

/** A path segment: literal text, or one hole of code (an id). */
type Segment = { readonly text: string } | { readonly code: readonly JsNode[] } | { readonly mixed: true };

/** The path of a URL (no scheme, host or query) as segments, and whether it had a query. */
function pathSegments(pieces: readonly UrlPiece[]): { segments: Segment[]; query: boolean } {
  const segments: Segment[] = [];
  let current: UrlPiece[] = [];
  let query = false;
  let started = false;
  const flush = (): void => {
    if (current.length === 1 && 'code' in (current[0] as UrlPiece)) segments.push(current[0] as { code: readonly JsNode[] });
    else if (current.every((p) => 'text' in p)) segments.push({ text: current.map((p) => (p as { text: string }).text).join('') });
    else segments.push({ mixed: true });
    current = [];
  };
  for (const piece of pieces) {
    if (query) break;
    if ('code' in piece) {
      current.push(piece);
      continue;
    }
    let text = piece.text;
    // A scheme and host written out: the path starts after them.
    if (!started && /^https?:\/\//.test(text)) {
      const slash = text.indexOf('/', text.indexOf('//') + 2);
      text = slash < 0 ? '' : text.slice(slash);
    }
    started = true;
    const q = text.search(/[?#]/);
    if (q >= 0) {
      query = text[q] === '?';
      text = text.slice(0, q);
    }
    const parts = text.split('/');
    parts.forEach((part, i) => {
      if (i > 0) flush();
      if (part !== '') current.push({ text: part });
    });
    if (query) break;
  }
  flush();
  while (segments.length > 0 && 'text' in (segments[segments.length - 1] as Segment) && (segments[segments.length - 1] as { text: string }).text === '') segments.pop();
  return { segments, query };
}

/** The operation the method and URL name, with the code of its id when it has one. */
function operationOf(method: string, pieces: readonly UrlPiece[] | undefined, ctx: RequestContext): { op: OpName; id: string | undefined; query: boolean } | undefined {
  if (pieces === undefined) return undefined;
  const { segments, query } = pathSegments(pieces);
  for (const o of OPERATION_PATHS) {
    if (o.method !== method || segments.length < o.path.length) continue;
    const tail = segments.slice(segments.length - o.path.length);
    let id: string | undefined;
    const fits = o.path.every((want, i) => {
      const seg = tail[i] as Segment;
      if (want !== '*') return 'text' in seg && seg.text === want;
      if ('code' in seg) id = ctx.code(seg.code);
      else if ('text' in seg && seg.text !== '') id = JSON.stringify(decodeURIComponent(seg.text));
      else return false;
      return true;
    });
    if (fits) return { op: o.op, id, query };
  }
  return undefined;
}

/** The row name of a request from its URL's text: its path (`get-flows-_-history`), else its host (`get-test.k6.io`). */
function nameFromUrl(method: string, pieces: readonly UrlPiece[] | undefined, urlNodes: readonly JsNode[], ctx: RequestContext): string {
  if (pieces === undefined) return httpRowName(`${method.toLowerCase()}-${ctx.text(urlNodes)}`);
  const text = pieces.map((p) => ('text' in p ? p.text : '_')).join('').replace(/[?#].*$/, '');
  const host = /^https?:\/\/([^/]*)/.exec(text);
  // A base in code (`${BASE}/flows`) is left out; a host written out is, unless the path is empty.
  const path = host !== null ? text.slice(host[0].length) : text.replace(/^_+/, '');
  return httpRowName(`${method.toLowerCase()}-${path.replace(/^\/+|\/+$/g, '') || host?.[1] || 'request'}`);
}

/** The literal `tags: { name: '…' }` of a params object written out, if any. */
function taggedName(params: readonly JsNode[] | undefined): string | undefined {
  const only = params?.[0];
  if (params?.length !== 1 || !isGroup(only, '{')) return undefined;
  const tags = propertiesOf(only.items).find((p) => p.key === 'tags')?.value;
  const group = tags?.[0];
  if (tags?.length !== 1 || !isGroup(group, '{')) return undefined;
  const name = propertiesOf(group.items).find((p) => p.key === 'name')?.value;
  const t = name?.[0] as Token | undefined;
  return name?.length === 1 && t?.kind === 'str' ? t.value : undefined;
}

/** The body's code for an operation: `JSON.stringify(x)` gives `x`; anything else is parsed when it runs. */
function bodyCode(body: readonly JsNode[] | undefined, ctx: RequestContext): string {
  if (body === undefined || body.length === 0) return '{}';
  if (body.length === 4 && isName(body[0], 'JSON') && isPunct(body[1], '.') && isName(body[2], 'stringify') && isGroup(body[3], '(')) {
    const args = splitCommas(body[3].items);
    if (args.length === 1) return ctx.code(args[0] as JsNode[]);
  }
  return `k6Json(${ctx.code(body)})`;
}

/**
 * `fn` of k6/http called with `argsGroup`'s arguments, as the journey's request. `fn` is a key of
 * `K6_REQUEST_FUNCTIONS`; `request` takes its method first.
 */
export function convertRequest(fn: string, args: readonly (readonly JsNode[])[], ctx: RequestContext): ConvertedRequest {
  const spec = K6_REQUEST_FUNCTIONS[fn] as { method: string | undefined; body: boolean };
  const rest = spec.method === undefined ? args.slice(1) : args;
  const methodNodes = spec.method === undefined ? args[0] : undefined;
  const methodToken = methodNodes?.length === 1 && isToken(methodNodes[0]) && methodNodes[0].kind === 'str' ? methodNodes[0].value?.toUpperCase() : undefined;
  const method = spec.method ?? methodToken;
  const [urlNodes = [], maybeBody, maybeParams] = rest;
  const body = spec.body ? maybeBody : undefined;
  const params = spec.body ? maybeParams : maybeBody;
  const pieces = urlPieces(urlNodes, ctx);
  const tag = taggedName(params);
  const urlText = pieces === undefined ? undefined : pieces.map((p) => ('text' in p ? p.text : '${…}')).join('');
  const k6Names = [tag ?? urlText].filter((x): x is string => x !== undefined);
  if (method === 'HEAD' || method === 'OPTIONS') {
    return { text: `k6NotConverted(${JSON.stringify(`http.${fn} (${method})`)})`, row: undefined, k6Names: [], problem: `http.${fn}: flowgauge sends GET, POST, PUT, PATCH and DELETE` };
  }
  const op = method === undefined ? undefined : operationOf(method, pieces, ctx);
  if (op !== undefined) {
    const opts = params === undefined ? '' : `, k6Options(${ctx.code(params)})`;
    const url = ctx.code(urlNodes);
    const query = op.query ? `k6Query(${url})` : opts === '' ? '' : 'undefined';
    const call: Record<OpName, string> = {
      run: `vu.run(${op.id}, ${bodyCode(body, ctx)}${opts})`,
      stream: `vu.stream(${op.id}, ${bodyCode(body, ctx)}${opts})`,
      getRun: `vu.getRun(${op.id}${opts})`,
      listFlows: `vu.listFlows(${query}${opts})`,
      getFlow: `vu.getFlow(${op.id}${opts})`,
      createSession: `vu.createSession(${bodyCode(body, ctx)}${opts})`,
      getHistory: `vu.getHistory(${op.id}${opts})`,
      getUsage: `vu.getUsage(${query}${opts})`,
      trigger: `vu.trigger(${op.id}, ${bodyCode(body, ctx)}${opts})`,
    };
    return { text: `k6Response(await ${call[op.op]})`, row: op.op, k6Names };
  }
  const name = httpRowName(tag ?? nameFromUrl(method ?? 'request', pieces, urlNodes, ctx));
  const methodCode = method !== undefined ? `'${method}'` : ctx.code(methodNodes ?? []);
  const bodyArg = body === undefined ? 'undefined' : ctx.code(body);
  const paramsArg = params === undefined ? 'undefined' : ctx.code(params);
  // A name tag given at run time (params in a variable) names the row then: its name is not known here.
  const only = params?.[0];
  const known = params === undefined || tag !== undefined || (params.length === 1 && isGroup(only, '{') && !propertiesOf(only.items).some((p) => p.key === 'tags' || p.key === undefined));
  return { text: `k6Response(await vu.http(k6Request(${methodCode}, ${ctx.code(urlNodes)}, ${bodyArg}, ${paramsArg}, '${name}')))`, row: known ? `http:${name}` : undefined, k6Names };
}
