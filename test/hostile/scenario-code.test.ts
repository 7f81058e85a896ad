/**
 * A scenario's code cannot end the process behind flowgauge's back, nor hang its load:
 *
 * - `process.exit(0)` in a journey mid-run (one thread, and over `--workers 2`): the run stops
 *   there, its report is written, marked interrupted with a `SCENARIO_EXIT` warning naming the
 *   line, and the exit is 130 — never 0 (before: exit 0, no report);
 * - `process.exit` at the module's top level: exit 2 naming it, before anything is sent;
 * - `while (true) {}` at the module's top level: exit 2 at the load deadline (before: a hang,
 *   silent), through the CLI with its 30 s deadline and through `loadScenarioFile` with a short
 *   one; a top-level await that never settles meets the same deadline.
 *
 * The file's time is the CLI's 30 s deadline (the default, which users cannot set and the test
 * means to hold): the other CLIs and the pre-flights with a generous deadline run beside it; the
 * three pre-flights at a short deadline run after it, alone (see there why).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODULE_LOAD_TIMEOUT_MS, loadScenarioFile } from '../../src/scenario/load-file.js';
import type { Report } from '../../src/report/index.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';
import { killIfRunning, scaledMs, spawnCli, type CliProcess } from '../reliability/cli-process.js';
import { waitBounded } from './bounded-child.js';

const TOKEN = 'fg_scenario_code_t0ken';
let dir: string;
let service: ReferenceService;
const children: CliProcess[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-scenario-code-'));
  service = await startReferenceService({ latency: 'none', tokens: { [TOKEN]: { account: 'acct_b', tier: { limitPerMinute: 1_000_000 } } } });
});
afterAll(async () => {
  for (const c of children) await killIfRunning(c);
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function cli(args: readonly string[], baseUrl = service.baseUrl): CliProcess {
  const c = spawnCli([...args, '--base-url', baseUrl, '--token', TOKEN], { cwd: dir });
  children.push(c);
  return c;
}

/**
 * A journey scenario whose 21st iteration calls process.exit(0), at 20/s for 30 s, so only the
 * exit can end it soon (the test asserts it did, in one thread and over two workers: there the
 * worker it happened in tells the others to stop; before, they ran their shares to the end).
 */
const exitsMidRun = (duration: string): string => `export default {
  name: 'exits',
  tier: { limitPerMinute: 1000000 },
  load: { executor: 'constant-arrival-rate', rate: '20/s', duration: '${duration}', gracefulStop: '1s' },
  journey: async (vu) => {
    await vu.listFlows({ limit: 1 });
    if (vu.iteration === 20) process.exit(0);
  },
};
`;

describe.concurrent('process.exit in scenario code during a run', () => {
  for (const workers of [1, 2]) {
    it(`${workers === 1 ? 'in one thread' : 'over --workers 2'}: the run stops, its report says SCENARIO_EXIT and interrupted, exit 130`, async () => {
      const file = write(`exits-${workers}.mjs`, exitsMidRun('30s'));
      const out = join(dir, `out-exits-${workers}`);
      const c = cli(['run', file, '--out', out, '--quiet', '--no-audit', ...(workers > 1 ? ['--workers', String(workers)] : [])]);
      const { code, signal } = await waitBounded(c, 120_000, performance.now());
      expect(signal, c.stderr()).toBeNull();
      expect(code, c.stderr()).toBe(130);
      const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
      expect(report.interrupted).toBe(true);
      expect(report.verdict).toBe('INTERRUPTED');
      const warning = report.warnings?.find((w) => w.code === 'SCENARIO_EXIT');
      expect(warning?.message).toMatch(new RegExp(`process\\.exit\\(0\\) at \\S*exits-${workers}\\.mjs:7:\\d+`));
      // The journey that called it ended there, failed: nothing after process.exit ran.
      expect(report.iterations?.failed).toBeGreaterThanOrEqual(1);
      if (workers === 1) expect(c.stderr()).toMatch(/the scenario called process\.exit\(0\) at \S*exits-1\.mjs:7/);
      // Stopped long before its 30 s (600 iterations), every worker: at the exit, not at the schedule's end.
      expect(report.load.started).toBeLessThan(300);
    }, 150_000);
  }

  it('at the module top level: exit 2 naming it, nothing sent', async () => {
    // A service of its own: the runs beside it send to the shared one.
    const own = await startReferenceService({ latency: 'none', tokens: { [TOKEN]: { account: 'acct_b', tier: { limitPerMinute: 1_000_000 } } } });
    try {
      // Counted from here: starting a service is not the run's doing.
      const before = own.stats().requests;
      const file = write('exits-at-load.mjs', 'process.exit(0);\nexport default {};\n');
      const c = cli(['run', file, '--quiet'], own.baseUrl);
      const { code } = await waitBounded(c, 120_000, performance.now());
      expect(code, c.stderr()).toBe(2);
      expect(c.stderr()).toMatch(/exits-at-load\.mjs: called process\.exit while loading \(code 0\): a scenario module may not end the process/);
      expect(own.stats().requests).toBe(before);
    } finally {
      await own.close();
    }
  }, 150_000);
});

