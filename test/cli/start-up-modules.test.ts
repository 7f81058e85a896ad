/**
 * Each command loads only what it uses: `flowgauge --version` and `--help` load no command's
 * code and none of the heavy packages (the load generator's transports, zod, autocannon, the
 * OpenTelemetry SDK, prom-client), and a command loads its own module, not the others'; `run`
 * loads what its first request needs before it, and its exporters, report renderers and the
 * workers' code only when used; a scenario importing the package entry loads no transport's or
 * exporter's package. Checked
 * on the modules the process loads (a loader hook lists them), not on a time: start-up time is
 * measured in the benchmark (`npm run bench -- --only startup`).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packagesOf, traceModules } from '../helpers/module-trace.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = resolve(ROOT, 'bin/flowgauge.mjs');
const REGISTER = resolve(ROOT, 'test/helpers/module-trace/register.mjs');

/**
 * The modules `run <scenario>` has loaded when its first request reaches a local server (the
 * process is killed then): what a run pays for before it measures anything.
 */
async function modulesAtFirstRequest(scenario: string, dir: string): Promise<string[]> {
  const file = join(dir, 'modules.txt');
  let first: (() => void) | undefined;
  const arrived = new Promise<void>((r) => (first = r));
  const server = createServer((req, res) => {
    first?.();
    first = undefined;
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"items":[],"nextCursor":null}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const args = ['--import', REGISTER, BIN, 'run', scenario, '--base-url', `http://127.0.0.1:${port}/v1`, '--token', 'fg_trace_token', '--quiet', '--out', join(dir, 'out')];
  const child = spawn(process.execPath, args, { cwd: dir, env: { ...process.env, FG_MODULE_TRACE: file }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', r));
  try {
    const ended = await Promise.race([arrived.then(() => undefined), exited]);
    if (ended !== undefined) throw new Error(`run exited (${ended}) before its first request:\n${stderr}`);
    return readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((u) => u.replace(/\?.*$/, ''));
  } finally {
    child.kill('SIGKILL');
    await exited;
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

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

  it('run of a .json scenario loads, before its first request, no exporter, renderer, reader, parser or worker code it does not use', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fg-startup-'));
    try {
      const scenario = join(dir, 'tiny.json');
      writeFileSync(scenario, JSON.stringify({ name: 'tiny', tier: 'pro', load: { executor: 'constant-arrival-rate', rate: '5/s', duration: '2s' }, mix: [{ op: 'listFlows' }] }));
      const modules = await modulesAtFirstRequest(scenario, dir);
      expect(sources(modules)).toContain('src/run/session.ts');
      const loaded = packagesOf(modules);
      // prom-client and OpenTelemetry come with their exporters; yaml and csv-parse with a .yaml scenario or a CSV data file.
      for (const p of [...HEAVY, '@opentelemetry/api', 'prom-client', 'yaml', 'csv-parse', 'uplot']) expect(loaded, p).not.toContain(p);
      // An http: target is carried by the client's own HTTP/1.1 transport: undici (https:, proxies)
      // is loaded when a dispatcher is built, and hdr-histogram-js by the parts a run uses (its
      // WebAssembly build and compressed encoding only when a report is encoded).
      expect(loaded, 'undici').not.toContain('undici');
      expect(modules.filter((u) => /\/hdr-histogram-js\/dist\/(index|wasm\/|encoding|JsHistogram\.encoding)/.test(u))).toEqual([]);
      expect(modules.some((u) => u.endsWith('/hdr-histogram-js/dist/Int32Histogram.js'))).toBe(true);
      const deferred = /^src\/(target|export\/(?!webhook-receiver)|run\/exporters\/(?!exporter-registry)|run\/workers\/|run\/outputs\/(dashboard|tracing)|report\/(html|markdown|read|report-schema|report-json-schema|compare|dashboard-page)\.ts|capacity|conformance|probe)/;
      expect(sources(modules).filter((f) => deferred.test(f))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("a scenario's `import 'flowgauge'` loads none of the transports' and exporters' packages: undici, prom-client and OpenTelemetry come with their first use", async () => {
    // The compiled package, as a scenario of an installed one imports it (from the sources only tsx loads it).
    const bin = process.env.FLOWGAUGE_TEST_BIN;
    if (bin === undefined) throw new Error('FLOWGAUGE_TEST_BIN is not set: this test needs the compiled package (test/setup/compiled-cli.ts)');
    const entry = resolve(dirname(bin), '../dist/index.js');
    const dir = mkdtempSync(join(tmpdir(), 'fg-entry-'));
    try {
      const script = join(dir, 'scenario.mjs');
      writeFileSync(script, `const fg = await import(${JSON.stringify(entry)});\nconsole.log(typeof fg.defineScenario, typeof fg.executeRun, typeof fg.createProbeRunner);\n`);
      const run = await traceModules(script, [], { cwd: dir });
      expect(run.stdout.trim()).toBe('function function function');
      const loaded = packagesOf(run.modules);
      for (const p of ['undici', 'prom-client', '@opentelemetry/api', ...HEAVY]) expect(loaded, p).not.toContain(p);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('capacity never loads autocannon (a devDependency now: the sweep measures with the client)', async () => {
    const run = await traceModules(BIN, ['capacity', '--help'], { cwd: ROOT });
    expect(run.stdout).toContain('--max-concurrency');
    expect(packagesOf(run.modules)).not.toContain('autocannon');
    expect(sources(run.modules)).toContain('src/cli/commands/capacity.ts');
  }, 60_000);
});
