/**
 * Reading a scenario file of any supported kind into a raw value for `resolveScenario`.
 * TypeScript runs with no build step: through Node's own type stripping where Node has it,
 * through tsx elsewhere and for what stripping cannot run.
 */
import { basename, extname, resolve, sep } from 'node:path';
import { findSourceMap } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError, FlowgaugeError } from '../core/errors.js';
import { jsonTextDepth, valueProblem, yamlTextDepth, type InputLimits } from '../core/input-limits.js';
import { fillEnvVars } from './env-vars.js';
import { preflight } from './load-preflight.js';
import { importModule, pickExport } from './module-import.js';
import { checkInputFile, readInputFile } from './input-file.js';
import { k6ImportOf } from './k6/k6-detect.js';
import { formatPath } from './issues.js';
import { resolveScenario } from './resolve.js';
import type { ConfigIssue } from '../core/errors.js';
import type { ResolvedScenario, ScenarioOverrides } from './types.js';
import { PACKAGE_ROOT } from '../core/package-root.js';

/** File extensions `loadScenarioFile` reads. */
export const SCENARIO_EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.json', '.yaml', '.yml'] as const;

/** Options of `loadScenarioFile`. */
export interface LoadFileOptions {
  /** Values of `${NAME}` in JSON and YAML files (default: the process environment). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Longest a `.ts`/`.js` scenario module may take to load (default 30 s). */
  readonly loadTimeoutMs?: number;
  /**
   * Load a module first in a throwaway thread (`load-preflight.ts`), so the deadline holds against
   * code that never returns (`while (true) {}`) too; the CLI asks for it. Default false.
   */
  readonly preflight?: boolean;
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
      const timeoutMs = options.loadTimeoutMs ?? MODULE_LOAD_TIMEOUT_MS;
      if (options.preflight === true) await preflight(abs, timeoutMs, fail);
      return loadModule(abs, path, timeoutMs, fail);
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
      // The YAML parser is loaded for a YAML scenario only: a .json or .ts one starts without it.
      const { parse: parseYaml } = await import('yaml');
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
const OWN_ROOT = resolve(fileURLToPath(PACKAGE_ROOT));

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

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
