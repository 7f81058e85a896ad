/**
 * What a k6 user types, through `main`: every mistake is exit 2 with a message that names the
 * flag as typed and what to do; a base URL without its version segment gets /v1 with a note.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { closest, humanizeUsageMessage } from '../../src/cli/usage-messages.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';

let dir: string;
let service: ReferenceService;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-k6-habits-'));
  service = await startReferenceService({ latency: 'none' });
});
afterAll(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo({ cwd: dir });
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe('k6 habits on the command line', () => {
  it('run without a scenario asks for one, naming the ready ones', async () => {
    const r = await cli('run');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^flowgauge: name a scenario: a file \(\.ts\/\.js\/\.json\/\.yaml\) or one of .*mixed-pro.*smoke/);
    expect(r.err).not.toMatch(/non-option/);
  });

  it('a path that does not exist says so; a mistyped ready scenario gets the nearest', async () => {
    const missing = await cli('run', './load/checkout.yaml');
    expect(missing.code).toBe(2);
    expect(missing.err).toContain(`file ${join(dir, 'load/checkout.yaml')} does not exist`);
    const typo = await cli('run', 'mixd-pro');
    expect(typo.err).toMatch(/no file or ready scenario "mixd-pro": did you mean mixed-pro\?/);
  });

  it('did-you-mean for a mistyped flag or command, flags named as typed', async () => {
    const flag = await cli('run', 'smoke', '--durration', '3s');
    expect(flag).toMatchObject({ code: 2, err: expect.stringMatching(/^flowgauge: unknown flag --durration: did you mean --duration\?/) });
    expect((await cli('probe', '--intervall', '1m')).err).toMatch(/unknown flag --intervall: did you mean --interval\?/);
    const cmd = await cli('rn', 'smoke');
    expect(cmd).toMatchObject({ code: 2, err: expect.stringMatching(/unknown command "rn": did you mean run\?/) });
    expect((await cli('run', 'smoke', '--duration')).err).toMatch(/^flowgauge: --duration needs a value/);
    expect((await cli('run', 'smoke', '-d')).err).toMatch(/^flowgauge: -d needs a value/);
    expect((await cli('run', 'smoke', '--transport', 'h3')).err).toMatch(/^flowgauge: --transport "h3" is not one of "auto", "h1", "undici"/);
    expect((await cli('slo', 'status', '--json', '--html')).err).toMatch(/--json and --html are mutually exclusive: give one of them/);
    expect((await cli('compare', 'a.json')).err).toMatch(/name two report\.json files/);
  });

  it('--vus explains the closed model instead of "Unknown argument"', async () => {
    const r = await cli('run', 'smoke', '--vus', '10');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/flowgauge has no --vus: .*open model .*--rate.*closed model.*executor: constant-concurrency, concurrency: N/);
  });

  it('a base URL without /v1 gets it appended with a note; credentials in it are refused naming --base-url', async () => {
    const origin = service.baseUrl.replace(/\/v1\/?$/, '');
    const r = await cli('probe', '--once', '--interval', '1m', '--history', 'h', '--checks', 'listFlows', '--base-url', origin, '--token', service.tokens.pro, '--quiet');
    expect(r.err).toContain(`--base-url ${origin}/ has no version segment; using ${origin}/v1`);
    expect(r.code, r.err).toBe(0);
    const creds = await cli('probe', '--once', '--base-url', 'https://user:pw@api.example.com/v1', '--token', 't');
    expect(creds).toMatchObject({ code: 2, err: expect.stringMatching(/--base-url must not carry credentials/) });
    expect(creds.err).not.toMatch(/baseUrl|target\./);
  });

  it('conformance --max-requests below 1 is bad input, not an unreachable target', async () => {
    expect(await cli('conformance', '--max-requests', '-1')).toMatchObject({ code: 2, err: expect.stringMatching(/^flowgauge: --max-requests must be a whole number >= 1, got -1/) });
    expect(await cli('conformance', '--max-requests', '0')).toMatchObject({ code: 2 });
  });

  it('did-you-mean only for a near miss', () => {
    expect(closest('listflows', ['listFlows', 'getFlow'])).toBe('listFlows');
    expect(closest('zzzz', ['duration', 'rate'])).toBeUndefined();
    const ctx = { argv: ['run', 'x', '--qq'], commands: ['run'], flags: ['quiet', 'out'], scenarios: [] };
    expect(humanizeUsageMessage('Unknown argument: qq', ctx)).toBe('unknown flag --qq');
  });
});

describe('README', () => {
  it('lists every command that --help lists', async () => {
    const { readFileSync } = await import('node:fs');
    const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
    const help = (await cli('--help')).out;
    const commands = [...help.matchAll(/^ {2}flowgauge (\S+)/gm)].map((m) => m[1] as string);
    expect(commands).toEqual(expect.arrayContaining(['run', 'probe', 'conformance', 'capacity']));
    for (const c of commands) expect(readme, c).toMatch(new RegExp(`^flowgauge ${c}\\b`, 'm'));
  });
});

describe('-e NAME=VALUE', () => {
  it('is in process.env for the run, so a .ts scenario reads it, and is put back afterwards', async () => {
    const { writeFileSync, readFileSync } = await import('node:fs');
    const file = join(dir, 'env-rate.ts');
    writeFileSync(
      file,
      "import { defineScenario } from 'flowgauge';\n" +
        "export default defineScenario({ name: 'env-rate', tier: 'pro', load: { executor: 'constant-arrival-rate', rate: process.env.FG_K6_RATE ?? '1/s', duration: '1s' }, mix: [{ op: 'listFlows' }] });\n",
    );
    expect(process.env.FG_K6_RATE).toBeUndefined();
    const r = await cli('run', file, '-e', 'FG_K6_RATE=8/s', '-d', '500ms', '--out', join(dir, 'env-rate'), '--quiet', '--no-audit');
    expect(r.code, r.err).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'env-rate', 'report.json'), 'utf8')) as { load: { targetRatePerS: number; started: number } };
    expect(report.load.targetRatePerS).toBe(8);
    expect(report.load.started).toBe(4);
    expect(process.env.FG_K6_RATE).toBeUndefined();
  });
});
