/**
 * Issue 38, item 4: premature-429 analysis from merged evidence, not merged verdicts. A limiter
 * that throttles at 25 of an advertised 40 per 3 s (its books say which refusals came early),
 * the client at 25/s for 12 s, run as one process, as `--workers 2`, and as two shards merged by
 * `flowgauge merge`: each gives the books' premature and expected counts within ±3 (plus the
 * few it calls uncertain: `expectTruth`), where each worker or shard judging its half alone once called most
 * of them uncertain. A report without evidence (an older flowgauge) merges with a warning saying so.
 *
 * The three runs mostly wait on their 12 s schedules, so they start together in `beforeAll`, each
 * against its own limiter (its own books, its own output dir), and each test awaits its own: one
 * 12 s round instead of three. The length stays: it is four of the limiter's windows, the books'
 * 60 or so premature refusals (more than 40 asserted) and enough evidence for the ±3.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { Report } from '../../src/report/index.js';
import { fixedWindow } from '../collect/limiter-sim.js';
import { startLimiterServer, type LimiterBooks, type LimiterServer } from '../helpers/limiter-server.js';

let dir: string;
let file: string;
const servers: LimiterServer[] = [];
type Ran = { code: number; err: string; report: Report | undefined; path: string };
let one: Promise<{ r: Ran; books: LimiterBooks }>;
let workers: Promise<{ r: Ran; books: LimiterBooks }>;
let shards: Promise<{ a: Ran; b: Ran; books: LimiterBooks }>;

const limiter = async (): Promise<LimiterServer> => {
  const s = await startLimiterServer(fixedWindow({ limit: 40, windowS: 3, admits: 25 }));
  servers.push(s);
  return s;
};
/** Handled here so a run failing before its test awaits it is no unhandled rejection; the test awaiting it fails. */
function started<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-rl-merge-'));
  file = join(dir, 'early.json');
  // 40 per 3 s is 800 per minute: the tier says what the headers say.
  writeFileSync(file, JSON.stringify({ name: 'early', tier: { limitPerMinute: 800 }, load: { executor: 'constant-arrival-rate', rate: '25/s', duration: '12s' }, mix: [{ op: 'listFlows' }], thresholds: {} }));
  one = started(
    (async () => {
      const server = await limiter();
      const r = await run(server.baseUrl, 'one', []);
      return { r, books: server.books() };
    })(),
  );
  workers = started(
    (async () => {
      const server = await limiter();
      const r = await run(server.baseUrl, 'workers', ['--workers', '2']);
      return { r, books: server.books() };
    })(),
  );
  shards = started(
    (async () => {
      const server = await limiter();
      const at = new Date(Date.now() + 2500).toISOString();
      const base = server.baseUrl;
      const [a, b] = await Promise.all([run(base, 'shard1', ['--shard', '1/2', '--start-at', at]), run(base, 'shard2', ['--shard', '2/2', '--start-at', at])]);
      return { a, b, books: server.books() };
    })(),
  );
});
afterAll(async () => {
  await Promise.allSettled([one, workers, shards]);
  for (const s of servers) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(base: string, name: string, extra: readonly string[]): Promise<Ran> {
  const out = join(dir, name);
  const io = memoryIo({ cwd: dir });
  const code = await main(['run', file, '--base-url', base, '--token', 'fg_any', '--quiet', '--no-audit', '--out', out, ...extra], io);
  const path = join(out, 'report.json');
  return { code, err: io.err(), report: existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Report) : undefined, path };
}

/**
 * The report's verdicts against the books, and uncertain a small minority. A refusal the client's
 * clock cannot place is neither premature nor expected, so each count is within ±3 of the books
 * plus the uncertain ones; and those are at most 3, or one in ten refusals on a machine so starved
 * that the client honestly cannot place more (seen at a load average of 10 on 2 cores: 4 and 6
 * uncertain of ~200, and once 16 fewer counted expected than the books). The bug this guards,
 * each half judged alone, called most of them uncertain.
 */
function expectTruth(r: Report, books: LimiterBooks): void {
  const rl = r.rateLimit;
  const uncertain = rl.uncertain429 ?? 0;
  expect(rl.responses429).toBe(books.refused);
  expect(uncertain, `uncertain of ${books.refused} refusals`).toBeLessThanOrEqual(Math.max(3, Math.floor(books.refused / 10)));
  expect(Math.abs(rl.premature429 - books.premature), `premature ${rl.premature429}, books ${books.premature}, uncertain ${uncertain}`).toBeLessThanOrEqual(3 + uncertain);
  expect(Math.abs(rl.expected429 - books.expected), `expected ${rl.expected429}, books ${books.expected}, uncertain ${uncertain}`).toBeLessThanOrEqual(3 + uncertain);
}

describe('premature 429s of a split run, from the merged evidence', () => {
  it('one process: the books', async () => {
    const { r, books } = await one;
    expect(r.report, r.err).toBeDefined();
    expect(books.premature).toBeGreaterThan(40);
    expectTruth(r.report as Report, books);
    // The run's evidence travels in its report.
    expect(r.report?.rateLimit.evidence?.covers).toBe(1);
    expect(r.report?.rateLimit.evidence?.of).toBe(1);
  }, 120_000);

  it('--workers 2: the same verdicts as one process', async () => {
    const { r, books } = await workers;
    expect(r.report, r.err).toBeDefined();
    expect(r.report?.load.workers).toBe(2);
    if (process.env.DUMP) writeFileSync(process.env.DUMP, JSON.stringify({ report: r.report, books }));
    expectTruth(r.report as Report, books);
    expect(r.report?.rateLimit.evidence).toMatchObject({ of: 2, covers: 2 });
  }, 120_000);

  it('two shards + merge: the same verdicts as one process; a shard without evidence is said', async () => {
    const { a, b, books } = await shards;
    expect(a.report, a.err).toBeDefined();
    expect(b.report, b.err).toBeDefined();
    // Each shard alone saw half the traffic: its own verdicts cannot place most of the refusals.
    const alone = (a.report as Report).rateLimit;
    expect(alone.evidence).toMatchObject({ of: 2, covers: 1 });
    const out = join(dir, 'merged.json');
    const io = memoryIo({ cwd: dir });
    await main(['merge', a.path, b.path, '-o', out], io);
    const merged = JSON.parse(readFileSync(out, 'utf8')) as Report;
    expectTruth(merged, books);
    expect(merged.warnings?.some((w) => w.code === 'RATE_LIMIT_EVIDENCE_MISSING') ?? false).toBe(false);
    // The settled verdicts move the SLI too: the premature 429s are the bad events.
    expect(merged.slo.bad).toBe(merged.rateLimit.premature429);
    expect(merged.ops.listFlows?.bad).toBe(merged.rateLimit.premature429);

    // A shard written by an older flowgauge carries no evidence: its verdicts are added as they are, and said.
    const old = JSON.parse(readFileSync(b.path, 'utf8')) as Report & { rateLimit: { evidence?: unknown } };
    delete old.rateLimit.evidence;
    const oldPath = join(dir, 'old-shard.json');
    writeFileSync(oldPath, JSON.stringify(old));
    const io2 = memoryIo({ cwd: dir });
    await main(['merge', a.path, oldPath, '-o', join(dir, 'merged-old.json')], io2);
    const mixed = JSON.parse(readFileSync(join(dir, 'merged-old.json'), 'utf8')) as Report;
    const warning = mixed.warnings?.find((w) => w.code === 'RATE_LIMIT_EVIDENCE_MISSING');
    expect(warning?.message).toContain('old-shard.json');
    expect(mixed.rateLimit.responses429).toBe(books.refused);
  }, 120_000);
});
