/**
 * Where this package's own files are, from wherever its code was loaded: the TypeScript sources
 * (`src/<part>/x.ts`, a checkout under tsx), the compiled files (`dist/<part>/x.js`) or a chunk of
 * the bundled build (`dist/chunks/x.js`, scripts/bundle.mjs). Code moved into a chunk or an entry
 * keeps its `import.meta.url` no longer, so no module may reach the package's files by a relative
 * URL of its own: they go through this one. Pure: the root is read off this module's own URL.
 */

/**
 * The root of the package a module of it was loaded from: the directory above the last `src/` or
 * `dist/` of its path (a checkout or an install may sit under another `src/` or `dist/`: the
 * package's own is the last).
 */
export function packageRootOf(moduleUrl: string): URL {
  const own = new URL(moduleUrl);
  const at = /^(.*)\/(?:src|dist)\/[^/].*$/.exec(own.pathname);
  return at === null ? new URL('../..', own) : new URL(`${at[1]}/`, own);
}

/** True when the package runs from its TypeScript sources (a checkout), not from `dist/`. */
export const FROM_SOURCE: boolean = new URL(import.meta.url).pathname.endsWith('.ts');

/** The package's root directory, a `file:` URL ending in `/`. */
export const PACKAGE_ROOT: URL = packageRootOf(import.meta.url);

/** A file of the package by its path from the root (`bin/flowgauge-service.mjs`, `scenarios/`). */
export function packageFile(path: string): URL {
  return new URL(path, PACKAGE_ROOT);
}

/**
 * An entry module of the package by its path under `src/` without extension (`index`,
 * `cli/worker-exit-guard`): the `.ts` source in a checkout, the compiled `.js` under `dist/`.
 * Only entries keep their path in the bundled build (scripts/bundle.mjs lists them).
 */
export function packageModule(path: string): URL {
  return packageFile(FROM_SOURCE ? `src/${path}.ts` : `dist/${path}.js`);
}
