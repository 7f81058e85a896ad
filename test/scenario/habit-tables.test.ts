/**
 * docs/scenarios.md's "Coming from k6" and "Coming from GuideLLM" tables: every flowgauge form in
 * them works as written. A scenario field (`load: …`, `thresholds: …`) is put into a scenario and
 * validated as `flowgauge run` does (its thresholds too); a command line names a command and
 * flags that command has. A row marked TODO waits for the lead and shows as a todo here.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { parseDurationMs } from '../../src/core/units.js';
import { parsePlanThresholds } from '../../src/run/index.js';
import { planOf, resolveRunPlan } from '../../src/scenario/index.js';

const dir = mkdtempSync(join(tmpdir(), 'fg-habit-tables-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
copyFileSync('scenarios/data/prompts.jsonl', join(dir, 'prompts.jsonl'));

/** The rows of the table under `heading`: [habit, flowgauge form] as written. */
function rows(heading: string): [string, string][] {
  const text = readFileSync('docs/scenarios.md', 'utf8');
  const at = text.indexOf(`### ${heading}\n`);
  if (at < 0) throw new Error(`docs/scenarios.md has no "### ${heading}"`);
  const lines = text.slice(at).split('\n').slice(1);
  const table = lines.slice(lines.findIndex((l) => l.startsWith('|')));
  const body = table.slice(0, table.findIndex((l) => !l.startsWith('|'))).slice(2);
  return body.map((l) => {
    const cells = l.slice(1, -1).split(' | ');
    return [cells[0]?.trim() ?? '', cells.slice(1).join(' | ').trim()];
  });
}

const spans = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
const FIELD = /^(load|thresholds|steps|data|mix|timeouts|slo):/;

async function helpOf(command: string): Promise<string> {
  const io = memoryIo({ cwd: dir });
  await main([command, '--help'], io);
  return io.out();
}

async function checkForm(form: string): Promise<void> {
  if (FIELD.test(form)) {
    const field = parse(`{ ${form} }`) as Record<string, unknown>;
    const raw = { name: 'habit', tier: 'pro', load: { rate: '1/s', duration: '1s' }, steps: [{ op: 'listFlows' }], ...field };
    const plan = planOf(resolveRunPlan(raw, {}, { source: join(dir, 'habit.yaml') }));
    parsePlanThresholds(plan);
    return;
  }
  if (!form.startsWith('flowgauge ')) return;
  const [, command = '', ...args] = form.split(/\s+/);
  const help = await helpOf(command);
  expect(help, `${form}: no command ${command}`).toMatch(new RegExp(`flowgauge ${command}\\b`));
  for (const [i, a] of args.entries()) {
    const flag = /^(--?[a-z][a-z0-9-]*)/.exec(a)?.[1];
    if (flag === undefined) continue;
    expect(help, `${form}: ${command} has no ${flag}`).toMatch(new RegExp(`(^|[\\s,])${flag}(\\s|,|$)`, 'm'));
    if (flag === '-d' || flag === '--duration') expect(parseDurationMs(args[i + 1]), form).toBeGreaterThan(0);
  }
}

describe.each(['Coming from k6', 'Coming from GuideLLM'])('docs/scenarios.md: %s', (heading) => {
  const table = rows(heading);
  it('has rows, each with a flowgauge form', () => {
    expect(table.length).toBeGreaterThan(8);
    for (const [habit, form] of table) expect(spans(form).length, habit).toBeGreaterThan(0);
  });
  for (const [habit, form] of table) {
    if (form.includes('TODO')) {
      it.todo(`${habit}: ${form.replace(/<!--.*-->/, '').trim()} (waits for the lead)`);
      continue;
    }
    it(`${habit} → ${form}`, async () => {
      for (const f of spans(form)) await checkForm(f);
    });
  }
});
