/**
 * The few lines of k6's API a converted journey keeps calling, written into the scenario file
 * itself (only those it uses): k6's response shape read from flowgauge's results, `check` on
 * `vu.check`, a request's name from its tags, custom metrics that count nothing, and a stub that
 * says what was not converted when it runs. Each is plain TypeScript the user may edit, in the
 * erasable syntax Node's own type stripping runs (no parameter properties, enums or namespaces).
 */

/** A shim: its code, and the shims it calls. */
interface Shim {
  readonly code: string;
  readonly needs?: readonly string[];
  /** An import the code needs (`node:fs`). */
  readonly imports?: string;
}

const SHIMS: Readonly<Record<string, Shim>> = {
  k6Response: {
    code: `/** k6's response, read from what an operation or vu.http resolved to (status 0: no answer). */
function k6Response(r: { ok: boolean; meta: { status: number; startNs: number; endNs: number }; value?: unknown; error?: { message: string }; response?: { status: number; headers: Readonly<Record<string, string>>; body: string } }) {
  const body = r.response !== undefined ? r.response.body : r.ok && r.value !== undefined ? JSON.stringify(r.value) : '';
  return {
    status: r.response?.status ?? r.meta.status,
    body,
    headers: r.response?.headers ?? {},
    error: r.ok ? '' : (r.error?.message ?? 'failed'),
    timings: { duration: (r.meta.endNs - r.meta.startNs) / 1e6 },
    /** The body as JSON; a selector such as "flows.0.id" picks a part of it. */
    json(selector?: string): any {
      let v: any = r.response === undefined && r.ok ? r.value : JSON.parse(body);
      for (const key of selector === undefined ? [] : selector.split('.')) v = v?.[key];
      return v;
    },
  };
}`,
  },
  k6RowName: {
    code: `/** A k6 name tag as the name of a vu.http row: letters, digits, ".", "_", "-" (at most 64). */
function k6RowName(tag: string): string {
  const name = tag.replace(/^https?:\\/\\//, '').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/-{2,}/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 64);
  return name === '' ? 'request' : name;
}`,
  },
  k6Request: {
    needs: ['k6RowName'],
    code: `/** k6's request as vu.http's, counted as ops["http:<name>"]: the name tag of its params, else \`name\`. */
function k6Request(method: string, url: string, body: unknown, params: { headers?: Record<string, string>; tags?: Record<string, string> } | null | undefined, name: string): Parameters<Vu['http']>[0] {
  const tag = params?.tags?.name;
  return {
    name: tag === undefined ? name : k6RowName(String(tag)),
    method: (method.toUpperCase() === 'DEL' ? 'DELETE' : method.toUpperCase()) as 'GET',
    url,
    ...(params?.headers !== undefined ? { headers: params.headers } : {}),
    ...(body !== undefined && body !== null ? { body } : {}),
  };
}`,
  },
  k6Json: {
    code: `/** A request body written as k6 sends it, as the operation takes it: JSON text is parsed. */
function k6Json(body: unknown): any {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}`,
  },
  k6Query: {
    code: `/** The query of a URL, for the operations that take one (listFlows, getUsage). */
function k6Query(url: string): any {
  return Object.fromEntries(new URL(url, 'http://flowgauge.invalid').searchParams);
}`,
  },
  k6Options: {
    code: `/** The headers of k6's params, for an operation's call. */
function k6Options(params: { headers?: Record<string, string> } | null | undefined) {
  return params?.headers !== undefined ? { headers: params.headers } : {};
}`,
  },
  k6Check: {
    code: `/** k6's check: each named condition recorded with vu.check (checks.<name> in the report); one that throws fails. */
function k6Check<T>(vu: Vu, value: T, sets: Record<string, boolean | ((value: T) => unknown)>): boolean {
  let all = true;
  for (const [name, test] of Object.entries(sets)) {
    let ok = false;
    try {
      ok = Boolean(typeof test === 'function' ? test(value) : test);
    } catch {
      ok = false;
    }
    all = vu.check(name, ok) && all;
  }
  return all;
}`,
  },
  k6Batch: {
    needs: ['k6Request', 'k6Response', 'k6RowName'],
    code: `/** k6's http.batch: the requests at once, each by vu.http (named by its tag, else its method and URL). */
async function k6Batch(vu: Vu, requests: any): Promise<any> {
  const one = async (r: any) => {
    const [method, url, body, params] = typeof r === 'string' ? ['GET', r] : Array.isArray(r) ? r : [r.method ?? 'GET', r.url, r.body, r.params];
    return k6Response(await vu.http(k6Request(method, url, body, params, k6RowName(\`\${String(method).toLowerCase()}-\${new URL(url, 'http://flowgauge.invalid').pathname}\`))));
  };
  if (Array.isArray(requests)) return Promise.all(requests.map(one));
  const keys = Object.keys(requests);
  const answers = await Promise.all(keys.map((k) => one(requests[k])));
  return Object.fromEntries(keys.map((k, i) => [k, answers[i]]));
}`,
  },
  k6NotConverted: {
    code: `/** Where a call was not converted: reaching it fails the iteration with this message. */
function k6NotConverted(what: string): never {
  throw new Error(\`flowgauge: not converted: \${what}\`);
}`,
  },
  k6Stub: {
    code: `/** A name imported from a module that was not converted: using it fails the iteration with this message. */
function k6Stub(what: string): any {
  const fail = (): never => {
    throw new Error(\`flowgauge: not converted: \${what}\`);
  };
  return new Proxy(fail, { get: fail, apply: fail, construct: fail });
}`,
  },
  K6Metric: {
    code: `/** k6's custom metrics (Trend, Rate, Counter, Gauge): flowgauge keeps none, so add() records nothing. */
class K6Metric {
  readonly name: string;
  constructor(name: string, _isTime?: boolean) {
    this.name = name;
  }
  add(_value: number | boolean, _tags?: Record<string, string>): void {}
}`,
  },
  SharedArray: {
    code: `/** k6's SharedArray: the array its function returns (each process holds its own). */
const SharedArray = function (_name: string, load: () => unknown[]) {
  return load();
} as unknown as new (name: string, load: () => any[]) => any[];`,
  },
  k6Open: {
    imports: "import { readFileSync } from 'node:fs';",
    code: `/** k6's open(): a file's text (or bytes with "b"), read next to this scenario file. */
function k6Open(path: string, mode?: string): any {
  const file = new URL(path, import.meta.url);
  return mode === 'b' ? readFileSync(file) : readFileSync(file, 'utf8');
}`,
  },
  randomIntBetween: { code: `/** k6-utils' randomIntBetween: an integer from min to max, both included. */\nconst randomIntBetween = (min: number, max: number): number => Math.floor(Math.random() * (max - min + 1) + min);` },
  randomItem: { code: `/** k6-utils' randomItem: one element of the array. */\nconst randomItem = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;` },
  randomString: {
    code: `/** k6-utils' randomString: \`length\` characters of \`charset\`. */
const randomString = (length: number, charset = 'abcdefghijklmnopqrstuvwxyz'): string => Array.from({ length }, () => charset[Math.floor(Math.random() * charset.length)]).join('');`,
  },
  uuidv4: { code: `/** k6-utils' uuidv4. */\nconst uuidv4 = (): string => crypto.randomUUID();` },
  findBetween: {
    code: `/** k6-utils' findBetween: the text between \`left\` and \`right\`. */
const findBetween = (content: string, left: string, right: string): string => {
  const start = content.indexOf(left);
  if (start < 0) return '';
  const end = content.indexOf(right, start + left.length);
  return end < 0 ? '' : content.slice(start + left.length, end);
};`,
  },
  k6Encoding: {
    code: `/** k6/encoding's base64, by Node's Buffer (encodings std, rawstd, url, rawurl). */
const k6Encoding = {
  b64encode: (input: string | ArrayBuffer, encoding = 'std'): string => {
    const text = Buffer.from(input as string).toString(encoding.includes('url') ? 'base64url' : 'base64');
    return encoding.startsWith('raw') || encoding === 'url' ? text.replace(/=+$/, '') : text;
  },
  b64decode: (input: string, encoding = 'std', format?: string): any => {
    const bytes = Buffer.from(input, encoding.includes('url') ? 'base64url' : 'base64');
    return format === 's' ? bytes.toString('utf8') : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  },
};`,
  },
};

/** The code of the shims `used` (and those they call), in a stable order, with the imports they need. */
export function shimCode(used: ReadonlySet<string>): { readonly imports: readonly string[]; readonly code: string } {
  const all = new Set<string>();
  const add = (name: string): void => {
    const shim = SHIMS[name];
    if (shim === undefined || all.has(name)) return;
    all.add(name);
    for (const n of shim.needs ?? []) add(n);
  };
  for (const name of used) add(name);
  const names = Object.keys(SHIMS).filter((n) => all.has(n));
  return {
    imports: [...new Set(names.map((n) => SHIMS[n]?.imports).filter((x): x is string => x !== undefined))],
    code: names.map((n) => (SHIMS[n] as Shim).code).join('\n\n'),
  };
}
