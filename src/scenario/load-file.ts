/**
 * Reading a scenario file of any supported kind into a raw value for `resolveScenario`.
 * TypeScript runs with no build step: through Node's own type stripping where Node has it,
 * through tsx elsewhere and for what stripping cannot run.
 */
import { basename, dirname, extname, resolve, sep } from 'node:path';
import * as nodeModule from 'node:module';
import { findSourceMap, register as registerHooks } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { NamespacedUnregister } from 'tsx/esm/api';
import { parse as parseYaml } from 'yaml';
import { ConfigError, FlowgaugeError } from '../core/errors.js';
import { jsonTextDepth, valueProblem, yamlTextDepth, type InputLimits } from '../core/input-limits.js';
import { fillEnvVars } from './env-vars.js';
import { checkInputFile, readInputFile } from './input-file.js';
import { k6ImportOf } from './k6/k6-detect.js';
import { formatPath } from './issues.js';
import { resolveScenario } from './resolve.js';
import type { ConfigIssue } from '../core/errors.js';
import type { ResolvedScenario, ScenarioOverrides } from './types.js';
import { isRecord } from '../core/is-record.js';

/** File extensions `loadScenarioFile` reads. */
export const SCENARIO_EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.json', '.yaml', '.yml'] as const;

/** Options of `loadScenarioFile`. */
export interface LoadFileOptions {
  /** Values of `${NAME}` in JSON and YAML files (default: the process environment). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Longest a `.ts`/`.js` scenario module may take to load (default 30 s). */
  readonly loadTimeoutMs?: number;
}

/** Default deadline of a scenario module: loading it and settling its export together. */
export const MODULE_LOAD_TIMEOUT_MS = 30_000;

/**
 * Limits of a scenario file. A scenario is a page of settings and prompts: 16 MiB, 64 levels
 * and 1 MiB strings leave room for any real one while a hostile file is refused before it can
 * exhaust the stack or the heap. Data rows belong in a data file (`data.file`), which has its own.
 */
export const SCENARIO_LIMITS: InputLimits = { maxBytes: 16 * 1024 * 1024, maxDepth: 64, maxStringChars: 1024 * 1024, maxKeyChars: 1024 };

/**
 * The YAML text scan may overcount a nesting a little; the parser's stack gives out in the
 * hundreds. This bound sits between: the exact check of 64 is made on the parsed value.
 */
const YAML_SCAN_DEPTH = 4 * SCENARIO_LIMITS.maxDepth;

/**
 * Reads a scenario file: `.ts`/`.mts`/`.cts` (Node's type stripping or tsx) and `.js`/`.mjs`/`.cjs` modules (the
 * default export, or a named `scenario` export), `.json`, `.yaml`/`.yml`. A missing file throws
 * `FlowgaugeError` `FG_FILE_NOT_FOUND` naming the path; a file that cannot be parsed or run
 * throws `ConfigError` carrying the parser's message (and, for a module,
 * the file and line of the throw). A file beyond `SCENARIO_LIMITS` is refused before it is parsed.
 */
export async function loadScenarioFile(path: string, options: LoadFileOptions = {}): Promise<unknown> {
  const abs = resolve(path);
  const ext = extname(abs).toLowerCase();
  const fail = (message: string, cause?: unknown): ConfigError => {
    const err = new ConfigError([{ path, message }], 'scenario file');
    if (cause !== undefined) Object.defineProperty(err, 'cause', { value: cause, enumerable: false });
    return err;
  };
  const fileOptions = { what: 'scenario file', maxBytes: SCENARIO_LIMITS.maxBytes, shownAs: path };
  switch (ext) {
    case '.ts':
    case '.mts':
    case '.cts':
    case '.js':
    case '.mjs':
    case '.cjs': {
      // tsx reads the file itself: it is checked (kind, size) before it gets the path, and read
      // here first so a k6 script is told apart before any of it runs.
      const k6 = k6ImportOf(await readInputFile(abs, fileOptions));
      if (k6 !== undefined) throw fail(k6ScriptMessage(path, k6.module, k6.line));
      return loadModule(abs, path, options.loadTimeoutMs ?? MODULE_LOAD_TIMEOUT_MS, fail);
    }
    case '.json': {
      const text = await readInputFile(abs, fileOptions);
      if (jsonTextDepth(text, SCENARIO_LIMITS.maxDepth) > SCENARIO_LIMITS.maxDepth) throw fail(tooDeep());
      let value: unknown;
      try {
        value = JSON.parse(text) as unknown;
      } catch (err) {
        throw fail(`invalid JSON: ${messageOf(err)}`, err);
      }
      return checked(value, path, options);
    }
    case '.yaml':
    case '.yml': {
      const text = await readInputFile(abs, fileOptions);
      if (yamlTextDepth(text, YAML_SCAN_DEPTH) > YAML_SCAN_DEPTH) throw fail(tooDeep());
      let value: unknown;
      try {
        value = parseYaml(text) as unknown;
      } catch (err) {
        // A nesting the scan let through but the parser's stack did not.
        if (/Maximum call stack/.test(messageOf(err))) throw fail(tooDeep(), err);
        throw fail(`invalid YAML: ${messageOf(err)}`, err);
      }
      return checked(value, path, options);
    }
    default:
      await checkInputFile(abs, fileOptions);
      throw fail(`unsupported file type "${ext}"; use one of ${SCENARIO_EXTENSIONS.join(', ')}`);
  }
}

