/**
 * A k6 script as a flowgauge journey scenario (`flowgauge new --from-k6`), read without running
 * it: its options become the load (or several scenarios), its default (or `exec`) function the
 * journey, its requests, checks, sleeps and groups the journey's, its thresholds flowgauge's
 * keys. Code that is not k6's API is kept as written. What cannot be converted is marked
 * `// flowgauge: not converted: …` where it was; the file loads and runs either way. Pure.
 */
import { ConfigError } from '../../core/errors.js';
import { convertK6Threshold } from '../../slo/k6-thresholds.js';
import { checkThresholds } from '../threshold-check.js';
import { firstToken, isGroup, isName, isPunct, lastToken, scanScript, ScanError, type JsNode, type Token } from './js-scan.js';
import { literalOf, statementsOf, textOf } from './js-read.js';
import { BodyWriter, createWriteState, type K6Bindings, type WriteState } from './k6-body.js';
import { commentedOut, defaultExportName, functionOf, functionsReachingK6, writeVuFunction, type ScriptFunction } from './k6-functions.js';
import { importOf, readImports } from './k6-imports.js';
import { convertOptions, scenarioName, type ConvertedScenario } from './k6-options.js';
import { commentLines, notConvertedLines, quoted, tsLiteral } from './k6-render.js';
import { shimCode } from './k6-shims.js';

/** What to convert a script into. */
export interface K6ConvertOptions {
  /** The scenario's name (lower-case letters, digits and dashes). */
  readonly name: string;
  /** The script as named in the file's comments. */
  readonly script: string;
  /** A relative module's path as the converted file imports it (default: unchanged). */
  readonly relative?: (spec: string) => string;
}

/** A converted script. */
export interface K6Conversion {
  /** The scenario file. */
  readonly text: string;
  /** Every "not converted" note of the file, in its order. */
  readonly notConverted: readonly string[];
  /** The scenarios it runs (one, unless k6's options had several). */
  readonly scenarios: readonly string[];
}

const NOTE = '// flowgauge: not converted: ';

