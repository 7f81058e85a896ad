/**
 * Importing a scenario module, TypeScript or JavaScript: through Node's own type stripping where
 * Node has it, through tsx elsewhere and for what stripping cannot run, with the bare name
 * `flowgauge` resolved to this very package. Apart from `load-file.ts` so that a thread that only
 * imports a module (the pre-flight, `load-preflight.ts`) loads nothing else of the scenario part.
 */
import * as nodeModule from 'node:module';
import { register as registerHooks } from 'node:module';
import type { NamespacedUnregister } from 'tsx/esm/api';
import { isRecord } from '../core/is-record.js';
import { FROM_SOURCE, packageFile, packageModule } from '../core/package-root.js';

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
  return { main: packageModule('index').href, packageJson: packageFile('package.json').href, dist: FROM_DIST ? packageFile('dist/').href : null };
}

/**
 * Imports a scenario module (TypeScript or JavaScript) through one tsx loader registered for
 * the process (a fresh one per file would compile and evaluate zod and the scenario part again:
 * ~300 ms each). The query makes each load evaluate the scenario file anew; modules it imports
 * are shared between loads.
 */
export async function importModule(url: string): Promise<unknown> {
  tsLoads++;
  const unique = `${url}?flowgauge-scenario=${tsLoads}`;
  await preloadPackage();
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

/**
 * Loads the installed package's entry (what `flowgauge` resolves to) through Node's own loader,
 * before any hook is registered. Loaded later, through tsx's hooks, each of its ~300 modules
 * costs a round trip to the hooks' thread: on Node 20 that was ~0.4 s of a `.ts` run's start-up
 * in the pre-flight thread and again in the main thread. A checkout's entry is TypeScript, which
 * only tsx loads: nothing to do there.
 */
export async function preloadPackage(): Promise<void> {
  if (FROM_DIST) await import(selfResolveData().main);
}

let nativeHooks: true | undefined;
// Node's loader runs a scenario importing `flowgauge` only against the compiled package: the
// sources import each other as `./x.js`, which only tsx maps to `./x.ts`.
const FROM_DIST = !FROM_SOURCE;

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

export function pickExport(mod: unknown, fail: (message: string) => Error): unknown {
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