/** What a k6 script given as a scenario is told: what it is, and the command that converts it. */
function k6ScriptMessage(path: string, module: string, line: number): string {
  const name = basename(path, extname(path)).toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '') || 'converted';
  return (
    `is a k6 script (it imports '${module}' on line ${line}); flowgauge runs its own scenario format. ` +
    `Convert it: \`flowgauge new --from-k6 ${path}\` writes ${name}.ts, a journey with its options, requests, checks, sleeps and groups ` +
    `(what cannot be converted is marked "flowgauge: not converted"); then \`flowgauge run ${name}.ts\``
  );
}

const tooDeep = (): string => `is nested deeper than ${SCENARIO_LIMITS.maxDepth} levels of arrays and objects; the limit is ${SCENARIO_LIMITS.maxDepth}`;

/**
 * Imports a scenario module and settles its export, all within `timeoutMs`: a top-level await
 * or an exported promise that never settles is refused at the deadline (the timer is kept
 * referenced on purpose: otherwise a module that waits on nothing would end the process with
 * exit 13 and no word). A throw or a rejection is named with the file and line it came from.
 */
async function loadModule(abs: string, path: string, timeoutMs: number, fail: (message: string, cause?: unknown) => ConfigError): Promise<unknown> {
  const deadline = `${timeoutMs / 1000} s`;
  const url = pathToFileURL(abs).href;
  const late = createDeadline(timeoutMs);
  try {
    let mod: unknown;
    try {
      mod = await Promise.race([importModule(url), late.promise]);
    } catch (err) {
      if (err instanceof FlowgaugeError) throw err;
      if (err === LOAD_TIMED_OUT) throw fail(`did not finish loading within ${deadline} (a top-level await that never settles?)`);
      throw fail(`could not load: ${messageOf(err)}${whereThrown(err, abs, path)}`, err);
    }
    let value: unknown;
    try {
      value = pickExport(mod, fail);
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      throw fail(`reading its export threw: ${messageOf(err)}`, err);
    }
    // An exported promise (or any thenable) is awaited, within what is left of the deadline;
    // reading `then` is part of settling it, so a throwing getter fails here, named.
    try {
      return await Promise.race([Promise.resolve(value), late.promise]);
    } catch (err) {
      if (err === LOAD_TIMED_OUT) throw fail(`its export did not settle within ${deadline} (a promise that never resolves?); export the scenario itself, or a promise that resolves to it`);
      throw fail(`its export rejected: ${messageOf(err)}${whereThrown(err, abs, path)}`, err);
    }
  } finally {
    late.clear();
  }
}

const LOAD_TIMED_OUT = Symbol('load timed out');

/** A promise that rejects with LOAD_TIMED_OUT after `ms`, and its clearing. */
function createDeadline(ms: number): { readonly promise: Promise<never>; clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(LOAD_TIMED_OUT), ms);
  });
  // Nobody may be listening when the race was won by the other side.
  promise.catch(() => undefined);
  return { promise, clear: () => clearTimeout(timer) };
}

/** Where this package's own files lie: frames in them are not the user's line. */
const OWN_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * " (at file:line:column)" of the first stack frame in the user's code (the scenario or a module
 * it imports; not Node's, not a dependency's, not flowgauge's), as tsx's source maps give it:
 * lines of the TypeScript source. Empty when the error has no such frame.
 */