/** Converts the k6 script `src`. Throws `ConfigError` for a script that cannot be read or runs nothing. */
export function convertK6Script(src: string, o: K6ConvertOptions): K6Conversion {
  let nodes: JsNode[];
  try {
    nodes = scanScript(src);
  } catch (err) {
    if (!(err instanceof ScanError)) throw err;
    throw new ConfigError([{ path: `${o.script}:${err.line}`, message: `cannot be read as JavaScript: ${err.message}` }], 'k6 script');
  }
  const stmts = statementsOf(nodes);
  const imports = stmts.map(importOf);
  const imported = readImports(imports.filter((x) => x !== undefined), o.relative ?? ((s) => s));
  const functions = stmts.map((s) => functionOf(src, s));
  const declared = new Set(functions.map((f) => f?.name).filter((n) => n !== undefined));
  const k6Functions = new Map(imported.k6Functions);
  if (!declared.has('open') && !imported.declarations.some((d) => d.startsWith('const open '))) k6Functions.set('open', 'open');
  const base: K6Bindings = { http: imported.http, httpFunctions: imported.httpFunctions, k6Functions, helpers: new Set() };
  const named = (n: string): ScriptFunction | undefined => functions.find((f) => f?.name === n && !f.isDefault);
  const byDefaultName = stmts.map(defaultExportName).find((n) => n !== undefined);
  const defaultFn = functions.find((f) => f?.isDefault === true) ?? (byDefaultName === undefined ? undefined : named(byDefaultName));
  const candidates = functions.filter((f): f is ScriptFunction => f !== undefined && !(f.name !== undefined && ['teardown', 'handleSummary'].includes(f.name)));
  const reach = functionsReachingK6(candidates, base);

  // Options are read before the functions are written only for their exec names.
  const consts = new Map<string, unknown>();
  let optionsNodes: JsNode[] | undefined;
  let optionsStmt: JsNode[] | undefined;
  for (const s of stmts) {
    const decl = constOf(s);
    if (decl === undefined) continue;
    if (decl.name === 'options') [optionsNodes, optionsStmt] = [decl.value, s];
    else consts.set(decl.name, literalOf(src, decl.value, consts));
  }
  const optionsValue = optionsNodes === undefined ? undefined : literalOf(src, optionsNodes, consts);
  const execs = new Set(['default', ...execNames(optionsValue)]);
  const vuFunctions = new Set([...reach, ...[...execs].filter((e) => e !== 'default'), ...(named('setup') !== undefined ? ['setup'] : [])]);
  const defaultName = defaultFn?.name ?? (declared.has('iteration') ? 'k6Iteration' : 'iteration');
  const bindings: K6Bindings = { ...base, helpers: new Set([...vuFunctions].filter((n) => named(n) !== undefined)) };

  // The top level, in order: kept code, the functions written as async functions of vu.
  const global = createWriteState();
  const states = new Map<string, WriteState>();
  const init = new BodyWriter(src, bindings, global, false);
  let top = '';
  let pos = 0;
  stmts.forEach((s, i) => {
    const first = firstToken(s[0] as JsNode);
    const end = lastToken(s[s.length - 1] as JsNode).end;
    const gap = src.slice(pos, first.start);
    pos = end;
    const imp = imports[i];
    const f = functions[i];
    if (imp !== undefined) {
      const kept = imported.kept.get(imp);
      // A dropped import keeps the comments before it.
      top += kept === undefined ? gap.replace(/\n[ \t]*$/, '') : `${gap}${textOf(src, s).replace(/(['"])[^'"]*\1(\s*;?\s*)$/, `${quoted(kept)}$2`)}`;
      return;
    }
    // `export { options }` and `export default main;` export what the scenario now holds.
    if (s === optionsStmt || defaultExportName(s) !== undefined || (isName(s[0], 'export') && isGroup(s[1], '{'))) {
      top += gap.replace(/\n[ \t]*$/, '');
      return;
    }
    if (f !== undefined && f.name !== undefined && ['teardown', 'handleSummary'].includes(f.name)) {
      const why = f.name === 'teardown' ? 'teardown (flowgauge has no hook after the run; kept below as comments)' : 'handleSummary (flowgauge writes report.json, report.md and report.html; `flowgauge report` renders them again)';
      top += `${gap}${notConvertedLines(why, '').join('\n')}\n${commentedOut(src, s)}`;
      return;
    }
    if (f !== undefined && (f === defaultFn || (f.name !== undefined && vuFunctions.has(f.name)))) {
      const name = f === defaultFn ? defaultName : (f.name as string);
      const state = createWriteState();
      states.set(f === defaultFn ? 'default' : name, state);
      const text = writeVuFunction(f, name, new BodyWriter(src, bindings, state, true));
      top += gap + state.notes.splice(0).map((n) => `${NOTE}${n}\n`).join('') + text;
      return;
    }
    const before = global.notes.length;
    const start = isName(s[0], 'export') ? (isName(s[1], 'default') ? 2 : 1) : 0;
    const kept = s.slice(start);
    const text = kept.length === 0 ? '' : init.seq(kept, firstToken(kept[0] as JsNode).start, end, false);
    const notes = [...new Set(global.notes.splice(before))];
    top += gap + notes.map((n) => `${NOTE}${n}\n`).join('') + text;
  });
  top += src.slice(pos);

  const sleepOf = (exec: string): number => states.get(exec)?.sleepS ?? 0;
  const options = convertOptions(optionsValue, sleepOf);
  const all = [global, ...states.values()];
  const rows = [...new Set(all.flatMap((s) => [...s.rows]))];
  const k6Names = new Map(all.flatMap((s) => [...s.k6Names]));
  const shims = new Set([...imported.shims, ...all.flatMap((s) => [...s.shims])]);
  const hasSetup = named('setup') !== undefined;

  const scenarios = uniqueNames(options.scenarios.map((s) => (s.name === '' ? { ...s, name: o.name } : s)));
  const journeyOf = (s: ConvertedScenario, indent: string): string[] => {
    const fn = s.exec === 'default' ? (defaultFn === undefined ? undefined : defaultName) : named(s.exec) === undefined ? undefined : s.exec;
    if (fn === undefined) {
      return [...notConvertedLines(`${s.exec === 'default' ? 'the default function' : `exec: ${s.exec}`} (the script has no such function)`, indent), `${indent}journey: (vu) => vu.fail(${quoted(`no function ${s.exec} in ${o.script}`)}),`];
    }
    return [`${indent}journey: async (vu) => {`, `${indent}  await ${fn}(vu${hasSetup ? ', await k6SetupData(vu)' : ''});`, `${indent}},`];
  };
  const loadLines = (s: ConvertedScenario, indent: string): string[] => [
    ...(s === scenarios[0] ? [`${indent}// The API token's tier: 'free' (100 requests/min), 'pro' (1,000/min) or { limitPerMinute: N }.`] : []),
    `${indent}tier: 'pro',`,
    ...s.comments.flatMap((c) => commentLines(c, indent)),
    ...s.notes.flatMap((n) => notConvertedLines(n, indent)),
    `${indent}load: ${tsLiteral(s.load, indent)},`,
    ...(s.startAfter !== undefined ? [`${indent}startAfter: ${quoted(s.startAfter)},`] : []),
  ];
  const body: string[] = [`  name: ${quoted(o.name)},`, `  description: ${quoted(`Converted from the k6 script ${o.script} by flowgauge new --from-k6.`)},`];
  body.push(...options.notes.flatMap((n) => notConvertedLines(n, '  ')));
  if (scenarios.length === 1) body.push(...loadLines(scenarios[0] as ConvertedScenario, '  '), ...journeyOf(scenarios[0] as ConvertedScenario, '  '));
  else {
    body.push('  scenarios: {');
    for (const s of scenarios) body.push(`    ${/^[a-z_$][a-z0-9_$]*$/.test(s.name) ? s.name : quoted(s.name)}: {`, ...loadLines(s, '      '), ...journeyOf(s, '      '), '    },');
    body.push('  },');
  }
  body.push(...thresholdLines(options.thresholds, { rows, names: k6Names, scenarios: scenarios.map((s) => s.name), dynamic: all.some((s) => s.dynamicRows) }));

  const { imports: shimImports, code } = shimCode(shims);
  const setup = hasSetup
    ? `\n\n/** k6's setup(): run once, by the first iteration to start; every iteration gets what it returned. */\nlet setupData: Promise<any> | undefined;\nconst k6SetupData = (vu: Vu): Promise<any> => (setupData ??= setup(vu));`
    : '';
  const file = [
    `/**`,
    ` * ${o.name}: converted from the k6 script ${o.script} by \`flowgauge new --from-k6\`.`,
    ` * Run it:   npx flowgauge run ./${o.name}.ts   (against a real service: --base-url https://…/v1 and FLOWGAUGE_TOKEN)`,
    ` * Requests to the interface's paths became its operations (sent to --base-url); other requests are vu.http.`,
    ` * What could not be converted is marked "flowgauge: not converted" where it was.`,
    ` * What converts and what does not: "Coming from k6" in docs/scenarios.md of the flowgauge package.`,
    ` */`,
    `import { defineScenario, type Vu } from 'flowgauge';`,
    ...shimImports,
    '',
    ...(code === '' ? [] : [`// k6's API as this file uses it: a few lines each, yours to edit.`, code, '']),
    // After the shims: a class or a const is not hoisted.
    ...imported.declarations,
    ...(imported.declarations.length > 0 ? [''] : []),
    `// The k6 script, its k6 calls rewritten.\n${top.replace(/\n{3,}/g, '\n\n').trim()}${setup}`,
    '',
    'export default defineScenario({',
    ...body,
    '});',
    '',
  ].join('\n');
  // Each note, its wrapped lines joined.
  const notConverted = [...file.matchAll(/\/\/ flowgauge: not converted: ([^\n]*(?:\n[ \t]*\/\/ {3}[^\n]*)*)/g)].map((m) => (m[1] as string).replace(/\n[ \t]*\/\/ {3}/g, ' '));
  return { text: file, notConverted, scenarios: scenarios.map((s) => s.name) };
}

