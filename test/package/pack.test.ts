/**
 * The package as its users meet it: `npm pack` (which builds dist/ first), the tarball unpacked
 * into an empty project as `npm install` would place it (its dependencies beside it, linked from
 * this checkout's node_modules, so the test needs no registry), and there:
 * the bin runs a ready scenario, a scenario file of the project's own imports `flowgauge` by
 * name, and plain Node ESM imports the library.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = resolve('.');
const dir = mkdtempSync(join(tmpdir(), 'fg-pack-'));
const project = join(dir, 'project');
let files: string[] = [];

beforeAll(async () => {
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  const info = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  files = (info[0]?.files ?? []).map((f) => f.path);
  const modules = join(project, 'node_modules');
  mkdirSync(join(modules, 'flowgauge'), { recursive: true });
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (name !== 'flowgauge') symlinkSync(join(ROOT, 'node_modules', name), join(modules, name));
  }
  await run('tar', ['xzf', join(dir, info[0]?.filename ?? ''), '-C', join(modules, 'flowgauge'), '--strip-components=1']);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'a-user-project', private: true, type: 'module' }));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bin = (): string => join(project, 'node_modules', 'flowgauge', 'bin', 'flowgauge.mjs');

describe('the packed package', () => {
  it('ships what an installed CLI and library need, and nothing of the tests or sources', () => {
    expect(files).toContain('dist/cli/main.js');
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/index.d.ts');
    expect(files).toContain('bin/flowgauge.mjs');
    expect(files).toContain('scenarios/smoke.ts');
    expect(files).toContain('scenarios/data/prompts.jsonl');
    expect(files.filter((f) => f.startsWith('test/') || f.startsWith('src/') || f.startsWith('bench/'))).toEqual([]);
  });

  it('runs a ready scenario from its bin, on dist/', async () => {
    const { stdout } = await run(process.execPath, [bin(), 'run', 'smoke', '--duration', '2s', '--quiet'], { cwd: project });
    expect(stdout).toMatch(/flowgauge smoke: PASS/);
  }, 60_000);

  it("runs a scenario file of the project's own that imports flowgauge by name", async () => {
    writeFileSync(
      join(project, 'mine.ts'),
      "import { defineScenario, type Vu } from 'flowgauge';\n" +
        "export default defineScenario({ name: 'mine', tier: 'pro', load: { rate: '5/s', duration: '1s' }, journey: async (vu: Vu) => { await vu.listFlows(); } });\n",
    );
    const { stdout } = await run(process.execPath, [bin(), 'run', './mine.ts', '--quiet'], { cwd: project });
    expect(stdout).toMatch(/flowgauge mine: PASS/);
    expect(stdout).toContain('iterations  5 started, 5 completed');
  }, 60_000);

  it('imports the library from plain Node ESM', async () => {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', "import { createClient, defineScenario, executeRun } from 'flowgauge'; console.log([createClient, defineScenario, executeRun].map((f) => typeof f).join(' '));"], { cwd: project });
    expect(stdout.trim()).toBe('function function function');
  });
});
