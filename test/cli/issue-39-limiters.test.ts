/**
 * Issue 39's table, through `flowgauge run` against loopback services whose limiters keep books
 * (`test/helpers/limiter-server.ts`): each row gives its truth column. A service that sends only
 * Retry-After at exactly the tier is never accused nor called a gateway; a Reset that lies, a
 * sliding log that throttles early and a Remaining of 0 with a moving Reset are found; answers
 * held past the end of the run cannot make a pass. (The account-wide audit row is
 * `test/run/tenants-audit.test.ts`.)
 *
 * The five runs mostly wait on their schedules, so they start together in `beforeAll`, each
 * against its own service with its own books and output dir, and each test awaits its own: the
 * file takes its longest run (15 s) instead of the sum (42 s).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { Report } from '../../src/report/index.js';
import { fixedWindow, movingReset, slidingLog, type Limiter } from '../collect/limiter-sim.js';
import { startLimiterServer, type LimiterBooks, type LimiterServer, type LimiterServerOptions } from '../helpers/limiter-server.js';

interface Ran {
  readonly code: number;
  readonly out: string;
  readonly report: Report;
  readonly books: LimiterBooks;
}

let dir: string;
const servers: LimiterServer[] = [];
const runs = new Map<string, Promise<Ran>>();

/** Runs `scenario` against a fresh service limited by `limiter`; its exit code, console, report and the service's books. */
async function run(name: string, scenario: Record<string, unknown>, limiter: Limiter, options: LimiterServerOptions = {}): Promise<Ran> {
  const server = await startLimiterServer(limiter, options);
  servers.push(server);
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ name, mix: [{ op: 'listFlows' }], ...scenario }));
  const out = join(dir, name);
  const io = memoryIo({ cwd: dir });
  const code = await main(['run', file, '--base-url', server.baseUrl, '--token', 'fg_any', '--no-audit', '--out', out], io);
  const path = join(out, 'report.json');
  if (!existsSync(path)) throw new Error(`${name}: no report (exit ${code}): ${io.err()}`);
  return { code, out: io.out(), report: JSON.parse(readFileSync(path, 'utf8')) as Report, books: server.books() };
}