describe.concurrent('a scenario module whose load never comes back', () => {
  it('while (true) {} at import, through the CLI: exit 2 at the 30 s load deadline, saying so', async () => {
    const file = write('spins.mjs', 'while (true) {}\nexport default {};\n');
    const c = cli(['run', file, '--quiet']);
    // The bound only guards a hang: the deadline is 30 s, start-up on a busy machine comes on top.
    const { code, signal } = await waitBounded(c, 150_000, performance.now());
    expect(signal, 'the CLI hung past its load deadline').toBeNull();
    expect(code, c.stderr()).toBe(2);
    expect(c.stderr()).toMatch(new RegExp(`spins\\.mjs: did not finish loading within ${MODULE_LOAD_TIMEOUT_MS / 1000} s: its code never came back`));
    expect(c.stderr()).not.toMatch(/internal error/);
  }, 180_000);

  it('a module that loads: the pre-flight lets it through and the load returns its export', async () => {
    const file = write('fine.mjs', "export default { name: 'fine', load: { executor: 'constant-arrival-rate', rate: '1/s', duration: '1s' }, mix: [{ op: 'listFlows' }] };\n");
    await expect(loadScenarioFile(file, { preflight: true, loadTimeoutMs: 20_000 })).resolves.toMatchObject({ name: 'fine' });
  }, 60_000);

  it('a module that throws at load: named with its line by the load, as without the pre-flight', async () => {
    const file = write('throws.mjs', "const x = 1;\nthrow new Error('boom at load');\nexport default x;\n");
    await expect(loadScenarioFile(file, { preflight: true, loadTimeoutMs: 20_000 })).rejects.toThrow(/could not load: boom at load \(at \S*throws\.mjs:2:\d+\)/);
  }, 60_000);
});

// After the CLI's spinning child is gone: a thread given a deadline of a second or two tells a
// loop from an await only if it gets the CPU to answer, and beside a core spinning for 30 s (and
// CLIs starting) one still importing answered as if it were waiting.
describe('a scenario module whose load never comes back, through loadScenarioFile at a short deadline', () => {
  for (const [name, code, said] of [
    ['while (true) {} in a module it imports', "import './spin-dep.mjs';\nexport default {};\n", /its code never came back \(a loop that never ends/],
    ['a top-level await that never settles', 'await new Promise(() => {});\nexport default {};\n', /it waits on something that never settles/],
    ['an exported promise that never settles, a timer keeping the thread alive', 'setInterval(() => {}, 1000);\nexport default new Promise(() => {});\n', /it waits on something that never settles/],
  ] as const) {
    it(`${name}: loadScenarioFile with the pre-flight refuses it at a 1.5 s deadline (stretched on a slow machine), saying which`, async () => {
      write('spin-dep.mjs', 'for (;;) {}\n');
      const file = write(`never-${name.length}.mjs`, code);
      // The deadline counts from the thread's beginning the import (its own loader, tsx from the
      // sources, no longer counts), but the import itself (tsx resolving and reading the files)
      // is part of it: on a starved machine a thread still importing would answer as if it were
      // waiting. Stretched as start-up is.
      const deadlineMs = Math.round(scaledMs(1500) / 100) * 100;
      const err = await loadScenarioFile(file, { preflight: true, loadTimeoutMs: deadlineMs }).then(() => undefined, (e: unknown) => e);
      expect(String(err)).toContain(`did not finish loading within ${deadlineMs / 1000} s`);
      expect(String(err)).toMatch(said);
    }, 60_000);
  }
});
