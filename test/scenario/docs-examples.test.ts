/**
 * Every fenced example in docs/scenarios.md and the README is a whole scenario: each is written
 * to a file as it stands and loaded the way `flowgauge run` loads it.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isRunPlan, loadRowSource, loadScenarioFile, planOf, resolveRunPlan } from '../../src/scenario/index.js';

const dir = mkdtempSync(join(tmpdir(), 'fg-doc-examples-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
copyFileSync('scenarios/data/prompts.jsonl', join(dir, 'prompts.jsonl'));

const EXT: Record<string, string> = { ts: 'ts', json: 'json', yaml: 'yaml' };

function examples(file: string): { lang: string; code: string }[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/```(ts|json|yaml)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1] as string, code: m[2] as string }));
}

describe.each(['docs/scenarios.md', 'README.md'])('the examples in %s', (doc) => {
  const found = examples(doc);
  it('are there', () => {
    expect(found.length).toBeGreaterThan(doc === 'README.md' ? 0 : 4);
  });
  it.each(found.map((e, i) => [i, e] as const))('example %i loads and resolves as written', async (i, e) => {
    const path = join(dir, `${doc.replace(/\W/g, '-')}-${i}.${EXT[e.lang] ?? e.lang}`);
    writeFileSync(path, e.code);
    const resolved = resolveRunPlan(await loadScenarioFile(path, { env: {} }), {}, { source: path });
    for (const s of planOf(resolved).scenarios) {
      if (s.data !== undefined) expect((await loadRowSource(s.data, s.seed)).row(0)).toBeDefined();
    }
    if (isRunPlan(resolved)) expect(resolved.scenarios.length).toBeGreaterThan(1);
  });
});
