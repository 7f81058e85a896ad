/**
 * The import rules of docs/architecture.md, checked on every test run so they cannot rot:
 * a part imports only parts below it; the reference service is a separate wing; prom-client,
 * the terminal and the process belong to single parts.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

/** Parts from top to bottom; a part may import the parts after it (same-rank parts may not import each other). */
const RANKS: readonly (readonly string[])[] = [
  ['cli'],
  ['capacity'],
  ['run', 'probe', 'conformance'],
  ['scenario'],
  ['load'],
  ['report'],
  ['export'],
  ['collect'],
  ['slo'],
  ['api'],
  ['transport'],
  ['core'],
];
const rankOf = new Map<string, number>(RANKS.flatMap((parts, i) => parts.map((p) => [p, i] as const)));

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

function partOf(file: string): string {
  const rel = relative(SRC, file);
  return rel.includes(sep) ? (rel.split(sep)[0] as string) : '(root)';
}

const IMPORT_RE = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT_RE)) out.push((m[1] ?? m[2]) as string);
  return out;
}

const files = tsFiles(SRC);

/** Every (file, imported part) pair that crosses part boundaries. */
const edges = files.flatMap((file) =>
  importsOf(file)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => ({ file: relative(SRC, file), from: partOf(file), to: partOf(resolve(dirname(file), spec)) }))
    .filter((e) => e.from !== e.to),
);

function allowed(from: string, to: string): boolean {
  if (from === '(root)') return true; // src/index.ts re-exports everything
  if (to === 'target') return from === 'cli';
  if (from === 'target') return to === 'core';
  const a = rankOf.get(from);
  const b = rankOf.get(to);
  return a !== undefined && b !== undefined && b > a;
}

describe('import rules', () => {
  it('finds the source tree', () => {
    expect(files.length).toBeGreaterThan(5);
  });

  it('every part imports only parts below it, and target/ is reached only from cli/', () => {
    const bad = edges.filter((e) => !allowed(e.from, e.to)).map((e) => `${e.file} imports ${e.to}/`);
    expect(bad).toEqual([]);
  });

  it('transport/ (the wire) imports only core/, node: built-ins and undici', () => {
    const bad = files
      .filter((f) => partOf(f) === 'transport')
      .flatMap((f) => importsOf(f).map((spec) => ({ f, spec })))
      .filter(({ f, spec }) => (spec.startsWith('.') ? !['transport', 'core'].includes(partOf(resolve(dirname(f), spec))) : !spec.startsWith('node:') && spec !== 'undici'))
      .map(({ f, spec }) => `${relative(SRC, f)} imports ${spec}`);
    expect(bad).toEqual([]);
  });

  it('prom-client is imported only in export/', () => {
    const bad = files
      .filter((f) => partOf(f) !== 'export' && importsOf(f).some((s) => s === 'prom-client'))
      .map((f) => relative(SRC, f));
    expect(bad).toEqual([]);
  });

  it('only cli/ touches the terminal, argv and exit', () => {
    const re = /console\.(log|error|warn|info)|process\.exit\(|process\.argv|process\.stdout|process\.stderr/;
    const bad = files.filter((f) => partOf(f) !== 'cli' && re.test(readFileSync(f, 'utf8'))).map((f) => relative(SRC, f));
    expect(bad).toEqual([]);
  });

  it('index.ts files only re-export', () => {
    const bad = files
      .filter((f) => f.endsWith(`${sep}index.ts`) && partOf(f) !== 'cli')
      .filter((f) => {
        const code = readFileSync(f, 'utf8')
          .replace(/\/\*[\s\S]*?\*\//g, '')
          .replace(/\/\/.*$/gm, '')
          .replace(/export\s[^;]*;/g, '');
        return code.trim() !== '';
      })
      .map((f) => relative(SRC, f));
    expect(bad).toEqual([]);
  });
});
