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

/** Writes `content` to `name` in the test directory and returns its path. */
async function scenarioFile(name: string, content: string): Promise<string> {
  const { writeFileSync } = await import('node:fs');
  const file = join(dir, name);
  writeFileSync(file, content);
  return file;
}

/** The `{ … }` a hint says to write after "write thresholds: ", parsed. */
function suggestedThresholds(message: string): Record<string, unknown> {
  const m = /write thresholds: (\{.*?\})(?: \(| with|$)/m.exec(message);
  if (m === null) throw new Error(`no thresholds to write in: ${message}`);
  return JSON.parse(m[1] as string) as Record<string, unknown>;
}

describe('a k6 user\'s first day', () => {
  const listFlows = (thresholds: unknown, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ name: 'habit', tier: 'pro', load: { rate: '8/s', duration: '1m30s' }, mix: [{ op: 'listFlows' }, { op: 'getUsage' }], thresholds, ...extra });

  it('`flowgauge smoke.js` (k6 run without run) is answered with the run command, exit 2', async () => {
    for (const scenario of ['smoke.js', 'smoke', './load/checkout.yaml']) {
      const r = await cli(scenario, '-d', '3s');
      expect(r.code).toBe(2);
      expect(r.err).toContain(`did you mean \`flowgauge run ${scenario}\``);
      expect(r.err).not.toMatch(/unknown flag/);
    }
    // Nothing but the scenario is echoed: another argument may be a token.
    expect((await cli('smoke.js', '--token', 'fg_secret_habit')).err).not.toContain('fg_secret_habit');
    // A mistyped command is still a mistyped command.
    expect((await cli('rn', 'smoke')).err).toMatch(/unknown command "rn": did you mean run\?/);
  });

  it('k6/Go durations work for -d, scenario durations and thresholds; a bad one lists the forms', async () => {
    const { readFileSync } = await import('node:fs');
    const file = await scenarioFile('durations.json', listFlows({ 'listFlows.latency.p99': '<1m30s', 'getUsage.latency.max': '<0h1m' }));
    const out = join(dir, 'durations');
    const r = await cli('run', file, '-d', '0m0.5s', '--out', out, '--quiet', '--no-audit');
    expect(r.code, r.err).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { load: { started: number }; thresholds: { metric: string; value: number }[] };
    expect(report.load.started).toBe(4);
    expect(report.thresholds.map((t) => t.value)).toEqual([90_000, 60_000]);
    const bad = await cli('run', file, '-d', '1m30');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--duration "1m30" is not a duration such as .*"1m30s".*"1h2m"/);
  });

  it('k6 thresholds get the flowgauge thresholds to write, and written they validate', async () => {
    const k6Forms: [string, unknown][] = [
      ['http_req_duration', ['p(95)<500', 'p(99)<1500']],
      ['http_req_duration', 'p(95)<500'],
      ['http_req_failed', ['rate<0.01']],
      ['http_req_failed', 'rate<0.01'],
      ['dropped_iterations', ['count<1']],
      ['listFlows.latency', ['p(95)<500', 'max<2s']],
      ['listFlows.latency.p99', 'p(95)<500'],
    ];
    for (const [key, value] of k6Forms) {
      const file = await scenarioFile('k6-thresholds.json', listFlows({ [key]: value }));
      const refused = await cli('run', file, '-d', '300ms', '--out', join(dir, 'k6-thr'), '--quiet', '--no-audit');
      expect(refused.code, `${key}: ${JSON.stringify(value)}`).toBe(2);
      expect(refused.err).not.toContain('http_req_duration.p95');
      // Follow the hint: paste what it says and the same run is accepted.
      const written = refused.err.includes('write thresholds: ')
        ? suggestedThresholds(refused.err)
        : (JSON.parse(`{${/: ("[^"]+": "[^"]+")\s*$/m.exec(refused.err)?.[1] ?? ''}}`) as Record<string, unknown>);
      expect(Object.keys(written).length, refused.err).toBeGreaterThan(0);
      const fixed = await scenarioFile('k6-fixed.json', listFlows(written));
      const ran = await cli('run', fixed, '-d', '300ms', '--out', join(dir, 'k6-fixed'), '--quiet', '--no-audit');
      expect(ran.err, `${key}: followed ${JSON.stringify(written)}`).not.toMatch(/invalid scenario|thresholds\[/);
      expect([0, 1], ran.err).toContain(ran.code);
    }
    // http_req_duration names every operation the mix sends.
    const file = await scenarioFile('k6-latency.json', listFlows({ http_req_duration: ['p(95)<500'] }));
    const r = await cli('run', file);
    expect(suggestedThresholds(r.err)).toEqual({ 'listFlows.latency.p95': '<500', 'getUsage.latency.p95': '<500' });
    // checks and iteration_duration, in a journey of steps.
    const steps = await scenarioFile(
      'k6-steps.yaml',
      'name: k6-steps\ntier: pro\nload: { rate: 8/s, duration: 1s }\nsteps:\n  - op: listFlows\n    check: { ok: { path: flows.length, min: 1 } }\n' +
        'thresholds:\n  checks: ["rate>0.99"]\n  iteration_duration: ["p(95)<2000"]\n',
    );
    const stepsRefused = await cli('run', steps);
    expect(stepsRefused.code).toBe(2);
    const both = { ...suggestedThresholds(stepsRefused.err.split('\n').find((l) => l.includes('thresholds.checks')) ?? ''), ...suggestedThresholds(stepsRefused.err.split('\n').find((l) => l.includes('iteration_duration')) ?? '') };
    expect(both).toEqual({ checks: '>0.99', 'iteration.duration.p95': '<2000' });
    const { readFileSync, writeFileSync } = await import('node:fs');
    writeFileSync(steps, readFileSync(steps, 'utf8').replace(/thresholds:[\s\S]*$/, `thresholds: ${JSON.stringify(both)}\n`));
    const stepsRan = await cli('run', steps, '-d', '300ms', '--out', join(dir, 'k6-steps'), '--quiet', '--no-audit');
    expect(stepsRan.code, stepsRan.out).toBe(0);
  });

  it('--out json=FILE is refused naming the directory to give, which then holds report.json; other k6 outputs get their flowgauge way', async () => {
    const { existsSync } = await import('node:fs');
    const r = await cli('run', 'smoke', '-d', '300ms', '--out', 'json=x.json', '--quiet', '--no-audit');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--out json=x\.json is k6's output form; .*--out x .*--json > x\.json/);
    expect(existsSync(join(dir, 'json=x.json'))).toBe(false);
    const dirGiven = /--out (\S+) \(/.exec(r.err)?.[1] as string;
    const followed = await cli('run', 'smoke', '-d', '300ms', '--out', dirGiven, '--quiet', '--no-audit');
    expect(followed.code, followed.err).toBe(0);
    expect(existsSync(join(dir, dirGiven, 'report.json'))).toBe(true);
    expect((await cli('run', 'smoke', '--out', 'csv=x.csv')).err).toMatch(/^flowgauge: --out csv=x\.csv is k6's output form; flowgauge writes no CSV/);
    expect((await cli('run', 'smoke', '--out', 'experimental-prometheus-rw')).err).toMatch(/does not remote-write; .*--metrics-port.*--pushgateway/);
    expect((await cli('run', 'smoke', '--out', 'influxdb=http://127.0.0.1:8086/k6')).code).toBe(2);
    expect((await cli('capacity', 'listFlows', '--out', 'json=cap.json')).err).toMatch(/k6's output form/);
  });

  it('every unknown field, at every level and in every format, names the nearest allowed one', async () => {
    const yaml = await scenarioFile(
      'typos.yaml',
      'name: typos\ntier: pro\nlaod: { rate: 1/s }\nload: { rate: 1/s, duraton: 1s, duration: 1s }\n' +
        'steps:\n  - op: listFlows\n    chek: { ok: { path: object, equls: list } }\n  - slep: 1s\n  - repeat: 2\n    stpes: [{ op: listFlows }]\n' +
        'timeouts: { reqest: 1s }\nslo: { objectiv: 0.99 }\nvus: 10\n',
    );
    const r = await cli('run', yaml);
    expect(r.code).toBe(2);
    for (const [path, near] of [
      ['laod', 'load'],
      ['load.duraton', 'duration'],
      ['steps[0].chek', 'check'],
      ['steps[2].stpes', 'steps'],
      ['timeouts.reqest', 'request'],
      ['slo.objectiv', 'objective'],
    ]) {
      expect(r.err).toMatch(new RegExp(`  - ${path!.replace(/[[\].]/g, '\\$&')}: unknown field "[^"]+"; did you mean "${near}"\\?`));
    }
    expect(r.err).toMatch(/steps\[1\]: .*did you mean "sleep" for "slep"\?/);
    expect(r.err).toMatch(/vus: unknown field "vus"; for k6's vus, write load: \{ executor: constant-concurrency, concurrency: N \}/);
    const json = await scenarioFile('typos.json', JSON.stringify({ name: 'typos', tier: 'pro', load: { rate: '1/s', duration: '1s' }, mix: [{ op: 'listFlows', wieght: 2 }] }));
    expect((await cli('run', json)).err).toMatch(/mix\[0\]\.wieght: unknown field "wieght"; did you mean "weight"\?/);
    const ts = await scenarioFile(
      'typos.ts',
      "import { defineScenario } from 'flowgauge';\nexport default defineScenario({ name: 'typos', tier: 'pro', load: { rate: '1/s', duration: '1s', maxInFligt: 2 } as never, mix: [{ op: 'listFlows' }] });\n",
    );
    expect((await cli('run', ts)).err).toMatch(/load\.maxInFligt: unknown field "maxInFligt"; did you mean "maxInFlight"\?/);
    const plan = await scenarioFile('typos-plan.json', JSON.stringify({ name: 'p', scenarios: { a: { tier: 'pro', load: { rate: '1/s', duration: '1s' }, mix: [{ op: 'listFlows' }] } }, tresholds: {} }));
    expect((await cli('run', plan)).err).toMatch(/tresholds: unknown field "tresholds"; did you mean "thresholds"\?/);
  });

  it('the report path the console prints is where README says reports go, and reports/latest links to it', async () => {
    const { readFileSync, realpathSync } = await import('node:fs');
    const r = await cli('run', 'smoke', '-d', '300ms', '--no-audit', '--quiet');
    expect(r.code, r.err).toBe(0);
    const m = /^report: (\S+)\/report\.html \(and report\.json, report\.md; (\S+)\/ points at the newest\)$/m.exec(r.out);
    expect(m, r.out).not.toBeNull();
    const printed = m?.[1] as string;
    expect(printed).toMatch(new RegExp(`^${join(dir, 'reports').replace(/[/\\.]/g, '\\$&')}/smoke-\\d{8}T\\d{6}Z$`));
    expect(m?.[2]).toBe(join('reports', 'latest'));
    expect(realpathSync(join(dir, 'reports', 'latest'))).toBe(realpathSync(printed));
    const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
    expect(readme).toContain('`reports/<scenario>-<timestamp>/report.html`');
    expect(readme).toMatch(/`reports\/latest` a link to the newest/);
  });
});
