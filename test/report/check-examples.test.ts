/**
 * `checks.<name>.examples`: the schema takes it, merge keeps the first 3 distinct of the shards'
 * (and gives one report back unchanged), and the console, report.md and report.html show them.
 */
import { describe, expect, it } from 'vitest';
import { createIterationStats } from '../../src/collect/iteration-stats.js';
import { renderHtml } from '../../src/report/html.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { mergeReports } from '../../src/report/merge.js';
import { mergeChecks } from '../../src/report/sections/checks.js';
import type { Report } from '../../src/report/model.js';
import { reportProblems } from '../../src/report/read.js';
import { renderSummary } from '../../src/report/summary.js';
import { fixtureReport } from './fixture.js';

const ASSETS = { uplotJs: '', uplotCss: '' };
const ex = (n: number) => ({ expected: `"echo: p${n}"`, actual: `"p${n}"` });

const withChecks = (checks: Report['checks']): Report => ({ ...fixtureReport(), checks });

describe('check examples', () => {
  it('the collector keeps the first 3 distinct failures that said what they saw', () => {
    const it = createIterationStats();
    it.check('c', true, ex(0));
    for (const n of [1, 1, 2, 3, 4]) it.check('c', false, ex(n));
    it.check('c', false);
    it.check('bare', false);
    expect(it.snapshot().checks).toEqual({ c: { passes: 1, fails: 6, examples: [ex(1), ex(2), ex(3)] }, bare: { passes: 0, fails: 1 } });
  });

  it('report@1 takes them, and refuses one that is not text', () => {
    expect(reportProblems(withChecks({ c: { passes: 0, fails: 2, examples: [ex(1), ex(2)] } }))).toEqual([]);
    const bad = withChecks({ c: { passes: 0, fails: 1, examples: [{ expected: 1, actual: '' } as never] } });
    expect(reportProblems(bad).join('\n')).toMatch(/checks\.c\.examples\[0\]\.expected/);
  });

  it('merge: counts add, examples are the union of distinct ones, at most 3; one report comes back unchanged', () => {
    const a = { c: { passes: 1, fails: 2, examples: [ex(1), ex(2)] }, only: { passes: 0, fails: 1, examples: [ex(9)] } };
    const b = { c: { passes: 0, fails: 3, examples: [ex(2), ex(3), ex(4)] }, plain: { passes: 2, fails: 0 } };
    expect(mergeChecks([a, b])).toEqual({
      c: { passes: 1, fails: 5, examples: [ex(1), ex(2), ex(3)] },
      only: { passes: 0, fails: 1, examples: [ex(9)] },
      plain: { passes: 2, fails: 0 },
    });
    expect(mergeChecks([a])).toEqual(a);
    const merged = mergeReports([withChecks(a), withChecks(b)]);
    expect(merged.checks?.c?.examples).toEqual([ex(1), ex(2), ex(3)]);
    expect(mergeReports([withChecks(a)]).checks).toEqual(a);
  });

  it('the console, report.md and report.html show what each failed check expected and saw', () => {
    const r = withChecks({ echoes: { passes: 1, fails: 2, examples: [ex(1), { expected: '"a|b"', actual: 'line\nbreak \u001b[31mred' }] } });
    const summary = renderSummary(r);
    expect(summary).toContain('✗ check echoes: 1 passed, 2 failed (33.3 %)\n    expected: "echo: p1" · actual: "p1"\n    expected: "a|b" · actual: line⏎break �[31mred\n');
    const md = renderMarkdown(r);
    expect(md).toContain('| check | expected | actual |');
    expect(md).toContain('| echoes | "echo: p1" | "p1" |');
    expect(md).toContain('| echoes | "a\\|b" | line⏎break �\\[31mred |');
    const html = renderHtml(r, ASSETS);
    expect(html).toContain('<td>&quot;echo: p1&quot;</td><td>&quot;p1&quot;</td>');
  });
});
