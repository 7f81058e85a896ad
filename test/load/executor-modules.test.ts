/**
 * An executor is one module (`src/load/executors/<name>.ts`: schema piece, resolution, what
 * reports know of it, factory) listed once in `executor-registry.ts`. Outside its module its
 * name is only written where a scenario is written out for the user or by flowgauge itself.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/core/clock.js';
import { createExecutor, EXECUTORS, isClosedModel, loadDurationMs, shownLength } from '../../src/load/index.js';
import { resolveScenario } from '../../src/scenario/index.js';
import { instantJob } from './helpers.js';

const SRC = resolve(import.meta.dirname, '../../src');
/**
 * Scenarios written out: the `new` command's templates, capacity's own scenario, k6 hints, and
 * the k6 converter's loads (k6's executors of the same names, written as flowgauge's).
 */
const WRITES_SCENARIOS = ['cli/new-templates.ts', 'cli/commands/capacity.ts', 'scenario/unknown-keys.ts', 'scenario/k6/k6-options.ts'];

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('an executor is one module', () => {
  it('has one file under load/executors/ per executor, and nothing else there', () => {
    const files = readdirSync(join(SRC, 'load/executors')).map((f) => basename(f, '.ts'));
    expect(files.sort()).toEqual([...EXECUTORS].sort());
  });

  it.each([...EXECUTORS])('%s: its name is a string only in its module (and where scenarios are written out)', (name) => {
    const own = `load/executors/${name}.ts`;
    const writers = tsFiles(SRC)
      .map((f) => relative(SRC, f))
      .filter((f) => f !== own && !WRITES_SCENARIOS.includes(f))
      .filter((f) => new RegExp(`['"]${name}['"]`).test(readFileSync(join(SRC, f), 'utf8')));
    expect(writers).toEqual([]);
  });

  it.each([
    [{ executor: 'constant-arrival-rate', rate: '10/s', duration: '2s' }, 2000, 'for 2s', false],
    [{ rate: '10/s', duration: '3s' }, 3000, 'for 3s', false],
    [{ executor: 'ramping-arrival-rate', stages: [{ duration: '1s', target: '10/s' }, { duration: '2s', target: '0/s' }] }, 3000, 'for its stages', false],
    [{ executor: 'poisson', rate: '10/s', duration: '4s' }, 4000, 'for 4s', false],
    [{ executor: 'constant-concurrency', concurrency: 2, duration: '5s' }, 5000, 'for 5s', true],
  ] as const)('%o: resolved by its module, known to the report, built by the factory', (load, ms, shown, closed) => {
    const s = resolveScenario({ name: 'm', tier: 'pro', load, mix: [{ op: 'listFlows' }] });
    expect(loadDurationMs(s.load)).toBe(ms);
    expect(shownLength(s.load)).toBe(shown);
    expect(isClosedModel(s.load)).toBe(closed);
    const e = createExecutor(s.load, { clock: createFakeClock(), job: instantJob([]) });
    expect(e.durationMs).toBe(ms);
    expect(e.stats().phase).toBe('idle');
  });
});
