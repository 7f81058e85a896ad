/**
 * A k6 user's scripts through the CLI: `flowgauge run script.js` says it is a k6 script and how
 * to convert it (exit 2); `flowgauge new --from-k6 script.js` writes the journey, which then
 * runs for a second against the reference service with the operations, checks, steps and
 * thresholds its script had. The scripts are the shapes of k6's own examples
 * (test/scenario/k6-scripts/); a second local server stands for "another host" (vu.http).
 *
 * Most of a run's cost is loading its module twice: in the pre-flight thread (`load-preflight.ts`),
 * then here. Here the loaded package is this process's, shared by every run; the thread loads it
 * anew each time, from the compiled package (test/setup/threads-from-dist.ts). The six runs go at
 * once, in this process: each owns its script, its converted file, its report directory and its
 * token, and what they assert are counts (> 0, == 1, no fails) that a second of a run shared
 * with the others still gives.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';

const SCRIPT_NAMES = ['http-get', 'stages', 'scenarios', 'thresholds', 'groups', 'unconvertible'] as const;
/**
 * One token (and account) per converted script, each with a limit no machine reaches in these
 * runs: a converted script has no pacing of its own, and one second of `thresholds.js` alone
 * sends about 900 listFlows on a 2-core machine, so on a faster one a pro token's 1,000 a
 * minute ran out within the run and its 429s failed `errors.rate`, which has nothing to do with
 * the conversion. (The scripts still say `tier: 'pro'`: what the limiter announces is the truth.)
 */
const tokenOf = (name: string): string => `fg_k6_convert_${name}`;
const SCRIPTS = join(import.meta.dirname, '..', 'scenario', 'k6-scripts');
/** A guard against a hang, not a timing: each run lasts a second or two, six at once. */
const RUN_GUARD_MS = 120_000;

let dir: string;
let service: ReferenceService;
let health: Server;
let healthUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-k6-cli-'));
  for (const f of SCRIPT_NAMES) copyFileSync(join(SCRIPTS, `${f}.js`), join(dir, `${f}.js`));
  const tokens = Object.fromEntries(SCRIPT_NAMES.map((n) => [tokenOf(n), { account: `acct_k6_${n}`, tier: { limitPerMinute: 1_000_000 } }]));
  service = await startReferenceService({ latency: 'none', tokens });
  health = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((r) => health.listen(0, '127.0.0.1', r));
  healthUrl = `http://127.0.0.1:${(health.address() as { port: number }).port}/health`;
});
afterAll(async () => {
  await service.close();
  await new Promise((r) => health.close(r));
  rmSync(dir, { recursive: true, force: true });
});

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo({ cwd: dir });
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}

interface Report {
  ops: Record<string, { count: number; bad: number }>;
  iterations?: { completed: number; failed: number; errors?: Record<string, number> };
  checks?: Record<string, { passes: number; fails: number }>;
  steps?: Record<string, unknown>;
  thresholds: { metric: string; observed: number | null; passed: boolean }[];
  scenarios?: Record<string, unknown>;
}

/** Converts `name`.js, runs the result for `seconds` against the reference service, and reads its report. */
async function convertAndRun(name: string, seconds = 1): Promise<{ code: number; report: Report; err: string }> {
  const made = await cli('new', '--from-k6', `${name}.js`, '--force');
  expect(made.code, made.err).toBe(0);
  const out = join(dir, `out-${name}`);
  const r = await cli('run', `./${name}.ts`, '-d', `${seconds}s`, '--base-url', service.baseUrl, '--token', tokenOf(name), '--out', out, '--quiet', '--no-audit', '-e', `BASE_URL=${service.baseUrl}`, '-e', `HEALTH_URL=${healthUrl}`);
  expect(r.err).not.toMatch(/invalid|internal error|could not load/);
  // What the run said travels with any failed assertion on it below.
  if (!existsSync(join(out, 'report.json'))) throw new Error(`no report.json (exit ${r.code}): ${r.err}`);
  return { code: r.code, report: JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report, err: r.err };
}