/** `const name = value` (or `let`, `var`, exported, with a type): the name and the value's nodes. */
function constOf(stmt: readonly JsNode[]): { name: string; value: JsNode[] } | undefined {
  let i = isName(stmt[0], 'export') ? 1 : 0;
  if (!isName(stmt[i]) || !['const', 'let', 'var'].includes((stmt[i] as Token).text) || !isName(stmt[i + 1])) return undefined;
  const name = (stmt[i + 1] as Token).text;
  i += 2;
  while (i < stmt.length && !isPunct(stmt[i], '=')) i++;
  const end = isPunct(stmt[stmt.length - 1], ';') ? stmt.length - 1 : stmt.length;
  return i < end ? { name, value: stmt.slice(i + 1, end) } : undefined;
}

/** The `exec` functions k6's scenarios name. */
function execNames(options: unknown): string[] {
  const scenarios = typeof options === 'object' && options !== null ? (options as { scenarios?: unknown }).scenarios : undefined;
  if (typeof scenarios !== 'object' || scenarios === null) return [];
  return Object.values(scenarios).flatMap((s: unknown) => (typeof s === 'object' && s !== null && typeof (s as { exec?: unknown }).exec === 'string' ? [(s as { exec: string }).exec] : []));
}

/** Scenario names made unique (`a`, `a-2`). */
function uniqueNames(list: readonly ConvertedScenario[]): ConvertedScenario[] {
  const seen = new Set<string>();
  return list.map((s) => {
    let name = scenarioName(s.name);
    for (let n = 2; seen.has(name); n++) name = `${scenarioName(s.name).slice(0, 60)}-${n}`;
    seen.add(name);
    return { ...s, name };
  });
}

