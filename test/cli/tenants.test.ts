/** `flowgauge run` of a file with several `scenarios`: tenants, scoped thresholds, token rules. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { Report } from '../../src/report/index.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-cli-tenants-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, body: Record<string, unknown>): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(body));
  return path;
}

const tenants = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'tenants',
  scenarios: {
    // The embedded free tier allows 100 a minute: 120 in 2 s go over it.
    free: { tier: 'free', tokenEnv: 'FG_TEST_FREE_TOKEN', load: { rate: '60/s', duration: '2s' }, mix: [{ op: 'listFlows' }], thresholds: { 'ratelimit.premature429': '==0' } },
    pro: { tier: 'pro', load: { rate: '20/s', duration: '2s' }, mix: [{ op: 'listFlows' }] },
  },
  thresholds: { 'pro:ratelimit.responses429': '==0', 'free:ratelimit.expected429': '>0' },
  ...extra,
});

describe('flowgauge run with several scenarios', () => {
  it('runs tenants at once against the embedded service: the free one throttled, the pro one not', async () => {
    const io = memoryIo({ cwd: dir });
    const out = join(dir, 'tenants');
    const code = await main(['run', file('tenants', tenants()), '--out', out, '--quiet'], io);
    expect(io.err()).toBe('');
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
    const free = report.scenarios?.free;
    const pro = report.scenarios?.pro;
    expect(free?.load.started).toBe(120);
    expect(pro?.load.started).toBe(40);
    expect(free?.rateLimit.responses429).toBeGreaterThanOrEqual(20);
    expect(free?.rateLimit.premature429).toBe(0);
    expect(pro?.rateLimit.responses429).toBe(0);
    expect(report.rateLimit.responses429).toBe(free?.rateLimit.responses429);
    expect(report.thresholds.map((t) => t.metric).sort()).toEqual(['free:ratelimit.expected429', 'free:ratelimit.premature429', 'pro:ratelimit.responses429']);
    expect(code).toBe(0);
    expect(io.out()).toContain('free: mix, constant-arrival-rate for 2s');
    // Each scenario's own figures are in what a person reads: console, report.md, report.html.
    expect(io.out()).toMatch(/free: 120 started at [\d.]+\/s, availability [\d.]+ ?%, \d+ × 429 \(0 premature\)/);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toMatch(/\| pro \| 40 \| [\d.]+ \| [\d.]+ ?% \| 0 \| 0 \| – \|/);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('<section id="scenarios"');
  });

  it('judges each tenant\'s headers on their own: no mixed findings, each limit on the run line, a block per tenant', async () => {
    const io = memoryIo({ cwd: dir });
    const out = join(dir, 'tenants-headers');
    await main(['run', file('tenants-headers', tenants()), '--out', out, '--quiet'], io);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
    // The free token says Limit 100 and the pro token 1000 in the same window: one analyser per
    // token sees no limit change and no Remaining going up.
    expect(report.scenarios?.free?.rateLimit.headerViolations).toEqual({});
    expect(report.scenarios?.pro?.rateLimit.headerViolations).toEqual({});
    expect(report.rateLimit.headerViolations).toEqual({});
    expect(report.rateLimit.advertisedLimit).toBeNull();
    expect(report.scenarios?.free?.rateLimit.advertisedLimit).toBe(100);
    expect(report.scenarios?.pro?.rateLimit.advertisedLimit).toBe(1000);
    expect(report.rateLimit.windows).toEqual([]);
    expect(io.out()).toMatch(/^429s {4}\d+ \(\d+ expected, 0 premature\); limit free 100, pro 1000, reset [\w-]+$/m);
    expect(io.out()).toMatch(/^ {2}free: limit 100 \([\w-]+, 1 window\); 429s \d+ \(\d+ expected, 0 premature\); header findings none$/m);
    expect(io.out()).toMatch(/^ {2}pro: limit 1000 .*; 429s 0 \(0 expected, 0 premature\); header findings none$/m);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain('Each tenant judged against its own limit, windows and headers:');
  });

  it('scenarios with one token are one tenant: one window, so neither calls the other\'s share of the limit premature', async () => {
    const io = memoryIo({ cwd: dir });
    const out = join(dir, 'one-token');
    const plan = {
      name: 'one-token',
      scenarios: {
        // Both get the embedded service's free token: 70 + 70 in 2 s against 100 a minute.
        a: { tier: 'free', load: { rate: '35/s', duration: '2s' }, mix: [{ op: 'listFlows' }] },
        b: { tier: 'free', load: { rate: '35/s', duration: '2s' }, mix: [{ op: 'listFlows' }] },
      },
      thresholds: { 'ratelimit.premature429': '==0' },
    };
    const code = await main(['run', file('one-token', plan), '--out', out, '--quiet'], io);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
    expect(report.rateLimit.responses429).toBeGreaterThanOrEqual(38);
    expect(report.rateLimit.premature429).toBe(0);
    expect(report.scenarios?.a?.rateLimit.premature429).toBe(0);
    expect(report.scenarios?.b?.rateLimit.premature429).toBe(0);
    expect(code).toBe(0);
  });

  it('refuses a literal token, an unknown scope and a bad tokenEnv before any request, by path', async () => {
    const io = memoryIo({ cwd: dir });
    const bad = tenants({ thresholds: { 'nobody:availability': '>=99%' } });
    (bad.scenarios as Record<string, Record<string, unknown>>).free = { tier: 'free', token: 'fg_literal_secret', tokenEnv: 'not a var', load: { rate: '1/s', duration: '1s' }, mix: [{ op: 'listFlows' }] };
    const code = await main(['run', file('bad', bad), '--quiet'], io);
    expect(code).toBe(2);
    expect(io.err()).toContain('scenarios.free.token');
    expect(io.err()).toContain('scenarios.free.tokenEnv');
    expect(io.err()).not.toContain('fg_literal_secret');
  });

  it('needs every named token variable for a real target', async () => {
    const io = memoryIo({ cwd: dir, env: {} });
    const code = await main(['run', file('real', tenants()), '--base-url', 'http://127.0.0.1:9/v1', '--token', 'fg_x', '--quiet'], io);
    expect(code).toBe(2);
    expect(io.err()).toContain('FG_TEST_FREE_TOKEN');
  });

  it('judges scoped thresholds over --workers as in one thread: the shipped tenants, every one observed, the pro tenant\'s holding', async () => {
    const io = memoryIo({ cwd: dir });
    const out = join(dir, 'tenants-workers');
    // The shipped scenarios/tenants.ts (by path: this directory has a tenants.json of its own).
    const shipped = fileURLToPath(new URL('../../scenarios/tenants.ts', import.meta.url));
    const code = await main(['run', shipped, '--workers', '2', '-d', '3s', '--quiet', '--no-audit', '--out', out], io);
    expect(code, io.err()).not.toBe(2);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
    expect(report.load.workers).toBe(2);
    expect(report.thresholds.map((t) => t.metric).sort()).toEqual(['free:ratelimit.expected429', 'free:ratelimit.premature429', 'pro:availability', 'pro:ratelimit.responses429']);
    // Merged from the workers' reports, each judged again on the merged scenario's figures.
    for (const t of report.thresholds) expect(t.observed, t.metric).not.toBeNull();
    const pro = report.thresholds.filter((t) => t.metric.startsWith('pro:'));
    expect(pro.every((t) => t.passed)).toBe(true);
    expect(report.thresholds.find((t) => t.metric === 'pro:ratelimit.responses429')?.observed).toBe(report.scenarios?.pro?.rateLimit.responses429);
    // 3 s at 150 % of 100/min is 8 requests: the free tenant never reaches its limit, so no 429 was expected.
    expect(report.thresholds.find((t) => t.metric === 'free:ratelimit.expected429')).toMatchObject({ observed: 0, passed: false });
    expect(code).toBe(1);
    // Scoped values in their unit: a ratio as a percentage.
    expect(io.out()).toMatch(/✓ pro:availability\s+>= 99\.9%\s+100%/);
    expect(io.out()).not.toContain('not observed');
  });
});