function whereThrown(err: unknown, abs: string, path: string): string {
  const stack = err instanceof Error && typeof err.stack === 'string' ? err.stack : '';
  for (const line of stack.split('\n')) {
    const m = /^\s*at (?:.*? \()?((?:file:\/\/)?\/[^()\s]*?):(\d+):(\d+)\)?\s*$/.exec(line);
    if (m === null) continue;
    const raw = m[1] as string;
    let file = raw;
    let row = Number(m[2]);
    let col = Number(m[3]);
    if (file.startsWith('file://')) {
      try {
        file = fileURLToPath(file.replace(/\?.*$/, ''));
      } catch {
        continue;
      }
    }
    if (file.includes(`${sep}node_modules${sep}`) || (file.startsWith(OWN_ROOT + sep) && file !== abs)) continue;
    // A frame still naming the loaded URL (query and all) was not mapped back to the source,
    // as when a test runner replaces Node's stack formatting: map it with tsx's source map.
    if (raw.includes('?')) {
      const entry = findSourceMap(raw)?.findEntry(row - 1, col - 1);
      if (entry !== undefined && 'originalLine' in entry) {
        row = entry.originalLine + 1;
        col = entry.originalColumn + 1;
      }
    }
    return ` (at ${file === abs ? path : file}:${row}:${col})`;
  }
  return '';
}

/** Loads and resolves a scenario file; the result's `source` is `path`. */
export async function loadScenario(path: string, overrides: ScenarioOverrides = {}, options: LoadFileOptions = {}): Promise<ResolvedScenario> {
  const raw = await loadScenarioFile(path, options);
  return resolveScenario(raw, overrides, { source: path });
}

/**
 * Checks a parsed JSON/YAML value against the scenario limits (keys that would reach a
 * prototype, string lengths, depth), then fills `${NAME}` references; every unset one is
 * reported at once.
 */
function checked(value: unknown, path: string, options: LoadFileOptions): unknown {
  const problem = valueProblem(value, SCENARIO_LIMITS);
  if (problem !== undefined) throw new ConfigError([{ path: problem.path.length === 0 ? '(root)' : formatPath(problem.path), message: problem.message }], `scenario file ${path}`);
  const issues: ConfigIssue[] = [];
  const filled = fillEnvVars(value, options.env ?? process.env, issues);
  if (issues.length > 0) throw new ConfigError(issues, `scenario file ${path}`);
  return filled;
}

let tsLoader: Promise<NamespacedUnregister> | undefined;
let tsLoads = 0;

/**
 * Resolves the bare name `flowgauge` (and `flowgauge/<subpath>`) in scenario files to this very
 * package, wherever the file lies: a scenario written next to nothing but itself still imports
 * `defineScenario`. A checkout maps it to the TypeScript sources, a package to its `exports`.
 * It runs before tsx's hooks, so tsx sees the mapped file like any relative import.
 */
const SELF_RESOLVE_HOOKS = `
let self;
export async function initialize(data) { self = data; }
// A module of the installed package's dist/ is the very one the CLI loaded: without tsx's
// namespace query the scenario shares it (one copy of the package, not a second of ~240 modules).
function shared(r) {
  if (self.dist === null || !r.url.startsWith(self.dist) || !r.url.includes('tsx-namespace=')) return r;
  const u = new URL(r.url);
  u.searchParams.delete('tsx-namespace');
  return { ...r, url: u.href };
}
export async function resolve(specifier, context, next) {
  if (specifier === 'flowgauge') return shared(await next(self.main, context));
  if (specifier.startsWith('flowgauge/')) return shared(await next(specifier, { ...context, parentURL: self.packageJson }));
  const r = shared(await next(specifier, context));
  // A .ts file outside any "type": "module" package would be compiled to CommonJS, where
  // require('flowgauge') bypasses this hook; scenario code is ESM, so load it as ESM.
  if (r.format === 'commonjs' && /\.m?ts$/.test(new URL(r.url).pathname.replace(/%3F.*$/, '')) && r.url.includes('tsx-namespace=')) {
    const u = new URL(r.url);
    u.pathname = u.pathname.replace(/%3F.*$/, '');
    u.searchParams.delete('tsx-commonjs-virtual-query');
    return { ...r, url: u.href, format: 'module' };
  }
  return r;
}`;

function selfResolveData(): { main: string; packageJson: string; dist: string | null } {
  const fromSource = !FROM_DIST;
  const main = new URL(fromSource ? '../index.ts' : '../index.js', import.meta.url);
  // src/scenario/ in a checkout, dist/scenario/ in a package: the root is two levels up either way.
  return { main: main.href, packageJson: new URL('../../package.json', import.meta.url).href, dist: fromSource ? null : new URL('../', import.meta.url).href };
}