describe('k6 scripts through the CLI', () => {
  it('`flowgauge run script.js` on a k6 script: exit 2, what it is and the command that converts it, no require stack', async () => {
    const r = await cli('run', 'http-get.js');
    expect(r.code).toBe(2);
    const path = join(dir, 'http-get.js');
    expect(r.err).toContain(`${path}: is a k6 script (it imports 'k6' on line 2); flowgauge runs its own scenario format. Convert it: \`flowgauge new --from-k6 ${path}\` writes http-get.ts`);
    expect(r.err).not.toMatch(/Cannot find module|require stack|\n\s+at /);
  }, RUN_GUARD_MS);

  it('new --from-k6 writes <name>.ts, says what was not converted, refuses to overwrite, takes a name', async () => {
    const r = await cli('new', '--from-k6', 'unconvertible.js');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^wrote \.\/unconvertible\.ts \(a journey converted from unconvertible\.js; 13 things not converted, each marked "flowgauge: not converted" in the file\)\n {2}- ws from 'k6\/ws'/);
    expect(r.out).toContain('  … and 1 more\nrun it:  flowgauge run ./unconvertible.ts --duration 30s\n');
    expect(await cli('new', '--from-k6', 'unconvertible.js')).toMatchObject({ code: 2, err: expect.stringContaining('unconvertible.ts exists; choose another name or add --force') });
    expect(await cli('new', '--from-k6', 'stages.js', 'ramp-up')).toMatchObject({ code: 0, out: expect.stringMatching(/^wrote \.\/ramp-up\.ts \(a journey converted from stages\.js; everything converted\)/) });
    expect(readFileSync(join(dir, 'ramp-up.ts'), 'utf8')).toContain("name: 'ramp-up',");
    expect(await cli('new', '--from-k6', 'missing.js')).toMatchObject({ code: 2, err: expect.stringContaining('missing.js') });
    expect((await cli('new', 'x', '--journey', '--from-k6', 'stages.js')).code).toBe(2);
    expect(await cli('new')).toMatchObject({ code: 2, err: expect.stringContaining('flowgauge new --from-k6 script.js') });
    expect(existsSync(join(dir, 'x.ts'))).toBe(false);
  }, RUN_GUARD_MS);

});

// `new --from-k6 … --force` and `run` on files of their own: nothing here is shared but the
// service (a token each) and the `-e` values, which are the same for every run.
describe.concurrent('k6 scripts converted, then run', () => {
  it('http_get: listFlows sent, its checks pass', async () => {
    const { code, report } = await convertAndRun('http-get');
    expect(code).toBe(0);
    expect(report.ops.listFlows?.count).toBeGreaterThan(0);
    expect(report.checks?.['is status 200']).toMatchObject({ fails: 0 });
    expect(report.checks?.['lists flows']?.passes).toBeGreaterThan(0);
  }, RUN_GUARD_MS);

  it('groups and setup: steps by group, setup run once, every check passes', async () => {
    const { code, report } = await convertAndRun('groups');
    expect(code).toBe(0);
    expect(Object.keys(report.steps ?? {})).toEqual(expect.arrayContaining(['visit the flow list', 'chat', 'a turn']));
    // setup lists the flows; the iterations never do.
    expect(report.ops.listFlows?.count).toBe(1);
    for (const op of ['getFlow', 'createSession', 'run', 'getHistory']) expect(report.ops[op]?.count, op).toBeGreaterThan(0);
    for (const [name, c] of Object.entries(report.checks ?? {})) expect(c.fails, name).toBe(0);
    expect(report.iterations?.failed).toBe(0);
  }, RUN_GUARD_MS);

  it('thresholds with tags: judged on the rows the requests went to, vu.http to another host included', async () => {
    const { code, report } = await convertAndRun('thresholds');
    expect(code).toBe(0);
    expect(report.ops['http:health']?.count).toBeGreaterThan(0);
    const byKey = Object.fromEntries(report.thresholds.map((t) => [t.metric, t]));
    for (const key of ['http:health.latency.p95', 'listFlows.latency.p99', 'http:health.count', 'checks.flows listed', 'errors.rate']) {
      expect(byKey[key], key).toMatchObject({ passed: true });
      expect(byKey[key]?.observed, key).not.toBeNull();
    }
  }, RUN_GUARD_MS);

  it('scenarios: each executor its scenario, all in one run', async () => {
    const { report } = await convertAndRun('scenarios', 2);
    expect(Object.keys(report.scenarios ?? {}).sort()).toEqual(['browse', 'per-vu', 'ramp', 'run-flows', 'shared', 'steady']);
    expect(report.ops.createSession?.count).toBeGreaterThan(0);
    expect(report.checks?.['session created']).toMatchObject({ fails: 0 });
    expect(report.checks?.['flows listed']).toMatchObject({ fails: 0 });
  }, RUN_GUARD_MS);

  it('what was not converted runs as far as it can, and fails the iterations that reach it, saying what', async () => {
    const { code, report } = await convertAndRun('unconvertible');
    expect(code).toBe(1);
    expect(report.ops.listFlows?.count).toBeGreaterThan(0);
    expect(report.checks?.['batch answered']).toMatchObject({ fails: 0 });
    expect(report.iterations?.failed).toBeGreaterThan(0);
    expect(JSON.stringify(report.iterations)).toContain('flowgauge: not converted: http.get(...)');
  }, RUN_GUARD_MS);

  it('stages: runs as written', async () => {
    const { code, report } = await convertAndRun('stages');
    expect(code).toBe(0);
    expect(report.checks?.['status was 200']).toMatchObject({ fails: 0 });
  }, RUN_GUARD_MS);
});
