/**
 * The documentation stands on its own: every relative link in README.md and docs/ reaches a
 * file of the repository, and nothing points at the workspace outside it (`shared/`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const pages = ['README.md', ...readdirSync('docs').filter((f) => f.endsWith('.md')).map((f) => join('docs', f))];

describe('the documentation', () => {
  it('has pages and links to check', () => {
    expect(pages.length).toBeGreaterThan(10);
    const links = pages.flatMap((p) => [...readFileSync(p, 'utf8').matchAll(/\]\((?![a-z]+:)[^)\s]+\)/g)]);
    expect(links.length).toBeGreaterThan(10);
  });

  it.each(pages)('%s links only to files that exist in the repository', (page) => {
    const text = readFileSync(page, 'utf8');
    const links = [...text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)].map((m) => m[1] as string).filter((l) => !/^[a-z]+:/.test(l));
    const root = resolve('.');
    const broken = links.filter((l) => {
      const target = resolve(dirname(page), l);
      return !target.startsWith(root) || !existsSync(target);
    });
    expect(broken).toEqual([]);
  });

  it.each(pages)('%s never points outside the repository (shared/)', (page) => {
    expect(readFileSync(page, 'utf8')).not.toMatch(/shared\//);
  });
});
