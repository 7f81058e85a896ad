/**
 * Telling a k6 script from a scenario before it runs: a file that imports `k6` or `k6/…` (an
 * ESM import, `export … from`, `require` or a dynamic `import()`) is a k6 script, found by
 * scanning its text (comments and strings are no imports), so it is answered with what to do
 * instead of a "Cannot find module 'k6/http'" and a require stack.
 */
import { scanTokens, ScanError } from './js-scan.js';

/** True for a module specifier of k6's API (`k6`, `k6/http`, `k6/experimental/…`). */
export const isK6Module = (spec: string): boolean => spec === 'k6' || spec.startsWith('k6/');

/** The first k6 module `src` imports, with its line; undefined when it imports none (or cannot be scanned). */
export function k6ImportOf(src: string): { readonly module: string; readonly line: number } | undefined {
  let tokens;
  try {
    tokens = scanTokens(src);
  } catch (err) {
    if (err instanceof ScanError) return undefined;
    throw err;
  }
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t?.kind !== 'str' || t.value === undefined || !isK6Module(t.value)) continue;
    const prev = tokens[i - 1];
    const before = tokens[i - 2];
    const imported =
      (prev?.kind === 'name' && (prev.text === 'from' || prev.text === 'import')) ||
      (prev?.kind === 'punct' && prev.text === '(' && before?.kind === 'name' && (before.text === 'require' || before.text === 'import'));
    if (imported) return { module: t.value, line: t.line };
  }
  return undefined;
}
