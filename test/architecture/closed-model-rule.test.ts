/**
 * Open or closed model is one predicate (`isClosedModel` in load/load-info.ts): outside load/
 * and the scenario format that defines the executors, no code compares an executor's name with
 * the closed model's, so a second closed executor would need one change, not a hunt.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');
const OWNERS = ['load', 'scenario'];
const COMPARISON = /executor\s*[!=]==?\s*['"]constant-concurrency['"]|case\s+['"]constant-concurrency['"]/;

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('open vs closed model', () => {
  it('is asked through isClosedModel outside load/ and scenario/', () => {
    const files = tsFiles(SRC).filter((f) => !OWNERS.includes(relative(SRC, f).split(sep)[0] as string));
    expect(files.length).toBeGreaterThan(5);
    const bad = files.filter((f) => COMPARISON.test(readFileSync(f, 'utf8'))).map((f) => relative(SRC, f));
    expect(bad).toEqual([]);
  });
});
