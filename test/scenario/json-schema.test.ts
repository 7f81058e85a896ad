/**
 * The published JSON Schema and the loader agree: every ready scenario passes both, and bad
 * ones fail both.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, resolveRunPlan, scenarioJsonSchema } from '../../src/scenario/index.js';

const ajv = new Ajv2020({ strict: false, allErrors: true });
const validate = ajv.compile(scenarioJsonSchema());
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));
const loaderAccepts = (raw: unknown): boolean => {
  try {
    resolveRunPlan(raw);
    return true;
  } catch {
    return false;
  }
};

describe('the scenario JSON Schema', () => {
  const files = readdirSync('scenarios').filter((f) => /\.(ts|yaml|json)$/.test(f));
  it.each(files)('accepts the ready scenario %s, as the loader does', async (f) => {
    const raw = plain(await loadScenarioFile(join('scenarios', f), { env: {} }));
    expect(validate(raw), JSON.stringify(validate.errors)).toBe(true);
  });

  const base = { name: 'bad', tier: 'pro', load: { rate: '1/s', duration: '1s' } };
  const bad: [string, unknown][] = [
    ['an unknown field', { ...base, mix: [{ op: 'run' }], colour: 'red' }],
    ['an unknown operation', { ...base, mix: [{ op: 'strem' }] }],
    ['a name with capitals', { ...base, name: 'Bad', mix: [{ op: 'run' }] }],
    ['a tier that is not one', { ...base, tier: 'gold', mix: [{ op: 'run' }] }],
    ['an unknown step kind', { ...base, steps: [{ wait: 1 }] }],
    ['an unknown field in a step', { ...base, steps: [{ op: 'listFlows', sav: {} }] }],
    ['a repeat without steps', { ...base, steps: [{ repeat: 2 }] }],
    ['an unknown data order', { ...base, steps: [{ op: 'listFlows' }], data: { file: 'x.csv', order: 'shuffled' } }],
    ['an unknown executor', { ...base, load: { executor: 'spiky', rate: '1/s', duration: '1s' }, mix: [{ op: 'run' }] }],
    ['a tenant with a literal token field', { name: 'p', scenarios: { a: { ...base, name: undefined, token: 'x', mix: [{ op: 'run' }] } } }],
  ];
  it.each(bad)('refuses %s, as the loader does', (_name, raw) => {
    const value = plain(raw);
    expect(validate(value)).toBe(false);
    expect(loaderAccepts(value)).toBe(false);
  });

  it('accepts a load without an executor (constant-arrival-rate is the default)', () => {
    const raw = { ...base, mix: [{ op: 'run' }] };
    expect(validate(raw)).toBe(true);
    expect(loaderAccepts(raw)).toBe(true);
  });
});

describe('flowgauge schema', () => {
  it('prints the scenario schema and the report schema', async () => {
    const { memoryIo } = await import('../../src/cli/io.js');
    const { main } = await import('../../src/cli/main.js');
    const io = memoryIo({ cwd: '.' });
    expect(await main(['schema', 'scenario'], io)).toBe(0);
    expect(JSON.parse(io.out())).toEqual(scenarioJsonSchema());
    const report = memoryIo({ cwd: '.' });
    expect(await main(['schema', 'report'], report)).toBe(0);
    expect(JSON.parse(report.out()).title ?? JSON.parse(report.out()).$schema).toBeDefined();
    expect(await main(['schema', 'nope'], memoryIo({ cwd: '.' }))).toBe(2);
  });
});