/**
 * Imports a scenario module (TypeScript or JavaScript) through one tsx loader registered for
 * the process (a fresh one per file would compile and evaluate zod and the scenario part again:
 * ~300 ms each). The query makes each load evaluate the scenario file anew; modules it imports
 * are shared between loads.
 */
async function importModule(url: string): Promise<unknown> {
  tsLoads++;
  const unique = `${url}?flowgauge-scenario=${tsLoads}`;
  if (nodeStripsTypes() && FROM_DIST && /\.m?ts$/.test(url)) {
    nativeHooks ??= registerNativeSelfResolve();
    try {
      return (await import(unique)) as unknown;
    } catch (err) {
      if (!tsxMayLoad(err)) throw err;
    }
  }
  const loader = await (tsLoader ??= createLoader());
  return loader.import(unique, import.meta.url) as Promise<unknown>;
}

let nativeHooks: true | undefined;
// Node's loader runs a scenario importing `flowgauge` only against the compiled package: the
// sources import each other as `./x.js`, which only tsx maps to `./x.ts`.
// (Under tsx this file's URL carries a query: its path says which it is.)
const FROM_DIST = !new URL(import.meta.url).pathname.endsWith('.ts');

/**
 * True where Node runs TypeScript itself (type stripping: on by default from Node 22.18 and
 * 23.6, or with `--experimental-strip-types`): a scenario then loads in milliseconds instead of
 * the ~0.3 s tsx and esbuild take to start.
 */
function nodeStripsTypes(): boolean {
  return Boolean((process.features as { typescript?: unknown }).typescript);
}

/**
 * Errors of Node's own loader that tsx gets past, all raised before the module runs (so tsx
 * runs it once, not twice): syntax that needs transforming (enums, namespaces, parameter
 * properties), a `.ts` file under node_modules (the package's ready scenarios), an import
 * written `./x.js` for `./x.ts` or without its extension, a type imported as a value.
 */
function tsxMayLoad(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^ERR_(UNSUPPORTED_TYPESCRIPT_SYNTAX|INVALID_TYPESCRIPT_SYNTAX|UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING|MODULE_NOT_FOUND|UNSUPPORTED_DIR_IMPORT|UNKNOWN_FILE_EXTENSION|REQUIRE_ESM)$/.test(code)) return true;
  return err instanceof SyntaxError && /does not provide an export named/.test(err.message);
}

function registerSelfResolve(): true {
  registerHooks(`data:text/javascript,${encodeURIComponent(SELF_RESOLVE_HOOKS)}`, { data: selfResolveData() });
  return true;
}

type SyncResolve = (specifier: string, context: { parentURL?: string | undefined }, next: (specifier: string, context?: object) => unknown) => unknown;

/**
 * The self-resolving hook for Node's own loader. In-thread (`module.registerHooks`, Node 22.15
 * and 23.5 on) it costs nothing; elsewhere it is the off-thread `SELF_RESOLVE_HOOKS`.
 */
function registerNativeSelfResolve(): true {
  const registerSync = (nodeModule as { registerHooks?: (hooks: { resolve: SyncResolve }) => unknown }).registerHooks;
  if (registerSync === undefined) return registerSelfResolve();
  const self = selfResolveData();
  registerSync({
    resolve(specifier, context, next) {
      if (specifier === 'flowgauge') return next(self.main, context);
      if (specifier.startsWith('flowgauge/')) return next(specifier, { ...context, parentURL: self.packageJson });
      return next(specifier, context);
    },
  });
  return true;
}

/** tsx and the self-resolving hook, registered once, on first use: a program that imports flowgauge without loading scenario files never loads tsx. */
async function createLoader(): Promise<NamespacedUnregister> {
  const { register } = await import('tsx/esm/api');
  const loader = register({ namespace: 'flowgauge-scenarios' });
  // Hooks registered later run first: this one must see every request before tsx does.
  registerSelfResolve();
  return loader;
}

function pickExport(mod: unknown, fail: (message: string) => ConfigError): unknown {
  const ns = mod as Record<string, unknown>;
  let value = ns.default ?? ns.scenario;
  // A module compiled to CommonJS arrives as { default: { __esModule, default, … } }.
  for (let i = 0; i < 2 && isRecord(value) && '__esModule' in value; i++) {
    value = value.default ?? value.scenario;
  }
  if (value === undefined) {
    throw fail('exports no scenario; write `export default defineScenario({ ... })` or export `scenario`');
  }
  return value;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
