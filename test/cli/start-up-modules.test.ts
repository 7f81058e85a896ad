/**
 * Each command loads only what it uses: `flowgauge --version` and `--help` load no command's
 * code and none of the heavy packages (the load generator's transports, zod, autocannon, the
 * OpenTelemetry SDK, prom-client), and a command loads its own module, not the others'. Checked
 * on the modules the process loads (a loader hook lists them), not on a time: start-up time is
 * measured in the benchmark (`npm run bench -- --only startup`).
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packagesOf, traceModules } from '../helpers/module-trace.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = resolve(ROOT, 'bin/flowgauge.mjs');

/** Packages no command needs to start, only some code paths of some commands. */
const HEAVY = ['autocannon', '@opentelemetry/sdk-trace-base', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/resources', 'playwright-core'];
/** What `--version` and `--help` need none of: the run's machinery. */
const RUN_ONLY = [...HEAVY, '@opentelemetry/api', 'prom-client', 'undici', 'zod', 'hdr-histogram-js', 'csv-parse', 'yaml', 'eventsource-parser', 'uplot'];

const sources = (modules: readonly string[]): string[] =>
  modules.filter((u) => u.startsWith(`file://${ROOT}/src/`)).map((u) => u.slice(`file://${ROOT}/`.length));

describe('start-up: what each command loads', () => {
  it('--version loads neither yargs nor any command, only the CLI entry', async () => {
    const run = await traceModules(BIN, ['--version'], { cwd: ROOT });
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const loaded = packagesOf(run.modules);
    for (const p of [...RUN_ONLY, 'yargs']) expect(loaded, p).not.toContain(p);
    expect(sources(run.modules).filter((f) => /^src\/(cli\/commands\/(?!index)|run|export|api|report|load|collect|target|scenario)\//.test(f))).toEqual([]);
  }, 60_000);

  it('--help lists every command without loading one, nor yargs', async () => {
    const run = await traceModules(BIN, ['--help'], { cwd: ROOT });
    for (const c of ['run <scenario>', 'capacity <op>', 'probe', 'slo', 'serve']) expect(run.stdout).toContain(`flowgauge ${c}`);
    const loaded = packagesOf(run.modules);
    for (const p of [...RUN_ONLY, 'yargs']) expect(loaded, p).not.toContain(p);
    expect(sources(run.modules).filter((f) => /^src\/cli\/commands\/(?!index)/.test(f))).toEqual([]);
  }, 60_000);

  it('run loads its own module and none of the heavy packages its flags did not ask for', async () => {
    const run = await traceModules(BIN, ['run', '--help'], { cwd: ROOT });
    expect(run.stdout).toContain('--duration');
    const loaded = packagesOf(run.modules);
    for (const p of HEAVY) expect(loaded, p).not.toContain(p);
    const commands = sources(run.modules).filter((f) => f.startsWith('src/cli/commands/'));
    expect(commands).toContain('src/cli/commands/run.ts');
    expect(commands.filter((f) => /\/(capacity|probe|conformance|slo|serve|merge|compare)\.ts$/.test(f))).toEqual([]);
  }, 60_000);

  it('capacity never loads autocannon (a devDependency now: the sweep measures with the client)', async () => {
    const run = await traceModules(BIN, ['capacity', '--help'], { cwd: ROOT });
    expect(run.stdout).toContain('--max-concurrency');
    expect(packagesOf(run.modules)).not.toContain('autocannon');
    expect(sources(run.modules)).toContain('src/cli/commands/capacity.ts');
  }, 60_000);
});
