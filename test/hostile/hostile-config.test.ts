/**
 * Hostile configuration, through the real CLI (a child process): a data-file row nested three
 * million deep, and scenarios with 8,000 and 100,000 invalid threshold keys. Each ends on its own
 * with exit 2 and a message of bounded size that names the problem (the line of the row; the
 * first problems, how many more, the allowed keys once) — never a stack overflow, exit 70, a
 * hang, or megabytes of stderr. Before: the row was a stack overflow in the recursive freeze of
 * data-file.ts; 8,000 keys took 41 s and printed 4 MB; 100,000 printed nothing in 120 s.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killIfRunning, scaledMs, spawnCli, type CliProcess } from '../reliability/cli-process.js';
import { waitBounded } from './bounded-child.js';

/** A safety net against a hang, not a timing assertion: each command here ends in seconds. */
const EXIT_BOUND_MS = scaledMs(120_000);
const TEST_GUARD_MS = EXIT_BOUND_MS + 30_000;
/** What a refusal may print: the first 20 problems, the count of the rest and the allowed keys once. */
const OUTPUT_BOUND = 16 * 1024;

let dir: string;
const children: CliProcess[] = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-hostile-config-'));
});
afterAll(async () => {
  for (const c of children) await killIfRunning(c);
  rmSync(dir, { recursive: true, force: true });
});

async function refused(args: readonly string[]): Promise<{ err: string; out: string }> {
  const cli = spawnCli(args, { cwd: dir });
  children.push(cli);
  const exit = await waitBounded(cli, EXIT_BOUND_MS, performance.now());
  expect(exit.signal, 'killed by the safety net: it hung').toBeNull();
  expect(exit.code, cli.stderr().slice(0, 2000)).toBe(2);
  expect(cli.stderr()).not.toMatch(/internal error|call stack|\n\s+at /);
  expect(cli.stderr().length + cli.stdout().length).toBeLessThan(OUTPUT_BOUND);
  return { err: cli.stderr(), out: cli.stdout() };
}

function thresholdsScenario(file: string, n: number): string {
  const thresholds: Record<string, string> = {};
  for (let i = 0; i < n; i++) thresholds[`listFlows.latency.p${1000 + i}`] = '<1s';
  const path = join(dir, file);
  writeFileSync(path, JSON.stringify({ name: 'many', tier: 'pro', load: { rate: '1/s', duration: '1s' }, mix: [{ op: 'listFlows' }], thresholds }));
  return path;
}

describe('hostile configuration is refused, bounded', () => {
  it('a data-file row nested 3,000,000 deep: exit 2 naming the file and line', async () => {
    const n = 3_000_000;
    writeFileSync(join(dir, 'rows.jsonl'), `{"prompt":"a"}\n{"prompt":"b","deep":${'['.repeat(n)}${']'.repeat(n)}}\n`);
    writeFileSync(join(dir, 'rows.yaml'), 'name: rows\ntier: pro\nload: { rate: 1/s, duration: 1s }\ndata: { file: rows.jsonl }\nsteps:\n  - op: listFlows\n');
    const r = await refused(['run', 'rows.yaml', '--quiet', '--no-audit', '--out', join(dir, 'out-rows')]);
    expect(r.err).toContain(`${join(dir, 'rows.jsonl')}:2: a row is nested deeper than 64 levels of arrays and objects; the limit is 64`);
  }, TEST_GUARD_MS);

  it('8,000 invalid threshold keys: the first 20, how many more, the allowed keys once', async () => {
    const r = await refused(['run', thresholdsScenario('t8k.json', 8000), '--quiet', '--no-audit']);
    expect(r.err).toMatch(/\(8000 problems\):/);
    expect(r.err.match(/^ {2}- thresholds\[/gm)).toHaveLength(20);
    expect(r.err).toContain('  … and 7980 more');
    expect(r.err.match(/allowed: /g)).toHaveLength(1);
  }, TEST_GUARD_MS);

  it('100,000 invalid threshold keys: exit 2 with the same bounded answer', async () => {
    const r = await refused(['run', thresholdsScenario('t100k.json', 100_000), '--quiet', '--no-audit']);
    expect(r.err).toMatch(/\(100000 problems\):/);
    expect(r.err).toContain('  … and 99980 more');
  }, TEST_GUARD_MS);
});
