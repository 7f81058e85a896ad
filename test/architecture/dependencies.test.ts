/**
 * What a user installs is what the product runs: every package in `dependencies` and
 * `optionalDependencies` is named by the shipped code (`src/`, `bin/`, `cjs/`), and a package
 * only the benchmarks or tests use is a devDependency. autocannon is the case in point: it
 * was `capacity`'s generator until the sweep moved to flowgauge's own client (it counted any 2xx
 * as good and buffered whatever a target sent, docs/performance.md); since then it is only
 * the benchmark's peer (bench/drivers/autocannon-driver.ts), and every `npm install flowgauge`
 * fetched it for nothing.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

interface Pkg {
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
}

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as Pkg;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|mjs|cjs|js)$/.test(name) ? [p] : [];
  });
}

const shipped = ['src', 'bin', 'cjs'].flatMap(files).map((f) => readFileSync(f, 'utf8'));

/** True when some shipped file names `name` as a module (an import, a dynamic import, a require or a resolve). */
const named = (name: string): boolean => shipped.some((text) => text.includes(`'${name}'`) || text.includes(`'${name}/`));

describe('dependencies', () => {
  it('every runtime dependency is named by the shipped code', () => {
    const runtime = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})];
    expect(runtime.length).toBeGreaterThan(5);
    for (const name of runtime) expect(named(name), `${name} is in dependencies but nothing in src/, bin/ or cjs/ loads it`).toBe(true);
  });

  it('autocannon, only the benchmark peer now, is a devDependency that no shipped code loads', () => {
    expect(pkg.dependencies ?? {}).not.toHaveProperty('autocannon');
    expect(pkg.devDependencies ?? {}).toHaveProperty('autocannon');
    expect(named('autocannon')).toBe(false);
    expect(readFileSync('bench/drivers/autocannon-driver.ts', 'utf8')).toMatch(/from 'autocannon'/);
  });
});
