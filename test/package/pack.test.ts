/**
 * The package as its users meet it: `npm pack` (whose prepack builds dist/), the tarball
 * installed with `npm install --offline` into an empty project outside the repository (its
 * dependencies from the npm cache `npm ci` filled), and there: the bin runs a ready scenario,
 * a scenario file of the project's own imports `flowgauge` by name, and plain Node ESM uses the
 * library and its subpaths.
 *
 * When the local npm cache cannot serve the install, the install-dependent tests skip with a
 * loud note; under CI=true that is a failure instead.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeOfflineProject } from './offline-project.js';

const exec = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'fg-pack-'));
const project = join(dir, 'project');
const env = { ...process.env, NO_COLOR: '1', FLOWGAUGE_TOKEN: '' };
let files: string[] = [];
let skipReason: string | undefined;

/**
 * `npm pack` here (its prepack builds dist/), or the tarball `FLOWGAUGE_TEST_TARBALL` names:
 * .ci/run packs the checkout once and runs this file on three Node versions against that one
 * tarball (built from the same sources, it is the same package), not three builds.
 */
async function packOrPrebuilt(): Promise<{ filename: string; size: number; files: string[] }> {
  const prebuilt = process.env.FLOWGAUGE_TEST_TARBALL;
  if (prebuilt !== undefined && prebuilt !== '') {
    const { stdout } = await exec('tar', ['-tzf', prebuilt], { maxBuffer: 16 * 1024 * 1024 });
    await exec('cp', [prebuilt, join(dir, basename(prebuilt))]);
    const listed = stdout.split('\n').filter((p) => p !== '' && !p.endsWith('/')).map((p) => p.replace(/^package\//, ''));
    return { filename: basename(prebuilt), size: statSync(prebuilt).size, files: listed };
  }
  const { stdout } = await exec('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024, env }).catch((err: unknown) => {
    // The build's compiler errors are on stdout: show them, not only npm's "command failed".
    const e = err as { stdout?: string; stderr?: string };
    throw new Error(`npm pack (prepack builds dist/) failed:\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  });
  const info = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string; size: number; files: { path: string }[] }[];
  const packed = info[0];
  if (packed === undefined) throw new Error(`npm pack printed no package: ${stdout.slice(0, 200)}`);
  return { filename: packed.filename, size: packed.size, files: packed.files.map((f) => f.path) };
}

beforeAll(async () => {
  const t0 = performance.now();
  const packed = await packOrPrebuilt();
  files = packed.files;
  const t1 = performance.now();
  mkdirSync(project);
  const tgz = join(project, packed.filename);
  rmSync(tgz, { force: true });
  await exec('mv', [join(dir, packed.filename), tgz]);
  await writeOfflineProject(project, ROOT, tgz);
  try {
    await exec('npm', ['install', '--offline', '--no-audit', '--no-fund', `./${packed.filename}`], { cwd: project, env, maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    const text = `${(err as { stderr?: string }).stderr ?? ''}${(err as Error).message}`;
    const offline = /ENOTCACHED|only-if-cached|E404|ENOTFOUND|EAI_AGAIN/.test(text);
    if (!offline || process.env.CI === 'true') throw err;
    skipReason = `npm install --offline cannot be served by the local npm cache (run npm ci to fill it): ${text.split('\n').find((l) => /npm error/.test(l)) ?? text.slice(0, 200)}`;
    console.warn(`\n*** SKIPPING the installed-package tests: ${skipReason}\n`);
    return;
  }
  console.info(`pack: build + pack ${((t1 - t0) / 1000).toFixed(1)} s, tarball ${(packed.size / 1024).toFixed(0)} KiB (${files.length} files), offline install ${((performance.now() - t1) / 1000).toFixed(1)} s`);
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A guard against a hang, not a timing: the cases run side by side, so each waits on the others' CPU too. */
const CASE_GUARD_MS = 150_000;

const inProject = (cmd: string, args: string[]): Promise<{ stdout: string; stderr: string }> =>
  exec(cmd, args, { cwd: project, env, maxBuffer: 16 * 1024 * 1024 });

// The cases share the installed project but no file in it (each writes its own), and mostly wait
// on child processes: side by side, this file (run on three Node versions in CI) takes the
// longest case instead of their sum.
describe.concurrent('the packed package', () => {
  it('ships what an installed CLI and library need, and nothing of the tests or sources', () => {
    for (const f of ['dist/cli/main.js', 'dist/index.js', 'dist/index.d.ts', 'dist/index-client.js', 'dist/index-scenario.js', 'dist/index-report.js', 'dist/index-reference-service.js']) {
      expect(files).toContain(f);
    }
    for (const f of ['bin/flowgauge.mjs', 'cjs/index.cjs', 'cjs/load.cjs', 'scenarios/smoke.ts', 'scenarios/data/prompts.jsonl', 'README.md', 'LICENSE', 'package.json', 'docs/api.md']) expect(files).toContain(f);
    const stray = files.filter((f) => /^(test|src|bench|reports|\.ci)\//.test(f) || f.endsWith('.map') || /(^|\/)tsconfig/.test(f));
    expect(stray).toEqual([]);
  });

  it('installs offline into an empty project, with the bin on dist/ (tsx only loads .ts scenarios)', ({ skip }) => {
    if (skipReason !== undefined) return skip(skipReason);
    const pkg = join(project, 'node_modules', 'flowgauge');
    expect(existsSync(join(pkg, 'dist', 'cli', 'main.js'))).toBe(true);
    expect(existsSync(join(pkg, 'src'))).toBe(false);
    expect(readdirSync(join(project, 'node_modules', '.bin'))).toContain('flowgauge');
  });

  it('runs a ready scenario with npx flowgauge', async ({ skip }) => {
    if (skipReason !== undefined) return skip(skipReason);
    const { stdout } = await inProject('npx', ['flowgauge', 'run', 'smoke', '--duration', '2s', '--quiet']);
    expect(stdout).toMatch(/flowgauge smoke: PASS/);
    expect(readdirSync(join(project, 'reports')).some((d) => d.startsWith('smoke-'))).toBe(true);
  }, CASE_GUARD_MS);

  it("runs a scenario file of the project's own that imports flowgauge by name, also split over worker threads", async ({ skip }) => {
    if (skipReason !== undefined) return skip(skipReason);
    writeFileSync(
      join(project, 'mine.ts'),
      "import { defineScenario, type Vu } from 'flowgauge';\n\n" +
        'export default defineScenario({\n' +
        "  name: 'mine',\n  tier: 'pro',\n  load: { rate: '5/s', duration: '1s' },\n" +
        '  journey: async (vu: Vu) => {\n    await vu.listFlows();\n  },\n});\n',
    );
    const { stdout } = await inProject('npx', ['flowgauge', 'run', './mine.ts', '--quiet']);
    expect(stdout).toMatch(/flowgauge mine: PASS/);
    expect(stdout).toContain('iterations  5 started, 5 completed');
    // The workers start from the package's compiled entry and load the same .ts file each.
    const workers = Math.min(2, availableParallelism());
    const split = await inProject('npx', ['flowgauge', 'run', './mine.ts', '--quiet', '--workers', String(workers)]);
    expect(split.stdout).toMatch(/flowgauge mine: PASS/);
    expect(split.stdout).toContain('iterations  5 started, 5 completed');
  }, CASE_GUARD_MS);

  it('scaffolds a scenario with npx flowgauge new that runs there as written', async ({ skip }) => {
    if (skipReason !== undefined) return skip(skipReason);
    await inProject('npx', ['flowgauge', 'new', 'first-check', '--journey']);
    const { stdout } = await inProject('npx', ['flowgauge', 'run', './first-check.ts', '--duration', '2s', '--quiet']);
    expect(stdout).toMatch(/flowgauge first-check: PASS/);
  }, CASE_GUARD_MS);

  it('serves the library and its subpaths to plain Node ESM', async ({ skip }) => {
    if (skipReason !== undefined) return skip(skipReason);
    writeFileSync(
      join(project, 'use.mjs'),
      [
        "import { createClient, startReferenceService, executeRun, readReport, resolveScenario } from 'flowgauge';",
        "import { createClient as clientFromSubpath } from 'flowgauge/client';",
        "import { defineScenario } from 'flowgauge/scenario';",
        "import { mergeReports } from 'flowgauge/report';",
        "import { startReferenceService as serviceFromSubpath } from 'flowgauge/reference-service';",
        'const service = await startReferenceService();',
        'const client = createClient({ baseUrl: service.baseUrl, token: service.tokens.pro });',
        'const flows = await client.listFlows();',
        "const scenario = resolveScenario({ name: 'lib', tier: 'pro', load: { rate: '10/s', duration: '1s' }, mix: [{ op: 'listFlows', weight: 1 }] }, {}, { source: 'use.mjs' });",
        'const { report } = await executeRun({ scenario, client, target: { baseUrl: service.baseUrl, embedded: true } });',
        'const reread = readReport(JSON.stringify(report), "report.json");',
        'await client.close();',
        'await service.close();',
        'console.log(JSON.stringify({',
        '  ok: flows.ok,',
        '  sameClient: clientFromSubpath === createClient,',
        '  sameService: serviceFromSubpath === startReferenceService,',
        '  verdict: reread.verdict,',
        '  listed: reread.ops.listFlows?.count,',
        '  kinds: [defineScenario, mergeReports].map((f) => typeof f),',
        '}));',
      ].join('\n'),
    );
    const { stdout } = await inProject(process.execPath, ['use.mjs']);
    expect(JSON.parse(stdout.trim())).toEqual({ ok: true, sameClient: true, sameService: true, verdict: 'PASS', listed: 10, kinds: ['function', 'function'] });
  }, CASE_GUARD_MS);

  it("compiles in a strict consumer's tsc (skipLibCheck false, tsc's default): no declaration needs a dev dependency's types", async ({ skip }) => {
    if (skipReason !== undefined) return skip(skipReason);
    const consumer = join(project, 'strict');
    mkdirSync(consumer, { recursive: true });
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ type: 'module' }));
    // Node's types from the checkout, as any Node project has them; nothing else of its @types
    // (typeRoots feeds `types` only: an import of 'autocannon' is still resolved as the consumer would).
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, skipLibCheck: false, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', noEmit: true, types: ['node'], typeRoots: [join(ROOT, 'node_modules', '@types')] },
        include: ['consumer.ts'],
      }),
    );
    writeFileSync(
      join(consumer, 'consumer.ts'),
      [
        "import * as main from 'flowgauge';",
        "import * as client from 'flowgauge/client';",
        "import * as scenario from 'flowgauge/scenario';",
        "import * as report from 'flowgauge/report';",
        "import * as service from 'flowgauge/reference-service';",
        'export const entries = [main, client, scenario, report, service];',
      ].join('\n'),
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const r = await exec(process.execPath, [tsc, '-p', consumer], { cwd: consumer, env }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? String(err) }));
    expect(r.stdout).toBe('');
  }, CASE_GUARD_MS);

  it('is required from CommonJS (require(esm)), the same objects as import; where require cannot load it, the error names import()', async ({ skip }) => {
    if (skipReason !== undefined) return skip(skipReason);
    writeFileSync(
      join(project, 'use.cjs'),
      [
        "const fg = require('flowgauge');",
        "const { createClient } = require('flowgauge/client');",
        "const { defineScenario } = require('flowgauge/scenario');",
        "const { mergeReports } = require('flowgauge/report');",
        "const { startReferenceService } = require('flowgauge/reference-service');",
        "import('flowgauge').then((esm) => console.log(JSON.stringify({ same: esm.createClient === fg.createClient && createClient === fg.createClient && startReferenceService === fg.startReferenceService, kinds: [defineScenario, mergeReports].map((f) => typeof f) })));",
      ].join('\n'),
    );
    const { stdout } = await inProject(process.execPath, ['use.cjs']);
    expect(JSON.parse(stdout.trim())).toEqual({ same: true, kinds: ['function', 'function'] });
    // A Node without require(esm) (before 20.19 / 22.12), as this one is with the flag off.
    const old = await inProject(process.execPath, ['--no-experimental-require-module', 'use.cjs']).then(
      () => ({ stderr: '' }),
      (err: { stderr?: string }) => ({ stderr: err.stderr ?? '' }),
    );
    expect(old.stderr).toMatch(/flowgauge is an ES module and this Node \(\S+\) cannot require\(\) it: use `const fg = await import\('flowgauge'\)`/);
  }, CASE_GUARD_MS);
});
