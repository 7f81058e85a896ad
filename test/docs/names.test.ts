/**
 * Docs name only what exists: every `src/…` (and `test/…`, `bench/…`, `deploy/…`, `scenarios/…`)
 * path in README.md and docs/ is a file or folder, and every backticked factory or function
 * name (`createX`, `startX`, `renderX`, …) is exported by some module in src/.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const docs = ['README.md', ...readdirSync('docs').filter((f) => f.endsWith('.md')).map((f) => join('docs', f))];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}
const exported = new Set<string>();
for (const f of sources('src')) {
  const text = readFileSync(f, 'utf8');
  for (const m of text.matchAll(/export\s+(?:async\s+)?(?:function|const|class|let)\s+([A-Za-z_$][\w$]*)/g)) exported.add(m[1] as string);
  for (const m of text.matchAll(/export\s*\{([^}]*)\}/g)) for (const n of (m[1] as string).split(',')) exported.add(n.trim().replace(/^type\s+/, '').split(/\s+as\s+/).pop() ?? '');
}

const FUNCTION_NAME = /`((?:create|start|render|resolve|parse|load|define|execute|merge|compare|read|open|compute|generate|enable)[A-Z][\w]*)\s*(?:\([^`]*\))?`/g;
const PATH = /`((?:src|test|bench|deploy|scenarios)\/[\w./-]*[\w/])`/g;

describe.each(docs)('%s', (doc) => {
  const text = readFileSync(doc, 'utf8');
  it('names only paths that exist', () => {
    const missing = [...text.matchAll(PATH)].map((m) => m[1] as string).filter((p) => !p.includes('<') && !p.includes('*') && !existsSync(p));
    expect(missing).toEqual([]);
  });
  it('names only functions that are exported', () => {
    // A `startX` or a `…Ms` without parentheses is a field (`startRate`, `startAfter`, `loadTimeoutMs`), not a function.
    const field = (name: string): boolean => name.startsWith('start') || name.endsWith('Ms');
    const names = [...text.matchAll(FUNCTION_NAME)].filter((m) => !field(m[1] as string) || m[0].includes('(')).map((m) => m[1] as string);
    const missing = [...new Set(names)].filter((n) => !exported.has(n));
    expect(missing).toEqual([]);
  });
});

describe('README.md', () => {
  it('lists every ready scenario `run --help` offers, and no other', async () => {
    const { builtinScenarioNames } = await import('../../src/cli/scenario-path.js');
    const ready = builtinScenarioNames();
    expect(ready.length).toBeGreaterThanOrEqual(13);
    const readme = readFileSync('README.md', 'utf8');
    const item = readme.split('\n- ').find((l) => l.startsWith('`<scenario>` is a file'));
    expect(item, 'the README item on <scenario>').toBeDefined();
    const named = [...(item ?? '').matchAll(/`([a-z0-9-]+)`/g)].map((m) => m[1] as string);
    expect([...new Set(named)].sort()).toEqual(ready);
    expect(item).toContain(`the same ${ready.length} \`run --help\` lists`);
  });
});