/** Starts a run now; the test that owns it awaits it (its failure is that test's alone). */
function start(name: string, scenario: Record<string, unknown>, limiter: Limiter, options: LimiterServerOptions = {}): void {
  const p = run(name, scenario, limiter, options);
  // Handled here so a run failing before its test awaits it is no unhandled rejection.
  p.catch(() => undefined);
  runs.set(name, p);
}
const ran = (name: string): Promise<Ran> => runs.get(name) as Promise<Ran>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-issue39-'));
  // 20/s for 8 s: 100 admitted in the minute, the rest refused, each after the client had sent 100.
  start('retry-after', { tier: 'free', load: { rate: '20/s', duration: '8s' } }, fixedWindow({ limit: 100, windowS: 60, headers: 'retry-after' }));
  // 40 per 4 s advertised (600/min), the counter cleared 2 s late; 15/s for 10 s.
  start('reset-lies', { tier: { limitPerMinute: 600 }, load: { rate: '15/s', duration: '10s' } }, fixedWindow({ limit: 40, windowS: 4, resetLagS: 2 }));
  // 20 per 5 s advertised (240/min); the client sends 3.4/s, 17 in any 5 s: under the limit at every refusal.
  start('sliding-14', { tier: { limitPerMinute: 240 }, load: { rate: '3.4/s', duration: '15s' } }, slidingLog({ limit: 20, windowS: 5, admits: 14 }));
  start('moving-reset', { tier: 'pro', load: { rate: '20/s', duration: '3s' } }, movingReset({ limit: 1000, windowS: 60, admits: 2 }));
  // 10/s for 3 s; every second request is held open, past the 1 s grace period (within its own 60 s deadline).
  start('held', { tier: { limitPerMinute: 100_000 }, load: { rate: '10/s', duration: '3s', gracefulStop: '1s' } }, fixedWindow({ limit: 100_000, windowS: 60 }), { hold: (n) => n % 2 === 0 });
});
afterAll(async () => {
  await Promise.allSettled(runs.values());
  for (const s of servers) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("issue 39: the truth when the evidence lies or is missing", () => {
  it('sends only Retry-After, enforcing exactly the scenario\'s 100/min: 0 premature, PASS, no gateway said', async () => {
    const { code, out, report, books } = await ran('retry-after');
    expect(books.refused).toBeGreaterThan(40);
    expect(books.premature).toBe(0);
    const rl = report.rateLimit;
    expect(rl.responses429).toBe(books.refused);
    expect(rl.premature429).toBe(0);
    expect(rl.expected429 + (rl.uncertain429 ?? 0)).toBe(books.refused);
    expect(rl.gateway429).toBe(0);
    expect(report.slo.availability).toBe(1);
    expect(out).not.toContain('something in front of the service');
    expect(report.verdict).toBe('PASS');
    expect(code).toBe(0);
  }, 60_000);

  it('an honest Remaining but a Reset that lies (refusals go on 2 s past each advertised reset): every refusal after it premature, reset-not-honoured, FAIL', async () => {
    const { code, report, books } = await ran('reset-lies');
    expect(books.premature).toBeGreaterThanOrEqual(30);
    const rl = report.rateLimit;
    expect(rl.responses429).toBe(books.refused);
    expect(Math.abs(rl.premature429 - books.premature)).toBeLessThanOrEqual(3);
    expect(Math.abs(rl.expected429 - books.expected)).toBeLessThanOrEqual(3);
    expect(rl.headerViolations['reset-not-honoured']).toBeGreaterThan(0);
    expect(report.verdict).toBe('FAIL');
    expect(code).toBe(1);
  }, 60_000);

  it('a sliding log that throttles after 14 while advertising 20: every refusal premature, one verdict for all', async () => {
    const { code, report, books } = await ran('sliding-14');
    expect(books.refused).toBeGreaterThan(5);
    expect(books.premature).toBe(books.refused);
    const rl = report.rateLimit;
    expect(rl.responses429).toBe(books.refused);
    expect(rl.premature429).toBe(books.refused);
    expect(rl.expected429).toBe(0);
    expect(rl.rolling).toBe(true);
    expect(code).toBe(1);
  }, 60_000);

  it('Limit 1000, Remaining 0 after one request, everything after refused, Reset moving (now + 60 s): a liar, every refusal premature', async () => {
    const { code, report, books } = await ran('moving-reset');
    const rl = report.rateLimit;
    expect(books.refused).toBeGreaterThan(40);
    expect(rl.responses429).toBe(books.refused);
    expect(rl.premature429).toBe(books.refused);
    expect(rl.expected429).toBe(0);
    expect(rl.headerViolations['remaining-below-count']).toBeGreaterThan(0);
    expect(report.slo.availability).toBeLessThan(0.1);
    expect(code).toBe(1);
  }, 60_000);

  it('holds half the answers past the end of the run: never judged, so no pass; FAIL with the cut count and the fix named', async () => {
    const { code, out, report, books } = await ran('held');
    expect(books.held).toBe(15);
    expect(report.load.cut).toBe(15);
    expect(report.slo).toMatchObject({ good: 15, bad: 0, cut: 15, availability: 1 });
    expect(report.slo.availabilityRange).toEqual({ low: 0.5, high: 1 });
    const availability = report.thresholds.find((t) => t.metric === 'availability');
    expect(availability).toMatchObject({ passed: false, observed: 0.5 });
    expect(report.verdict).toBe('FAIL');
    expect(code).toBe(1);
    expect(out).toContain('availability 50%–100% (15 cut, unjudged)');
    expect(out).toMatch(/15 requests were still open when the 1 s grace period ended: never judged, .*a longer gracefulStop.*a shorter timeouts\.request/);
  }, 60_000);
});
