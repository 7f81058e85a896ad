/**
 * A k6 script's imports (`import … from`, `require(…)`): the names bound to k6's API, which the
 * journey's code rewrites, and for every other module the lines that stand in for it — k6's
 * custom metrics, SharedArray, base64 and k6-utils' helpers by small shims, anything else by a
 * stub that says, when it is reached, that it was not converted. Pure.
 */
import { isGroup, isName, isPunct, isToken, type JsNode, type Token } from './js-scan.js';
import { propertiesOf, splitCommas } from './js-read.js';
import { isK6Module } from './k6-detect.js';

/** One import: its module and the names it binds (`imported` is `default` or `*` for those forms). */
export interface ImportBinding {
  readonly module: string;
  readonly names: readonly { readonly imported: string; readonly local: string }[];
  readonly line: number;
}

/** The module of `import … from 'm'`, `import 'm'` or `const x = require('m')`, with what it binds; undefined for another statement. */
export function importOf(stmt: readonly JsNode[]): ImportBinding | undefined {
  const [first, second] = stmt;
  if (isName(first, 'import') && !isGroup(second, '(') && !isPunct(second, '.')) {
    const spec = stmt.find((n): n is Token => isToken(n) && n.kind === 'str');
    if (spec === undefined) return undefined;
    // `import type { Options } from 'k6/options'` binds types only.
    if (isName(second, 'type') && !isName(stmt[2], 'from')) return { module: spec.value ?? '', names: [], line: first.line };
    const clause = stmt.slice(1, stmt.findIndex((n) => isName(n, 'from')));
    const names: { imported: string; local: string }[] = [];
    for (let i = 0; i < clause.length; i++) {
      const n = clause[i];
      if (isPunct(n, '*') && isName(clause[i + 1], 'as') && isName(clause[i + 2])) {
        names.push({ imported: '*', local: (clause[i + 2] as Token).text });
        i += 2;
      } else if (isGroup(n, '{')) {
        for (const item of splitCommas(n.items)) {
          const parts = item.filter((x) => !isName(x, 'type') || item.length === 1);
          const imported = parts[0] as Token | undefined;
          const local = isName(parts[1], 'as') ? (parts[2] as Token | undefined) : imported;
          if (imported !== undefined && local !== undefined) names.push({ imported: imported.kind === 'str' ? (imported.value ?? '') : imported.text, local: local.text });
        }
      } else if (isName(n) && n.text !== 'type') names.push({ imported: 'default', local: n.text });
    }
    return { module: spec.value ?? '', names, line: first.line };
  }
  // const http = require('k6/http'); const { check, sleep: pause } = require('k6');
  if (isName(first) && ['const', 'let', 'var'].includes(first.text) && isPunct(stmt[2], '=') && isName(stmt[3], 'require') && isGroup(stmt[4], '(')) {
    const spec = stmt[4].items[0];
    if (!isToken(spec) || spec.kind !== 'str') return undefined;
    const target = stmt[1];
    if (isName(target)) return { module: spec.value ?? '', names: [{ imported: '*', local: target.text }], line: first.line };
    if (isGroup(target, '{')) {
      const names = propertiesOf(target.items).flatMap((p) => (p.key !== undefined && isName(p.value[0]) && p.value.length === 1 ? [{ imported: p.key, local: (p.value[0] as Token).text }] : []));
      return { module: spec.value ?? '', names, line: first.line };
    }
  }
  return undefined;
}

/** The names bound to k6's API and what stands in for every other import. */
export interface ImportResult {
  readonly http: Set<string>;
  readonly httpFunctions: Map<string, string>;
  readonly k6Functions: Map<string, string>;
  /** Lines declaring what stands in for other modules' names. */
  readonly declarations: string[];
  /** Shims those lines use. */
  readonly shims: Set<string>;
  /** What was not converted, with the line each came from. */
  readonly notes: string[];
}

const K6_UTILS = new Set(['randomIntBetween', 'randomItem', 'randomString', 'uuidv4', 'findBetween']);
const METRICS = new Set(['Trend', 'Rate', 'Counter', 'Gauge']);
/** Modules whose names are types only. */
const TYPE_MODULES = new Set(['k6/options']);

/** Reads every import of a script; `relative` rewrites a relative module's path for the converted file's place. */
export function readImports(imports: readonly ImportBinding[], relative: (spec: string) => string): ImportResult & { readonly kept: Map<ImportBinding, string> } {
  const r: ImportResult & { kept: Map<ImportBinding, string> } = { http: new Set(), httpFunctions: new Map(), k6Functions: new Map(), declarations: [], shims: new Set(), notes: [], kept: new Map() };
  const stub = (local: string, what: string, why: string): void => {
    r.shims.add('k6Stub');
    r.declarations.push(`// flowgauge: not converted: ${what} (${why})`, `const ${local} = k6Stub(${JSON.stringify(what)});`);
    r.notes.push(what);
  };
  const alias = (local: string, shim: string): void => {
    r.shims.add(shim);
    if (local !== shim) r.declarations.push(`const ${local} = ${shim};`);
  };
  for (const imp of imports) {
    const m = imp.module;
    if (TYPE_MODULES.has(m)) continue;
    if (m.startsWith('.')) {
      r.kept.set(imp, relative(m));
      continue;
    }
    for (const { imported, local } of imp.names) {
      const from = `${imported === 'default' || imported === '*' ? local : imported} from '${m}'`;
      if (m === 'k6/http') {
        if (imported === 'default' || imported === '*') r.http.add(local);
        else r.httpFunctions.set(local, imported);
      } else if (m === 'k6') {
        if (imported === 'default' || imported === '*') stub(local, from, 'use the functions by name: check, sleep, group, fail');
        else r.k6Functions.set(local, imported);
      } else if (m === 'k6/metrics' && METRICS.has(imported)) {
        r.shims.add('K6Metric');
        r.declarations.push(`// flowgauge: not converted: ${imported} from 'k6/metrics' (flowgauge keeps no custom metrics, so its add() records nothing; vu.step times a part of the journey, vu.check counts passes)`, `const ${local} = K6Metric;`);
        r.notes.push(`the custom metric ${imported}`);
      } else if (m === 'k6/data' && imported === 'SharedArray') alias(local, 'SharedArray');
      else if (m === 'k6/encoding') {
        if (imported === 'default' || imported === '*') alias(local, 'k6Encoding');
        else if (imported === 'b64encode' || imported === 'b64decode') {
          r.shims.add('k6Encoding');
          r.declarations.push(`const ${local} = k6Encoding.${imported};`);
        } else stub(local, from, 'flowgauge converts b64encode and b64decode');
      } else if (/^https:\/\/jslib\.k6\.io\/k6-utils\//.test(m) && K6_UTILS.has(imported)) alias(local, imported);
      else stub(local, from, isK6Module(m) ? 'k6 modules beyond http, metrics, data and encoding have no flowgauge form' : 'a remote module');
    }
  }
  return r;
}
