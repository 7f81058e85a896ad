/**
 * The bundled build (scripts/bundle-dist.ts) keeps a path under dist/ only for its entries: every
 * module something names by its path — package.json's `exports`, bin/ and cjs/, and
 * `packageModule` in the sources — must be one, or the installed package cannot start it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENTRIES } from '../../scripts/bundle-dist.js';

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name), ext) : ext.test(e.name) ? [join(dir, e.name)] : []));
}

describe('bundle entries', () => {
  it('every dist/ module named by package.json, bin/, cjs/ or packageModule() is an entry of the bundle', () => {
    const named = new Set<string>();
    for (const f of ['package.json', ...files('bin', /\.mjs$/), ...files('cjs', /\.cjs$/)]) {
      for (const m of readFileSync(f, 'utf8').matchAll(/dist\/([\w/-]+)\.js/g)) named.add(m[1] as string);
    }
    for (const f of files('src', /\.ts$/)) {
      for (const m of readFileSync(f, 'utf8').matchAll(/packageModule\('([\w/-]+)'\)/g)) named.add(m[1] as string);
    }
    expect(named.size).toBeGreaterThanOrEqual(10);
    expect([...named].filter((m) => !ENTRIES.includes(m)).sort()).toEqual([]);
    // And none is listed for nothing.
    expect(ENTRIES.filter((e) => !named.has(e))).toEqual([]);
  });
});