/** A threshold's expression, written alone or in its object. */
const exprOf = (t: unknown): unknown => (typeof t === 'object' && t !== null ? (t as { expr?: unknown }).expr : t);

/** k6's thresholds as the file's `thresholds`, each one that does not convert as a note. */
function thresholdLines(raw: unknown, target: { rows: readonly string[]; names: ReadonlyMap<string, string>; scenarios: readonly string[]; dynamic: boolean }): string[] {
  if (raw === undefined) return [];
  const lines: string[] = [];
  const entries = new Map<string, unknown>();
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) lines.push(...notConvertedLines('thresholds (not an object written out)', '    '));
  const all = Object.entries(typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? raw : {});
  // A key with tags (one request, one check) is more precise than its metric over all requests: it is read first.
  const ordered = [...all.filter(([k]) => k.includes('{')), ...all.filter(([k]) => !k.includes('{'))];
  for (const [key, v] of ordered) {
    const exprs = Array.isArray(v) ? v : [v];
    const converted = exprs.every((e) => typeof e === 'string' || (typeof e === 'object' && e !== null)) ? convertK6Threshold(key, exprs, target) : { reason: 'its expressions are not written out' };
    if (converted === undefined) lines.push(...notConvertedLines(`thresholds[${JSON.stringify(key)}] (a custom metric: flowgauge keeps none)`, '    '));
    else if ('reason' in converted) lines.push(...notConvertedLines(`thresholds[${JSON.stringify(key)}]: ${converted.reason}`, '    '));
    else {
      for (const [k, t] of converted.entries) {
        // The same comparison twice (one of them with abortOnFail, say) is one threshold.
        if (entries.has(k) && exprOf(entries.get(k)) === exprOf(t)) continue;
        if (entries.has(k)) lines.push(...notConvertedLines(`thresholds[${JSON.stringify(key)}] as ${JSON.stringify(k)}: ${JSON.stringify(t)} (that key is judged by ${JSON.stringify(entries.get(k))} already)`, '    '));
        else entries.set(k, t);
      }
    }
  }
  // Every key written must validate; one that does not is a note (as for an expression flowgauge reads otherwise).
  const list = [...entries];
  const checked = checkThresholds(list.map(([key, t]) => ({ path: key, key, expr: typeof t === 'string' ? t : String((t as { expr: unknown }).expr) })), target.scenarios.map((name) => ({ name, ops: undefined })));
  for (const issue of checked.issues) {
    entries.delete(issue.path);
    lines.push(...notConvertedLines(`thresholds ${JSON.stringify(issue.path)}: ${issue.message}`, '    '));
  }
  if (target.dynamic && [...entries.keys()].some((k) => /\.latency\./.test(k))) lines.unshift(...commentLines('Requests named when they run (a batch, params in a variable) have their own rows (http:<name>); add keys for them.', '    '));
  const body = [...entries].map(([k, t]) => `    ${tsLiteral({ [k]: t }, '    ').slice(2, -2)},`);
  return body.length === 0 && lines.length === 0 ? [] : ['  thresholds: {', ...lines, ...body, '  },'];
}
