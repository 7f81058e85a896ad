/** The layouts of the three documents and the sections' views agree: no place is left empty. */
import { describe, expect, it } from 'vitest';
import { viewsAt } from '../../src/report/sections/section-list.js';
import { HTML_LAYOUT, MARKDOWN_LAYOUT, SUMMARY_LAYOUT, type HtmlPlace } from '../../src/report/sections/view-kit.js';

// `more` is where a section that names no other place would go; no section does today.
const filled = <P extends string>(places: readonly P[]): P[] => places.filter((p) => p !== 'more');

describe('section views', () => {
  it('fill every place of the console summary, report.md and report.html (but `more`)', () => {
    const summary = filled(SUMMARY_LAYOUT.flatMap((g) => [...g.places]));
    const markdown = filled([...MARKDOWN_LAYOUT]);
    const html = filled<HtmlPlace>([...HTML_LAYOUT.header, ...HTML_LAYOUT.body.flat()]);
    const empty = [
      ...summary.filter((p) => viewsAt('summary', p).length === 0).map((p) => `summary ${p}`),
      ...markdown.filter((p) => viewsAt('markdown', p).length === 0).map((p) => `markdown ${p}`),
      ...html.filter((p) => viewsAt('html', p).length === 0).map((p) => `html ${p}`),
    ];
    expect(empty).toEqual([]);
    expect(summary.length + markdown.length + html.length).toBeGreaterThan(40);
  });

  it('name each place of a document once', () => {
    const all = [SUMMARY_LAYOUT.flatMap((g) => [...g.places]), [...MARKDOWN_LAYOUT], [...HTML_LAYOUT.header, ...HTML_LAYOUT.body.flat()]];
    for (const places of all) expect(new Set(places).size).toBe(places.length);
  });
});
