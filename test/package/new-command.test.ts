/**
 * `flowgauge new`: each form's file is written, then run unchanged through the CLI against the
 * embedded service, and passes with traffic of its form in the report; bad names, clashes and
 * conflicting forms are bad input (exit 2).
 *
 * The three forms are written and run at once, each its own file, report directory and embedded
 * service: a run of 2 s mostly waits on its schedule. Their threads (the pre-flight of a .ts
 * scenario, the embedded service) start from the compiled package, not the sources through tsx
 * (test/setup/threads-from-dist.ts).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { strictUserOptions } from '../helpers/strict-user-ts.js';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';


const dir = mkdtempSync(join(tmpdir(), 'fg-new-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface RunReport {
  verdict: string;
  thresholds: { metric: string; passed: boolean; clientLagMs?: number }[];
  ops: Record<string, { count: number; bad: number }>;
  iterations?: { completed: number; failed: number };
  checks?: Record<string, { passes: number; fails: number }>;
}

async function newAndRun(args: string[], file: string): Promise<RunReport> {
  const made = memoryIo({ cwd: dir });
  expect(await main(['new', ...args], made)).toBe(0);
  expect(made.out()).toContain(`wrote ./${file}`);
  const io = memoryIo({ cwd: dir, env: {} });
  const out = join(dir, `out-${file}`);
  const code = await main(['run', `./${file}`, '--duration', '2s', '--out', out, '--quiet'], io);
  expect(io.err()).not.toMatch(/error|invalid/i);
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as RunReport;
  expect(code).toBe(passes(report) ? 0 : 1);
  return report;
}

/**
 * PASS, or failed only on latencies that include the generator's own lag (a starved machine;
 * the report says so on each: `clientLagMs`), which is the run telling the truth about itself,
 * not the written scenario failing. Any other failed threshold fails the test.
 */
function passes(report: RunReport): boolean {
  if (report.verdict === 'PASS') return true;
  const failed = report.thresholds.filter((t) => !t.passed);
  expect(failed.length, report.verdict).toBeGreaterThan(0);
  for (const t of failed) expect(t.clientLagMs, `${t.metric} failed without client lag`).toBeDefined();
  console.warn(`failed only on latency that includes client lag: ${failed.map((t) => t.metric).join(', ')}`);
  return false;
}

describe.concurrent('flowgauge new, each form run as written', () => {
  it('writes a mix (the default) that runs as written: every op of the mix sent, no failure', async () => {
    const report = await newAndRun(['my-mix'], 'my-mix.ts');
    expect(readFileSync(join(dir, 'my-mix.ts'), 'utf8')).toMatch(/^import \{ defineScenario \} from 'flowgauge';/);
    for (const op of ['run', 'stream', 'listFlows', 'getFlow']) {
      expect(report.ops[op]?.count, op).toBeGreaterThan(0);
      expect(report.ops[op]?.bad, op).toBe(0);
    }
  }, 120_000);

  it('writes a journey in code that runs as written: iterations complete and every check passes', async () => {
    const report = await newAndRun(['my-journey', '--journey'], 'my-journey.ts');
    expect(report.iterations?.completed).toBeGreaterThan(0);
    expect(report.iterations?.failed).toBe(0);
    expect(report.checks?.['history holds every turn']?.passes).toBeGreaterThan(0);
    expect(report.checks?.['history holds every turn']?.fails).toBe(0);
    expect(report.ops['createSession']?.count).toBeGreaterThan(0);
  }, 120_000);

  it('writes the journey as YAML steps that runs as written', async () => {
    const report = await newAndRun(['my-steps', '--steps'], 'my-steps.yaml');
    expect(readFileSync(join(dir, 'my-steps.yaml'), 'utf8')).toMatch(/^# my-steps: /);
    expect(report.iterations?.completed).toBeGreaterThan(0);
    expect(report.checks?.['history holds every turn']?.fails).toBe(0);
    expect(report.checks?.['history holds every turn']?.passes).toBeGreaterThan(0);
  }, 120_000);
});

describe('flowgauge new', () => {
  // After the runs above, which wrote the files.
  it('writes TypeScript that type-checks under strict, as an editor of the user sees it', () => {
    const files = ['my-mix.ts', 'my-journey.ts'].map((f) => join(dir, f));
    for (const f of files) expect(existsSync(f), f).toBe(true);
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    // The installed package resolves 'flowgauge' through node_modules; here, to the sources.
    const program = ts.createProgram(files, strictUserOptions(join(process.cwd(), 'src', 'index.ts')));
    // Checked file by file: the two written files and the program's global diagnostics, not every
    // file of src/ they import (whose own diagnostics were filtered out anyway; `npm test` runs tsc).
    const problems = files
      .flatMap((f) => ts.getPreEmitDiagnostics(program, program.getSourceFile(f)))
      .filter((d) => d.file === undefined || files.includes(d.file.fileName))
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(problems).toEqual([]);
  }, 180_000);

  it('refuses to overwrite a file unless --force', async () => {
    const path = join(dir, 'mine.ts');
    writeFileSync(path, '// my own work\n');
    const io = memoryIo({ cwd: dir });
    expect(await main(['new', 'mine'], io)).toBe(2);
    expect(io.err()).toMatch(/exists; .*--force/);
    expect(readFileSync(path, 'utf8')).toBe('// my own work\n');
    expect(await main(['new', 'mine', '--force'], memoryIo({ cwd: dir }))).toBe(0);
    expect(readFileSync(path, 'utf8')).toMatch(/defineScenario/);
  });

  it.each([
    [['new', 'My_Check'], /not a scenario name: use lower-case letters, digits and dashes/],
    [['new', 'x.yaml'], /a --mix scenario is a \.ts file/],
    [['new', 'x', '--journey', '--steps'], /mutually exclusive|conflict/i],
  ])('%j is bad input (exit 2) naming what is allowed', async (argv, message) => {
    const io = memoryIo({ cwd: dir });
    expect(await main(argv, io)).toBe(2);
    expect(io.err()).toMatch(message);
    expect(existsSync(join(dir, 'x.ts'))).toBe(false);
  });
});
